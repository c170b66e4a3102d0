"""`llmdoctor ready` against a real llama-server (xllamacpp, tiny model, loopback): ready when
idle and when busy with a long generation in its only slot (tokens flow: not stalled); stalled
when stopped with SIGSTOP (port open, nothing answers), within its deadline + 1 s; ready again
after SIGCONT; down when nothing listens. Every load is one bounded generation."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.support.llamaserver import generate, running_llama_server, skip_reason
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(300)]
DEADLINE = 4.0


def ready(url: str, *args: str) -> tuple[int, dict, float]:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "ready", url, "--deadline", str(DEADLINE), "-f", "json",
                        *args], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout), took


@pytest.fixture(scope="module")
def server():
    if skip_reason():
        pytest.skip(skip_reason())
    with running_llama_server(tiny_gguf(), n_parallel=1, n_ctx=2048) as url:
        yield url


def test_idle_server_is_ready_by_a_one_token_request(server):
    code, doc, took = ready(server)
    assert code == 0 and doc["state"] == "ready" and doc["serving"], doc
    assert any("1 token" in e for e in doc["evidence"])


def test_busy_server_is_serving_not_stalled(server):
    t = threading.Thread(target=generate, args=(server, 1500, 3), daemon=True)
    t.start()
    time.sleep(0.3)
    try:
        code, doc, _ = ready(server)
    finally:
        t.join(120)
    assert code == 0 and doc["state"] in ("busy", "ready"), doc


def test_stopped_server_is_stalled_within_the_deadline_and_ready_after_sigcont(server):
    os.kill(server.pid, signal.SIGSTOP)
    try:
        time.sleep(0.3)
        code, doc, took = ready(server)
        d = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--url", server, "--sample-seconds", "0",
                            "-f", "json"], capture_output=True, text=True, timeout=60)
    finally:
        os.kill(server.pid, signal.SIGCONT)
    [target] = json.loads(d.stdout)["targets"]  # no engine can be named; diagnose says why, and what tells
    assert d.returncode == 3 and "takes connections but gave no answer" in target["could_not_diagnose"], target
    assert code == 2 and doc["state"] == "stalled", doc
    assert took <= DEADLINE + 1.0 + 1.5, took  # + the interpreter's start
    assert doc["seconds"] <= DEADLINE + 1.0, doc
    code, doc, _ = ready(server)
    assert code == 0 and doc["state"] == "ready", doc


def test_nothing_listening_is_down_at_once():
    code, doc, took = ready("http://127.0.0.1:9")
    assert code == 2 and doc["state"] == "down" and doc["seconds"] < 2.0, doc


def test_nagios_and_text_say_the_same():
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "ready", "http://127.0.0.1:9", "-f", "nagios"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout.startswith("LLMDOCTOR READY CRITICAL - down:"), p.stdout
