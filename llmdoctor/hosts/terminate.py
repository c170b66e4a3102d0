"""What must not outlive a run stopped by SIGTERM (systemd stop, `kill`, a CI timeout):
SSH control sockets and their directories, temporary copies. Python's default SIGTERM
kills the process without running atexit handlers or finally blocks, so each owner of
such a thing registers a hook here; the command line's handler runs every hook, then
exits with 128 + SIGTERM. Hooks take no lock (a worker thread may hold one for as long
as its own timeout) and must be quick and best effort."""
from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable

_hooks: list[Callable[[], None]] = []
_lock = threading.Lock()


def on_terminate(hook: Callable[[], None]) -> None:
    with _lock:
        if hook not in _hooks:
            _hooks.append(hook)


def run_hooks() -> None:
    with _lock:
        hooks = list(_hooks)
    for hook in hooks:
        try:
            hook()
        except Exception:  # one failed cleanup must not stop the others
            pass


def _handler(signum, frame) -> None:
    run_hooks()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(128 + signum)


def install() -> None:
    """Handle SIGTERM in this process unless something else already does (the exporter
    sets its own, which stops it cleanly and runs atexit)."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _handler)
