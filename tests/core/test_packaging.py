"""The wheel and the sdist carry every package and the built-in checks (checks/ at the top of
the repository, installed as llmdoctor.checks), and the checks load from an install."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
CHECKS = sorted(p.name for p in (ROOT / "checks").glob("*.py"))


def _packages_of_the_tree() -> set[str]:
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "llmdoctor").rglob("__init__.py")}
    return found | {"llmdoctor.checks"}


def test_every_package_of_the_tree_is_listed():
    assert SETUPTOOLS["package-dir"] == {"llmdoctor.checks": "checks"}
    assert set(SETUPTOOLS["packages"]) == _packages_of_the_tree()
    dirs = {p.parent for p in (ROOT / "llmdoctor").rglob("*.py") if "__pycache__" not in p.parts}
    missing = sorted(str(d.relative_to(ROOT)) for d in dirs if not (d / "__init__.py").is_file())
    assert missing == [], "a directory of modules without __init__.py is no package"


def test_the_checks_are_at_the_top_and_none_remain_inside():
    assert "__init__.py" in CHECKS and len(CHECKS) > 40
    assert not list((ROOT / "llmdoctor" / "checks").glob("*.py"))
    assert (ROOT / "checks" / "README.md").is_file()


def _source_copy(tmp_path: Path) -> Path:
    # built from a copy: setuptools reuses a checkout's build/ directory, whose stale modules
    # (a check file since renamed) would otherwise end up in the wheel
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", ".cache", "build", "*.egg-info",
                                                                "tests", "__pycache__", "bench"))
    return source


@pytest.mark.real
def test_sdist_and_wheel_both_carry_the_checks(tmp_path):
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(_source_copy(tmp_path))],
                   check=True, capture_output=True, timeout=300)
    [wheel] = out.glob("llmdoctor-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    in_wheel = {n.rsplit("/", 1)[-1] for n in names if n.startswith("llmdoctor/checks/")}
    assert set(CHECKS) | {"README.md"} <= in_wheel
    assert not [n for n in names if n.startswith("checks/")]  # never a bare top-level package
    # the sdist, as `python -m build --sdist` would make it (setuptools' own backend hook)
    code = ("import sys, setuptools.build_meta as b; sys.stdout.write(b.build_sdist(sys.argv[1]))")
    src = tmp_path / "src"
    name = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, check=True, capture_output=True,
                          text=True, timeout=300).stdout.strip().splitlines()[-1]
    with tarfile.open(out / name) as sdist:
        names = sdist.getnames()
    in_sdist = {n.rsplit("/", 1)[-1] for n in names if "/checks/" in n}
    assert set(CHECKS) | {"README.md"} <= in_sdist


@pytest.mark.real
def test_checks_load_from_an_installed_wheel_with_the_same_findings(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(_source_copy(tmp_path))],
                   check=True, capture_output=True, timeout=300)
    target = tmp_path / "site"
    [wheel] = list(wheels.glob("llmdoctor-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    evidence = ROOT / "tests" / "fixtures" / "evidence" / "ollama-one-slot"
    code = (
        "import json, llmdoctor, llmdoctor.plugins as c; "
        "specs, errors = c.load_checks(site_dir=None); "
        "assert not errors, errors; "
        "print(json.dumps([len(specs), str(c.builtin_checks_dir()), llmdoctor.__file__]))"
    )
    # Run from elsewhere with only the installed copy (plus the venv's dependencies) importable.
    env = dict(os.environ, PYTHONPATH=str(target))
    run = [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {{}}"]
    out = subprocess.run(run[:-1] + [run[-1].format(code)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    count, checks_dir, module = json.loads(out.stdout)
    assert count >= 50
    assert checks_dir.startswith(str(target)) and module.startswith(str(target))

    def findings(command_prefix, cwd):
        p = subprocess.run(command_prefix + ["diagnose", "--evidence", str(evidence), "--format", "json"], cwd=cwd,
                           env=env, capture_output=True, text=True, timeout=120)
        doc = json.loads(p.stdout)
        return sorted((f["check"], f["cause"]) for t in doc["targets"] for f in t["findings"])

    main = f"import sys; sys.path.insert(0, {str(target)!r}); from llmdoctor.cli import main; sys.argv[0] = 'llmdoctor'; main()"
    installed = findings([sys.executable, "-I", "-c", main], tmp_path)
    checkout = findings([sys.executable, "-m", "llmdoctor"], ROOT)
    assert installed == checkout and installed


def test_the_import_name_is_llmdoctor_checks_in_a_checkout_too():
    import importlib

    module = importlib.import_module("llmdoctor.checks.swap")
    assert Path(module.__file__).resolve() == ROOT / "checks" / "swap.py"
