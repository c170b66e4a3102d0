"""Write metrics for node_exporter's textfile collector without readers ever
seeing a partial file: write a temporary file in the same directory, fsync it,
rename it over the target (atomic on one filesystem), then fsync the directory
so the rename survives a crash. The temporary name does not end in `.prom`, so
the textfile collector never picks it up.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
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
