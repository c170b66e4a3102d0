"""Issue 16, part 7: a run stopped by SIGTERM leaves no SSH control directory behind (a
fake `ssh` on PATH that hangs, so no sshd is needed), and exits at once with 143."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAKE_SSH = """#!/bin/sh
for a in "$@"; do [ "$a" = "-O" ] && exit 0; done   # ssh -O exit / forward: the master answers
last=""; for a in "$@"; do last="$a"; done
if [ "$last" = "exit 0" ] && [ "$HANG" = "command" ]; then exit 0; fi   # the master connected
sleep 30
"""


@pytest.mark.parametrize("hang", ["connect", "command"])
def test_sigterm_removes_the_control_directory(tmp_path, hang):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ssh").write_text(FAKE_SSH)
    (bindir / "ssh").chmod(0o755)
    tmp = Path(tempfile.mkdtemp(prefix="t16-", dir="/tmp"))  # short: a control socket path is capped
    try:
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", TMPDIR=str(tmp), HANG=hang,
                   PYTHONPATH=str(REPO), LLMDOCTOR_QUIET="1")
        p = subprocess.Popen([sys.executable, "-m", "llmdoctor", "diagnose", "--host", "u@192.0.2.1",
                              "--sample-seconds", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        end = time.monotonic() + 20
        while time.monotonic() < end and not list(tmp.glob("lldssh-*")):
            time.sleep(0.05)
        assert list(tmp.glob("lldssh-*")), "the run never created its control directory"
        time.sleep(0.5 if hang == "command" else 0.2)  # into the hanging command
        t = time.monotonic()
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=15)
        assert time.monotonic() - t < 5
        assert p.returncode == 128 + signal.SIGTERM, err
        assert list(tmp.glob("lldssh-*")) == []
        assert b"Traceback" not in err
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the fake ssh children (sleep 30)
        except (ProcessLookupError, PermissionError, UnboundLocalError):
            pass
        shutil.rmtree(tmp, ignore_errors=True)
