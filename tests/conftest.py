"""Session-wide guards for the whole suite.

Tests leave nothing behind in the temporary directory: every `llmdoctor-*` entry that
appears there during the session must be gone when it ends (a container's work
directory, a Prometheus data directory, an evidence directory made at import time).
Entries named with the process id of another live process belong to a parallel test
run (another checkout) and are not ours to judge.
"""
from __future__ import annotations

import os
import re
import tempfile
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


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config._llmdoctor_tmp_before = _entries()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = getattr(session.config, "_llmdoctor_tmp_before", None)
    if before is None or os.environ.get("LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS"):
        return
    left = sorted(n for n in _entries() - before if not _belongs_to_another_run(n))
    if left:
        where = tempfile.gettempdir()
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"tests left {len(left)} entries in {where}: {', '.join(left[:10])}"
        if reporter is not None:
            reporter.write_line(f"ERROR: {message}", red=True)
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
