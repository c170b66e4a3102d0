"""One tuner at a time per system root: an exclusive `flock` on a file in the tuner's
state directory. The holder writes its pid and start time into the file, so a second
run fails at once and says who holds it. The kernel drops the lock when the holder
dies (even by SIGKILL), so a crashed run never leaves a stale lock behind."""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path


class LockHeld(Exception):
    """Another tuner run holds the lock; str() names it."""


class StateLock:
    def __init__(self, path: Path, shown: str) -> None:
        self.path = Path(path)
        self.shown = shown  # the path as the system names it, for messages
        self._fd: int | None = None

    def __enter__(self) -> "StateLock":
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise LockHeld(f"another llmdoctor tune is running ({holder}; lock {self.shown}); "
                           f"nothing was changed - try again when it has finished") from None
        except OSError:
            os.close(fd)
            raise
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} started {_now()}\n".encode(), 0)
        except OSError:
            pass  # the lock holds without the note; a second run then says "holder unknown"
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
            except OSError:
                pass
            os.close(self._fd)  # releases the flock
            self._fd = None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return f"held by {text}" if text.startswith("pid ") else "holder unknown"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
