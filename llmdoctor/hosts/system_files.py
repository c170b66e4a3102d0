"""The files of the machine llmdoctor runs on that `tune` reads and changes (under a system
root: `/`, or a test's directory): a drop-in read, written atomically or removed, a unit
directory listed. With hosts/tune_backups.py and hosts/tune_lock.py, all of tune's file I/O
is here, in hosts/, beside every other way llmdoctor touches the outside world."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.atomic import crash_point, write_atomic


def read_text(path: Path) -> str | None:
    """The file's text; None when it does not exist (other failures raise OSError)."""
    try:
        return path.read_text()
    except FileNotFoundError:
        return None


def read_or_empty(path: Path) -> str:
    """The file's text, "" when it cannot be read (undecodable bytes replaced)."""
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def replace(path: Path, text: str) -> None:
    """Write the file whole: temporary file, fsync, rename (llmdoctor.atomic)."""
    write_atomic(path, text.encode())


def remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    crash_point()


def masked_or_missing(path: Path) -> bool:
    """No unit file there, or one masked (a link to /dev/null)."""
    return not path.exists() or (path.is_symlink() and str(path.resolve()) == "/dev/null")


def conf_names(directory: Path) -> list[str]:
    """The `*.conf` names in a drop-in directory, sorted; OSError when it cannot be listed."""
    return sorted(x.name for x in directory.iterdir() if x.name.endswith(".conf"))
