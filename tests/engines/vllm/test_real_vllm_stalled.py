"""A real vLLM 0.32 (CPU) whose engine-core process is stopped (SIGSTOP) while its API server
still answers /health and /metrics: `llmdoctor ready` exits 2 (stalled) within its deadline and
`diagnose` names ENGINE_STALLED; resumed (SIGCONT), it is ready again. Loopback only; the load
is one bounded request."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

from tests.support.schema import report_doc
from tests.support.vllm_cpu import TIMINGS, diagnose, get, post, serve, timed, wait_for_metric

pytestmark = [pytest.mark.vllm, pytest.mark.real, pytest.mark.slow, pytest.mark.timeout(2400)]
DEADLINE = 6.0


@pytest.fixture(scope="module")
def server(vllm_setup, tmp_path_factory):
    s = serve(vllm_setup, tmp_path_factory.mktemp("vllm-stalled"), 4)
    yield s
    s.stop()


def engine_core(server) -> psutil.Process:
    procs = psutil.Process(server.proc.pid).children(recursive=True)
    for p in procs:
        try:
            if "EngineCore" in p.name() or any("EngineCore" in a for a in p.cmdline()):
                return p
        except psutil.Error:
            continue
    pytest.fail(f"no EngineCore process among {[(p.pid, p.name()) for p in procs]}")


def ready(url: str) -> tuple[int, dict, float]:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "ready", url, "--deadline", str(DEADLINE), "-f", "json"],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout), time.monotonic() - start


def test_stopped_engine_core_is_stalled_while_health_answers(server):
    url = f"http://127.0.0.1:{server.port}"
    code, doc, _ = ready(url)
    assert code == 0 and doc["state"] == "ready", doc
    core = engine_core(server)
    done: list = []

    def one_request(seed: int) -> threading.Thread:
        body = {"model": "tiny", "prompt": server.prompt(30, seed), "max_tokens": 800, "ignore_eos": True}
        t = threading.Thread(target=lambda: done.append(post(server.port, "/v1/completions", body, timeout=300)),
                             daemon=True)
        t.start()
        return t

    for seed in range(3):  # bounded: a request that ended before the gauge showed it is sent again
        t = one_request(seed)
        if wait_for_metric(server.port, "vllm:num_requests_running", 0, timeout=60) is not None and t.is_alive():
            break
        t.join(120)
    assert t.is_alive(), f"no request was seen running: {done}"
    core.send_signal(signal.SIGSTOP)
    try:
        time.sleep(0.5)
        assert get(server.port, "/health", timeout=5) is not None  # the API server still answers
        with timed("stalled_ready_s"):
            code, doc, took = ready(url)
        assert code == 2 and doc["state"] == "stalled", doc
        assert doc["seconds"] <= DEADLINE + 1.0, doc
        result = diagnose("--url", url, "--format", "json", "--sample-seconds", "3")
    finally:
        core.send_signal(signal.SIGCONT)
    t.join(300)
    findings = [f for tg in report_doc(result.stdout)["targets"] for f in tg["findings"]]
    TIMINGS["stalled_findings"] = sorted({f["check"] for f in findings})
    assert any(f["cause"] == "ENGINE_STALLED" for f in findings), result.stdout[-3000:]
    deadline = time.monotonic() + 60
    while True:  # resumed: it serves again (the stopped request finishes first)
        code, doc, _ = ready(url)
        if code == 0 or time.monotonic() > deadline:
            break
    assert code == 0 and doc["state"] in ("ready", "busy"), doc
