"""Replace a file so that no reader ever sees it half written: a temporary file in the
same directory, fsync, rename over the target (atomic on one filesystem), fsync of the
directory so the rename survives a crash. On failure the temporary file is removed; a
run killed mid-write leaves one, which `remove_temporaries` clears at the next start.

Used for the exporter's textfile, the tuner's drop-in and the log positions. The
temporary name starts with a dot and ends in `.tmp`, so neither node_exporter (`*.prom`)
nor systemd (`*.conf`) ever reads it.
"""
from __future__ import annotations

import os
from pathlib import Path

# Test-only fault injection: LLMDOCTOR_TEST_CRASH_AT=N kills this process with SIGKILL at
# the N-th crash point (counted from 1), so a test can stop a run at every write step.
# Read once at import; unset (the normal case) it costs one comparison per point.
_CRASH_AT = int(os.environ.get("LLMDOCTOR_TEST_CRASH_AT", "0")) if \
    os.environ.get("LLMDOCTOR_TEST_CRASH_AT", "").isdigit() else 0
_crash_count = 0


def crash_point() -> None:
    """A place where a real crash could stop a write; see LLMDOCTOR_TEST_CRASH_AT."""
    global _crash_count
    if _CRASH_AT:
        _crash_count += 1
        if _crash_count == _CRASH_AT:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)


def temporary_prefix(name: str) -> str:
    return f".{name}."


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    import tempfile  # (here: every run imports this module, few write a file)

    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(target.name), suffix=".tmp", dir=directory)
    try:
        crash_point()
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            crash_point()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        crash_point()
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    crash_point()
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


def remove_temporaries(directory: str | os.PathLike[str], name: str) -> list[Path]:
    """Remove the temporary files write_atomic(directory/name) left when a run was killed
    mid-write (only the caller may be writing that file: it holds the lock). Returns them."""
    removed = []
    try:
        entries = list(Path(directory).iterdir())
    except OSError:
        return removed
    prefix = temporary_prefix(name)
    for p in entries:
        if p.name.startswith(prefix) and p.name.endswith(".tmp") and not p.is_dir():
            try:
                p.unlink()
                removed.append(p)
            except FileNotFoundError:
                pass
    return removed
