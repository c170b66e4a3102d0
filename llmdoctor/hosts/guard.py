"""The one way an evidence directory is read: regular files inside it only, size-capped, and
directory walks bounded in depth and count.

An evidence directory comes from someone else (a ticket, an archive): a name in it may be a
link to /etc/shadow, a FIFO that never answers, a link to /dev/zero, or a tree 2000 levels
deep. Each of those is refused with `NotInEvidence` saying why, before anything is opened
that could block or read without end.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from llmdoctor.hosts.base import NotInEvidence

MAX_DEPTH = 16  # levels below the evidence directory a walk descends (files/etc/systemd/system/x.d/y.conf is 6)
MAX_ENTRIES = 10_000  # names a walk looks at
META_LIMIT = 1024 * 1024  # meta.json and other small JSON files


class Walk:
    """A bounded walk's result: the files found, and what was left out and why."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.skipped: list[str] = []


def inside(root: Path, name: str) -> Path:
    """The real path of `name` under `root`; NotInEvidence when it leads outside (`..`, a link out)."""
    base = root.resolve()
    try:
        p = (root / name).resolve()
    except (OSError, RuntimeError) as e:  # a link loop, a name too long
        raise NotInEvidence(f"{name}: cannot be resolved ({e})") from None
    if p != base and base not in p.parents:
        what = "a link to a file outside" if os.path.islink(root / name) else "outside"
        raise NotInEvidence(f"{name}: {what} the evidence directory (not read)")
    return p


def regular_file(root: Path, name: str) -> Path:
    """`name` as a regular file inside `root`: not a FIFO, socket or device, not a link out."""
    p = inside(root, name)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise NotInEvidence(f"{name} not in evidence") from None
    except OSError as e:
        raise NotInEvidence(f"{name}: could not read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise NotInEvidence(f"{name}: {kind}, not read")
    return p


def read_bytes(root: Path, name: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular evidence file."""
    with open_bytes(root, name) as f:
        return f.read(limit)


def open_bytes(root: Path, name: str):
    """A regular evidence file open for reading in binary, for readers that stream it. Opened
    non-blocking and checked again once open, so a file swapped for a FIFO in between cannot
    hang the read."""
    p = regular_file(root, name)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        raise NotInEvidence(f"{name}: could not read ({e.strerror or e})") from None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        raise NotInEvidence(f"{name}: not a regular file, not read")
    return f


def is_regular(root: Path, name: str) -> bool:
    try:
        regular_file(root, name)
        return True
    except NotInEvidence:
        return False


def walk(root: Path, sub: str = "", max_depth: int = MAX_DEPTH, max_entries: int = MAX_ENTRIES) -> Walk:
    """Regular files under root/sub, as names relative to root, without following links to
    directories, at most `max_depth` levels down and `max_entries` names looked at."""
    out = Walk()
    seen = 0
    start = inside(root, sub) if sub else root.resolve()
    stack: list[tuple[Path, str, int]] = [(start, sub.strip("/"), 0)]
    while stack:
        path, rel, depth = stack.pop()
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as e:
            out.skipped.append(f"{rel or '.'}: could not read ({e.strerror or e})")
            continue
        for entry in entries:
            seen += 1
            if seen > max_entries:
                out.skipped.append(f"more than {max_entries} names in the evidence directory: the rest not read")
                return out
            name = f"{rel}/{entry.name}" if rel else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 >= max_depth:
                        out.skipped.append(f"could not read {name}/: deeper than {max_depth} levels below the evidence directory")
                    else:
                        stack.append((Path(entry.path), name, depth + 1))
                    continue
                regular_file(root, name)
                out.files.append(name)
            except NotInEvidence as e:
                out.skipped.append(f"could not read {e}")
            except OSError as e:
                out.skipped.append(f"could not read {name}: {e.strerror or e}")
    out.files.sort()
    return out
