"""Replace a file so that no reader ever sees it half written: a temporary file in the
same directory, fsync, rename over the target (atomic on one filesystem), fsync of the
directory so the rename survives a crash. On failure the temporary file is removed.

Used for the exporter's textfile, the tuner's drop-in and the log positions. The
temporary name starts with a dot and ends in `.tmp`, so neither node_exporter (`*.prom`)
nor systemd (`*.conf`) ever reads it.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:  # some filesystems refuse fsync on directories; the rename is done
        pass
    finally:
        os.close(dir_fd)
