"""CPU_CONTENTION on a real llama-server (xllamacpp, tiny model, 2 threads): named while three
bounded busy loops hold the cores during its generations, silent while it generates alone.
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


def generating(url, seed, stop: threading.Event):
    """Generations one after another until `stop` (bounded: at most 60 s), so the engine works
    through the whole diagnosis however fast this machine decodes."""
    import time

    def run():
        end = time.monotonic() + 60
        n = 0
        while not stop.is_set() and time.monotonic() < end:
            generate(url, 1500, seed + n)
            n += 1

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.fixture(scope="module")
def server():
    if skip_reason():
        pytest.skip(skip_reason())
    with running_llama_server(tiny_gguf(), n_parallel=1, n_ctx=2048) as url:
        yield url


def test_named_beside_two_cpu_hogs(server):
    # each hog in a session of its own, as other services on a host are: with the kernel's session autogroups the
    # three in the test's one session shared one share of the CPU, and the engine's session sometimes kept its cores
    hogs = [subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True) for _ in range(3)]
    stop = threading.Event()
    t = generating(server, 11, stop)
    try:
        got = findings(server)
    finally:
        stop.set()
        for h in hogs:
            h.kill()
        t.join(120)
    named = [f for f in got if f["cause"] == "CPU_CONTENTION"]
    assert len(named) == 1, [(f["check"], f["title"]) for f in got]
    assert "other work" in named[0]["evidence"][0]["text"]


SETTLE_S = 90  # the 1-minute load average keeps the hogs of the test before for about a minute after they end


def test_silent_while_it_generates_alone(server):
    import time

    end = time.monotonic() + SETTLE_S
    while os.getloadavg()[0] > os.cpu_count() + 1 and time.monotonic() < end:
        time.sleep(5)
    if os.getloadavg()[0] > os.cpu_count() + 1:
        pytest.skip(f"this machine is busy with other work (load {os.getloadavg()[0]:.1f}): contention is real here")
    stop = threading.Event()
    t = generating(server, 12, stop)
    try:
        got = findings(server)
    finally:
        stop.set()
        t.join(120)
    assert not [f for f in got if f["cause"] == "CPU_CONTENTION"], got
