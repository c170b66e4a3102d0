"""Ctrl-C in the long commands that had no test of it yet (probe, sweep and diagnose --probe have
theirs in tests/probe): each exits 130 and says on stderr what was cut, with no traceback.
collect runs under a pty, as a person at a terminal presses Ctrl-C there."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.exporter.conftest import EVIDENCE
from tests.support.terminal import interruptible, on_a_terminal

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
CLI = [sys.executable, "-m", "llmdoctor"]


def once_it_says(words: str, then: float):
    """Ctrl-C `then` seconds after stderr first shows `words` (the spinner: the collection has begun;
    a fixed delay from the start lands in the interpreter's start-up on a loaded machine)."""
    seen: list[float] = []

    def ready(stderr: str) -> bool:
        if words in stderr and not seen:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= then
    return ready


def test_ctrl_c_in_collect_removes_the_half_bundle_and_says_so(tmp_path):
    out = tmp_path / "bundle"
    code, stdout, stderr = on_a_terminal([*CLI, "collect", "-o", str(out)], ENV,
                                         interrupt_when=once_it_says("collecting from", 0.3))
    if code == 0:
        pytest.skip("collect finished before the Ctrl-C here: nothing left to interrupt")
    assert code == 130, stderr
    assert "Traceback" not in stderr and "wrote" not in stdout
    said = " ".join(stderr.split())
    assert "llmdoctor: interrupted: collecting from" in said and "was cut" in said and "run it again" in said
    assert not out.exists()  # it was not there before: nothing half-written is left behind


def exporter(*args: str) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "exporter", *args], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, preexec_fn=interruptible)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ctrl_c_stops_the_exporter_with_130_and_sigterm_with_0(tmp_path):
    for sig, code, said in ((signal.SIGINT, 130, "interrupted: it no longer serves /metrics"), (signal.SIGTERM, 0, "")):
        p = exporter("--evidence", str(EVIDENCE), "--listen", f"127.0.0.1:{free_port()}", "--state-dir",
                     str(tmp_path / "s"))
        try:
            deadline = time.monotonic() + 60
            line = ""
            while "serving http://" not in line and time.monotonic() < deadline:
                line = p.stderr.readline()
            assert "serving http://" in line, line
            p.send_signal(sig)
            _, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        assert p.returncode == code, err
        assert "Traceback" not in err and (said in err if said else "interrupted" not in err), err


def test_exporter_verbose_logs_one_line_per_run(tmp_path):
    out = tmp_path / "llmdoctor.prom"
    p = subprocess.run([*CLI, "exporter", "--evidence", str(EVIDENCE), "--textfile", str(out), "--once",
                        "--state-dir", str(tmp_path / "state"), "-v"], cwd=ROOT, env=ENV, capture_output=True,
                       text=True, timeout=100)
    assert p.returncode == 0, p.stderr
    runs = [line for line in p.stderr.splitlines() if " s" in line and (" in " in line) and
            line.startswith("llmdoctor exporter: ")]
    assert len(runs) == 1, p.stderr  # one target, one run
    assert "finding" in runs[0] or "nothing found" in runs[0]
    quiet = subprocess.run([*CLI, "exporter", "--evidence", str(EVIDENCE), "--textfile", str(out), "--once",
                            "--state-dir", str(tmp_path / "state")], cwd=ROOT, env=ENV, capture_output=True,
                           text=True, timeout=100)
    assert quiet.returncode == 0 and not [line for line in quiet.stderr.splitlines() if " finding" in line]
