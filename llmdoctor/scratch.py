"""Temporary directories that do not outlive the run: removed at exit, and also when the run
is stopped by SIGTERM or SIGHUP (a systemd stop, a closed terminal), which skip atexit.
A repaired copy of a pasted log can be hundreds of MB; left behind it fills /tmp run by run.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import threading

_DIRS: list[str] = []
_LOCK = threading.Lock()
_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def scratch_dir(prefix: str) -> str:
    """A new private temporary directory, removed when the process ends however it ends."""
    import tempfile  # (here: every run imports this module, few make a directory)

    path = tempfile.mkdtemp(prefix=prefix)
    with _LOCK:
        _DIRS.append(path)
    cleanup_on_signals()
    return path


def remove_all() -> None:
    with _LOCK:
        dirs, _DIRS[:] = list(_DIRS), []
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


def cleanup_on_signals() -> None:
    """Remove the directories on SIGTERM/SIGHUP, then die of the signal as before. Only where
    nobody else handles the signal (the exporter stops gracefully on its own), and only from
    the main thread (where Python allows handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _SIGNALS:
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _on_signal)


def _on_signal(signum: int, _frame) -> None:
    remove_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


atexit.register(remove_all)
