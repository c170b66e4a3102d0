"""CPU_CONTENTION on a real llama-server (xllamacpp, tiny model, 2 threads): named while two
bounded busy loops hold the cores during a generation, silent while it generates alone.
(On a machine already crowded by other work the second half cannot hold: it skips then.)"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tests.support.llamaserver import generate, running_llama_server, skip_reason
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(300)]
HOG = "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 20: pass\n"  # bounded: 20 s


def findings(url: str) -> list[dict]:
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--url", url, "--sample-seconds", "3",
                        "-f", "json"], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return [f for t in json.loads(p.stdout)["targets"] for f in t["findings"]]


def generating(url, seed):
    t = threading.Thread(target=generate, args=(url, 3000, seed), daemon=True)
    t.start()
    return t


@pytest.fixture(scope="module")
def server():
    if skip_reason():
        pytest.skip(skip_reason())
    with running_llama_server(tiny_gguf(), n_parallel=1, n_ctx=2048) as url:
        yield url


def test_named_beside_two_cpu_hogs(server):
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
    t = generating(server, 11)
    try:
        got = findings(server)
    finally:
        for h in hogs:
            h.kill()
        t.join(120)
    [f] = [f for f in got if f["cause"] == "CPU_CONTENTION"]
    assert "other work" in f["evidence"][0]["text"]


def test_silent_while_it_generates_alone(server):
    if os.getloadavg()[0] > os.cpu_count() + 1:
        pytest.skip(f"this machine is busy with other work (load {os.getloadavg()[0]:.1f}): contention is real here")
    t = generating(server, 12)
    try:
        got = findings(server)
    finally:
        t.join(120)
    assert not [f for f in got if f["cause"] == "CPU_CONTENTION"], got
