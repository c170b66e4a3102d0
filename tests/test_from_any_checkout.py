"""The nspawn tests pass from a checkout anywhere, not only from where CI happens to
clone: this commit is cloned into /tmp (hidden by the container's fresh /tmp unless
bound) and into /root (hidden from the hardened exporter unit by ProtectHome=), and
the tuner's and the packaged units' container tests run from each clone.

Slow (two container runs per place, about a minute each); CI runs it (tests/run.sh
runs everything)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support import nspawn

pytestmark = [pytest.mark.real, pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
NSPAWN_TESTS = ("tests/tune/test_apply_nspawn.py", "tests/exporter/test_units_nspawn.py")
RUN_TIMEOUT = 600


def _head() -> str:
    p = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        pytest.skip(f"not a git checkout: {p.stderr.strip()}")
    return p.stdout.strip()


def _clone(base: str, sha: str) -> Path:
    """This commit, cloned into a fresh directory under base (readable by the exporter's user)."""
    parent = Path(tempfile.mkdtemp(prefix="llmdoctor-clone-", dir=base))
    parent.chmod(0o755)
    dest = parent / "llmdoctor"
    for argv in (["git", "clone", "--quiet", "--no-checkout", str(REPO), str(dest)],
                 ["git", "-C", str(dest), "checkout", "--quiet", "--detach", sha]):
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"{' '.join(argv)}: {p.stderr}"
    return dest


@pytest.mark.parametrize("base", ["/tmp", "/root"])
def test_nspawn_tests_pass_from_a_clone(base):
    reason = nspawn.skip_reason() or (None if shutil.which("git") else "git is not installed")
    if reason:
        pytest.skip(reason)
    if not os.path.isdir(base):
        pytest.skip(f"{base} does not exist here")
    dest = _clone(base, _head())
    try:
        # the nested run's /tmp check is this session's (it sees the clone's leftovers too)
        env = {**os.environ, "PYTHONPATH": str(dest), "LLMDOCTOR_TESTS_ALLOW_TMP_LEFTOVERS": "1"}
        env.pop("PYTEST_ADDOPTS", None)
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *NSPAWN_TESTS],
                           cwd=dest, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        out = p.stdout[-6000:] + p.stderr[-2000:]
        assert p.returncode == 0, out
        summary = p.stdout.strip().splitlines()[-1]
        assert re.search(r"\b(\d+) passed\b", summary) and "skipped" not in summary, out
    finally:
        shutil.rmtree(dest.parent, ignore_errors=True)
