"""Issue 16, part 4: every HTTP request has a total deadline (connect + headers + whole
body), held against a server that sends one byte a second; a probe whose requests all
timed out is "could not diagnose" (exit 3). probe, local diagnose and exporter --once
pointed at a drip server each end within their deadline + 2 s."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llmdoctor.hosts.http import HttpTimeout, http_request
from llmdoctor.hosts.local import LocalHost
from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, get, stream
from llmdoctor.knowledge.probe.result import TIMEOUT
from tests.support.drip import DripServer

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
START_UP_S = 1.5  # a fresh interpreter importing llmdoctor on a busy 2-core machine
LLAMA_ANSWERS = {"/props": b'{"total_slots": 1, "model_alias": "m"}', "/health": b'{"status": "ok"}'}


def test_http_request_holds_its_total_deadline_against_a_drip():
    with DripServer() as d:
        t = time.monotonic()
        with pytest.raises(HttpTimeout, match="no complete answer within 2 s"):
            http_request("127.0.0.1", d.port, "GET", "/health", timeout=2.0)
        assert time.monotonic() - t < 3.0


def test_a_silent_port_is_not_asked_again_in_the_same_run():
    host = LocalHost("t")
    with DripServer() as d:
        with pytest.raises(HttpTimeout):
            host.http("GET", d.port, "/health", timeout=1.0)
        t = time.monotonic()
        with pytest.raises(HttpTimeout, match="not asked"):
            host.http("GET", d.port, "/props", timeout=1.0)
        assert time.monotonic() - t < 0.2 and d.connections == 1


def test_probe_get_holds_its_total_deadline():
    with DripServer() as d:
        t = time.monotonic()
        with pytest.raises(TimeoutError):
            get(d.url, "/api/version", 2.0)
        assert time.monotonic() - t < 3.0


def test_a_dripping_stream_times_out_at_the_request_limit():
    with DripServer(answers={}) as d:
        req = StreamRequest("r", "single", d.url, "/v1/chat/completions", {"stream": True}, "openai",
                            timeout_s=2.0, read_timeout_s=1.5, first_byte_timeout_s=1.5)
        t = time.monotonic()
        s = stream(req, t, Interrupt())
        assert s.status == TIMEOUT and time.monotonic() - t < 3.0


def _cli(args: list[str], timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONPATH=str(REPO), LLMDOCTOR_QUIET="1")
    t = time.monotonic()
    r = subprocess.run([PY, "-m", "llmdoctor", *args], capture_output=True, text=True, env=env,
                       timeout=timeout, cwd="/")
    return r, time.monotonic() - t


@pytest.mark.parametrize("answers", [None, LLAMA_ANSWERS], ids=["detection-drips", "stream-drips"])
def test_probe_at_a_drip_server_is_could_not_diagnose_within_its_deadline(answers):
    with DripServer(answers=answers) as d:
        r, took = _cli(["probe", d.url, "--deadline", "5"], timeout=120)
    assert r.returncode == 3, r.stdout + r.stderr
    assert took < 5 + 2 + START_UP_S, took
    assert "Traceback" not in r.stderr
    if answers is not None:  # detected, then every stream dripped: measured nothing
        assert "Could not diagnose: no probe request got a complete answer" in r.stdout


def _in_own_pid_namespace() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-pf", "--mount-proc", "true"], capture_output=True, timeout=10).returncode == 0


@pytest.mark.skipif(not _in_own_pid_namespace(), reason="needs root and unshare (a PID namespace keeps the "
                                                        "fake llama-server out of other runs' discovery)")
@pytest.mark.parametrize("command", ["diagnose", "exporter"])
def test_local_diagnose_and_exporter_once_at_a_drip_engine(tmp_path, command):
    """A dripping process named llama-server, found by local discovery (in a private PID
    namespace): the run ends within one request deadline (5 s, the llama-server endpoint
    limit; the other endpoints of that port are not asked again) + 2 s."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = {"diagnose": "diagnose --sample-seconds 0",
            "exporter": f"exporter --once --textfile {tmp_path}/m.prom --state-dir {tmp_path}/state --sample-seconds 0"}[command]
    # The process is named llama-server (a link to the real interpreter, which finds its
    # standard library from the link's target: `exec -a` would make a venv lose it).
    (tmp_path / "llama-server").symlink_to(os.path.realpath(PY))
    script = (f"({tmp_path}/llama-server {REPO}/tests/support/drip.py --port {port} >/dev/null 2>&1 &); "
              f"for i in $(seq 50); do (echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; sleep 0.1; done; "
              f"s=$(date +%s.%N); {PY} -m llmdoctor {args}; rc=$?; "
              f"echo \"rc=$rc took=$(echo \"$(date +%s.%N) - $s\" | bc)\" >&2")
    env = dict(os.environ, PYTHONPATH=str(REPO), LLMDOCTOR_QUIET="1")
    r = subprocess.run(["unshare", "-pf", "--mount-proc", "bash", "-c", script], capture_output=True, text=True,
                       env=env, timeout=120, cwd="/")
    last = r.stderr.strip().splitlines()[-1]
    took = float(last.split("took=")[1])
    assert "Traceback" not in r.stderr
    assert took < 5 + 2 + START_UP_S, (took, r.stdout[-2000:], r.stderr[-2000:])
    if command == "diagnose":
        # the first request to the port that let its deadline pass (the progress check's /health
        # at 2 s, or an endpoint at 5 s) ends the asking: the rest say "not asked"
        assert "llamacpp" in r.stdout and re.search(r"no complete answer within [25] s|no answer in time", r.stdout)
    else:
        assert (tmp_path / "m.prom").exists()
