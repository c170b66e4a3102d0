"""llmdoctor's own small state on the machine it runs on (the probe's run records, `collect
--clean`'s pseudonym map): where it lives and how it is read and written, so that collectors
and app/ keep no file I/O of their own.

`$LLMDOCTOR_STATE_HOME`, else `$XDG_STATE_HOME/llmdoctor`, else `~/.local/state/llmdoctor`.
A state file that cannot be read or written is no error for the caller: reads raise OSError,
writes replace the file whole (a reader never sees half of it) and raise OSError.
"""
from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    root = os.environ.get("LLMDOCTOR_STATE_HOME")
    if not root:
        xdg = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
        root = os.path.join(xdg, "llmdoctor")
    return Path(root)


def state_path(name: str) -> Path:
    return state_dir() / name


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


def write_private(path: Path, text: str) -> None:
    """Write a state file only its owner may read (its directory 0700 when made here)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
