"""Stopping a process a test fixture started: the one teardown every fixture shares."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def stop_process(proc: subprocess.Popen | None, timeout: float, *, group: bool = False,
                 kill_wait: float = 5.0) -> None:
    """SIGTERM, then SIGKILL when it has not ended within `timeout` (to its whole process
    group with `group`, for a process that started its own session); then wait up to
    `kill_wait` s. A process that already ended (or None) is left alone."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        proc.wait(kill_wait)
