"""Session-wide guard for the whole suite: tests leave nothing behind in /tmp.

The session gets a temporary directory of its own (TMPDIR, for this process and every
command it starts): whatever the tests and the llmdoctor commands they run make with
`tempfile` lands there, so what is left in it when the session ends was left by this
run and no other (the machine may be shared with parallel runs from other checkouts,
whose entries in /tmp come and go). Any `llmdoctor-*` entry left there fails the run;
the directory itself is then removed. Besides, a new `llmdoctor-*` entry in /tmp itself
(made by code that ignores TMPDIR) that is still there at the end, not named after
another live process and not in use by one, is reported too.

LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS=1 turns the check off (a nested run inside a test:
its leftovers land in the outer session's directory, whose check sees them).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_PREFIX = "llmdoctor-"
_SYSTEM_TMP = "/tmp"


def _entries(directory: str) -> set[str]:
    try:
        return {p.name for p in Path(directory).glob(f"{_PREFIX}*")}
    except OSError:
        return set()


def _belongs_to_another_run(name: str) -> bool:
    """An entry named after another live process (nspawn work dirs carry their pid)."""
    for pid in map(int, re.findall(r"-(\d{2,7})(?=-|$)", name)):
        if pid != os.getpid() and Path(f"/proc/{pid}").exists():
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS") or hasattr(config, "workerinput"):
        return
    own = tempfile.mkdtemp(prefix="lldtests-", dir=_SYSTEM_TMP)
    os.chmod(own, 0o755)  # the exporter's user in a container reads test files under it
    config._llmdoctor_tmp = (own, os.environ.get("TMPDIR"), _entries(_SYSTEM_TMP))  # type: ignore[attr-defined]
    os.environ["TMPDIR"] = own
    tempfile.tempdir = own
    os.environ["LLMDOCTOR_STATE_HOME"] = os.path.join(own, "state")  # the probe's run records stay in the session


def pytest_unconfigure(config: pytest.Config) -> None:
    state = getattr(config, "_llmdoctor_tmp", None)
    if state is None:
        return
    own, previous, before = state
    if "llmdoctor.scratch" in sys.modules:  # what the interpreter's exit would remove
        sys.modules["llmdoctor.scratch"].remove_all()
    left = sorted(_entries(own))
    stray = sorted(n for n in _entries(_SYSTEM_TMP) - before if not _belongs_to_another_run(n)
                   and not _in_use_by_others(os.path.join(_SYSTEM_TMP, n)))
    shutil.rmtree(own, ignore_errors=True)
    tempfile.tempdir = None
    if previous is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = previous
    problems = []
    if left:
        problems.append(f"tests left {len(left)} temporary entries: {', '.join(left[:10])}")
    if stray:
        problems.append(f"note: {len(stray)} new llmdoctor-* entries in {_SYSTEM_TMP} during the run (a parallel "
                        f"run's, or made without TMPDIR; not counted as ours): {', '.join(stray[:5])}")
    if problems:
        for p in problems:
            print(p if p.startswith("note:") else f"ERROR: {p}", file=sys.stderr)
        if left:  # certainly ours: fail the run
            config._llmdoctor_failed_tmp = True  # type: ignore[attr-defined]


def _in_use_by_others(path: str) -> bool:
    """Whether another process has path as its cwd or holds a file under it open."""
    me = os.getpid()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == me:
            continue
        try:
            links = [os.readlink(f"/proc/{pid}/cwd")]
            links += [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        if any(link == path or link.startswith(path + "/") for link in links):
            return True
    return False


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Check the session's own directory before pytest reports its exit status."""
    config = session.config
    pytest_unconfigure(config)
    config._llmdoctor_tmp = None  # type: ignore[attr-defined]
    if getattr(config, "_llmdoctor_failed_tmp", False) and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
