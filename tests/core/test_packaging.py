"""The wheel carries every package and the built-in checks, and they load from it."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "llmdoctor").rglob("__init__.py")
    }
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages"


@pytest.mark.real
def test_checks_load_from_an_installed_wheel(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    target = tmp_path / "site"
    [wheel] = list(wheels.glob("llmdoctor-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = (
        "import llmdoctor, llmdoctor.checks as c; "
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
