"""The wheel carries every package and the built-in checks, and they load from it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_is_in_a_package_the_wheel_finds():
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert found["include"] == ["llmdoctor*"]
    dirs = {p.parent for p in (ROOT / "llmdoctor").rglob("*.py") if "__pycache__" not in p.parts}
    missing = sorted(str(d.relative_to(ROOT)) for d in dirs if not (d / "__init__.py").is_file())
    assert missing == [], "setuptools' find skips directories without __init__.py"


@pytest.mark.real
def test_checks_load_from_an_installed_wheel(tmp_path):
    wheels = tmp_path / "wheels"
    # built from a copy of the sources: setuptools reuses a checkout's build/ directory, whose
    # stale modules (a check file since renamed) would otherwise end up in the wheel
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "tests",
                                                                "__pycache__", "bench"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, timeout=300)
    target = tmp_path / "site"
    [wheel] = list(wheels.glob("llmdoctor-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = (
        "import llmdoctor, llmdoctor.plugins as c; "
        "specs, errors = c.load_checks(site_dir=None); "
        "assert not errors, errors; "
        "print(len(specs), c.builtin_checks_dir(), llmdoctor.__file__)"
    )
    # Run from elsewhere with only the installed copy (plus the venv's dependencies) importable.
    env = dict(os.environ, PYTHONPATH=str(target))
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {code}"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    count, checks_dir, module = out.stdout.split()
    assert int(count) >= 10
    assert checks_dir.startswith(str(target)) and module.startswith(str(target))
