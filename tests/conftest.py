"""Session-wide guards for the whole suite.

Tests leave nothing behind in the temporary directory: every `llmdoctor-*` entry that
appears there during the session must be gone when it ends (a container's work
directory, a Prometheus data directory, an evidence directory made at import time).
On a machine shared with parallel test runs (other checkouts) their entries come and
go too: an entry named with the pid of another live process, one that vanishes within
a few seconds, or one another process is using (its cwd, or a file it holds open) is
theirs, not a leak of ours. LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS=1 turns the check off
(nested runs inside a test, whose leftovers the outer session's check sees anyway).
"""
from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import pytest

_PREFIX = "llmdoctor-"


def _entries() -> set[str]:
    try:
        return {p.name for p in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*")}
    except OSError:
        return set()


def _belongs_to_another_run(name: str) -> bool:
    """An entry named after another live process (nspawn work dirs carry their pid)."""
    for pid in map(int, re.findall(r"-(\d{2,7})(?=-|$)", name)):
        if pid != os.getpid() and Path(f"/proc/{pid}").exists():
            return True
    return False


def _in_use_by_others(names: set[str]) -> set[str]:
    """Those entries some other process has as its cwd or holds a file of open."""
    base = os.path.realpath(tempfile.gettempdir())
    paths = {os.path.join(base, n): n for n in names}
    used: set[str] = set()
    me = os.getpid()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == me:
            continue
        try:
            links = [os.readlink(f"/proc/{pid}/cwd")]
            links += [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        for link in links:
            for path, name in paths.items():
                if link == path or link.startswith(path + "/"):
                    used.add(name)
    return used


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config._llmdoctor_tmp_before = _entries()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = getattr(session.config, "_llmdoctor_tmp_before", None)
    if before is None or os.environ.get("LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS"):
        return
    import sys

    if "llmdoctor.hosts.evidence" in sys.modules:  # what the interpreter's exit would remove
        sys.modules["llmdoctor.hosts.evidence"].remove_copies()
    left = {n for n in _entries() - before if not _belongs_to_another_run(n)}
    deadline = time.monotonic() + 5.0
    while left and time.monotonic() < deadline:  # a parallel run's entries are short-lived
        time.sleep(0.5)
        left &= _entries()
    left = sorted(left - _in_use_by_others(left)) if left else []
    if left:
        where = tempfile.gettempdir()
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"tests left {len(left)} entries in {where}: {', '.join(left[:10])}"
        if reporter is not None:
            reporter.write_line(f"ERROR: {message}", red=True)
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
