"""tests/run.sh, the README's test command: as root it runs as it is (no sudo needed,
root containers have none); as a user it runs itself again under sudo.

The script is copied into a directory of the test's own and run with
LLMDOCTOR_TESTS_DRY_RUN=1 (it stops where it would start installing), with a stand-in
`sudo` first on PATH that says how it was called."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

RUN_SH = Path(__file__).resolve().parents[1] / "run.sh"
FAKE_SUDO = '#!/bin/sh\necho "sudo called with: $*"\nexit 0\n'


@pytest.fixture
def checkout():
    """A copy of tests/run.sh in a checkout-shaped directory everybody can read."""
    base = Path(tempfile.mkdtemp(prefix="llmdoctor-runsh-"))
    try:
        base.chmod(0o755)
        (base / "tests").mkdir()
        shutil.copy(RUN_SH, base / "tests" / "run.sh")
        bin_dir = base / "bin"
        bin_dir.mkdir()
        (bin_dir / "sudo").write_text(FAKE_SUDO)
        (bin_dir / "sudo").chmod(0o755)
        for p in base.rglob("*"):
            p.chmod(p.stat().st_mode | 0o755 if p.is_dir() else p.stat().st_mode | 0o444)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run(checkout: Path, as_nobody: bool, **env: str) -> subprocess.CompletedProcess:
    environ = {"PATH": f"{checkout / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin", "LLMDOCTOR_TESTS_DRY_RUN": "1",
               "HOME": "/", **env}
    argv = ["bash", str(checkout / "tests" / "run.sh"), "-k", "x"]
    if as_nobody:
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=environ, cwd="/")


def test_as_root_it_runs_without_sudo(checkout):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    p = _run(checkout, as_nobody=False)
    assert p.returncode == 0, p.stderr
    assert "sudo called" not in p.stdout
    assert p.stdout.strip() == f"would run as root in {checkout}: pytest -k x"


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed")
def test_as_a_user_it_runs_itself_again_under_sudo(checkout):
    if os.geteuid() != 0:
        pytest.skip("needs root to become another user")
    p = _run(checkout, as_nobody=True)
    assert p.returncode == 0, p.stderr
    assert "running again with sudo" in p.stderr
    said = p.stdout.strip()
    assert said.startswith("sudo called with: PYTHON=") and said.endswith(f"bash {checkout}/tests/run.sh -k x")
    # opting out runs as the user (the root tests then skip)
    p = _run(checkout, as_nobody=True, LLMDOCTOR_TESTS_NO_SUDO="1")
    assert p.returncode == 0, p.stderr
    assert "sudo called" not in p.stdout and "would run as nobody" in p.stdout
