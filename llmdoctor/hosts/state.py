"""llmdoctor's own small state on the machine it runs on (the probe's run records): where it
lives and how it is read and written, so that collectors keep no file I/O of their own.

`$LLMDOCTOR_STATE_HOME`, else `$XDG_STATE_HOME/llmdoctor`, else `~/.local/state/llmdoctor`.
A state file that cannot be read or written is no error for the caller: reads raise OSError,
writes replace the file whole (a reader never sees half of it) and raise OSError.
"""
from __future__ import annotations

import os
from pathlib import Path


def state_path(name: str) -> Path:
    root = os.environ.get("LLMDOCTOR_STATE_HOME")
    if not root:
        xdg = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
        root = os.path.join(xdg, "llmdoctor")
    return Path(root) / name


def read_state(path: Path, limit: int) -> bytes:
    """At most limit + 1 bytes of a state file (more than `limit` tells the caller it is too big)."""
    with open(path, "rb") as f:
        return f.read(limit + 1)


def write_state(path: Path, text: str) -> None:
    """Replace a state file: a temporary file beside it, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)
