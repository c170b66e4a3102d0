"""Where a long step says what it is doing (the probe's requests, a fleet's hosts).

The layers that measure cannot know whether anyone is watching; they call `say`, and the
command line decides where that goes: one stderr line each when stderr is a terminal (or
with -v), nowhere otherwise, so a pipe and a JSON stdout stay clean. One sink per process:
a run is one command.
"""
from __future__ import annotations

import threading
from typing import Callable

_sink: Callable[[str], None] | None = None
CUT = ""  # what a Ctrl-C cut, said once on the way out (cli main: "llmdoctor: interrupted: ...")
_lock = threading.Lock()  # the hosts of a fleet finish in worker threads


def set_sink(sink: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Send every step to `sink` (None: to nowhere); the previous sink, to put back."""
    global _sink
    with _lock:
        previous, _sink = _sink, sink
    return previous


def say(message: str) -> None:
    """One step, as one line; nothing when no one listens."""
    with _lock:
        if _sink is not None:
            _sink(message)


STEP_S = 1.0  # a wait shorter than this is not worth a line


def waiting(host, what: str, seconds: float) -> None:
    """Before a sampling window: "gpu1: sampling vLLM /metrics for 2 s" (a window under STEP_S says nothing)."""
    if seconds >= STEP_S:
        name = host.name or ""  # (every Host has one: hosts/base.py)
        say(f"{name + ': ' if name else ''}{what} for {seconds:.0f} s")


def cut(what: str) -> None:
    """Remember what a Ctrl-C cut, for the one line the command line prints as it exits."""
    global CUT
    CUT = what
