"""Finding the checks. One loader serves three sources: the built-in checks (the `llmdoctor.checks` package,
one module per cause), extra directories (`--checks-dir`,
`/etc/llmdoctor/checks.d`), and the `llmdoctor.checks` entry-point group (each entry
point names a module or a check function).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Iterable

from llmdoctor.plugins.check import MARK, CheckSpec

SITE_CHECKS_DIR = "/etc/llmdoctor/checks.d"
ENTRY_POINT_GROUP = "llmdoctor.checks"


def builtin_checks_dir() -> Path:
    """The directory of the built-in checks: `checks/` at the top of a checkout, installed as
    the package `llmdoctor.checks` (llmdoctor/checks/ in a wheel or sdist install)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "checks"
    # (the package's own file, not the directory: a checkout from before the move keeps an
    # llmdoctor/checks/__pycache__ that would hide the real checks)
    return installed if (installed / "__init__.py").is_file() else package.parent / "checks"


def _specs_in(module: Any, origin: str) -> list[CheckSpec]:
    found = []
    for value in vars(module).values():
        spec = getattr(value, MARK, None)
        if isinstance(spec, CheckSpec) and spec.func is value:
            found.append(CheckSpec(**{**spec.__dict__, "origin": origin}))
    return found


def _module_name(path: Path, origin: str) -> str:
    return f"llmdoctor_checks_{origin.replace('-', '_')}_{path.stem}"


def _exec_file(path: Path, origin: str) -> Any:
    name = _module_name(path, origin)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_module(path: Path, origin: str) -> Any:
    """The check module at `path`, executed once (a deferred check's first call)."""
    return sys.modules.get(_module_name(path, origin)) or _exec_file(path, origin)


def _load_file(path: Path, origin: str) -> list[CheckSpec]:
    return _specs_in(_exec_file(path, origin), origin)


def check_entry_points() -> list[tuple[str, str]]:
    """(name, "module:attr") of the llmdoctor.checks entry-point group.

    Reads the installed distributions' entry_points.txt directly: importlib.metadata
    costs ~30 ms of start-up on every run, for a group that is usually empty.
    """
    found: list[tuple[str, str]] = []
    header = f"[{ENTRY_POINT_GROUP}]"
    for base in dict.fromkeys(sys.path):
        try:  # (os.scandir: the standard library's directory holds hundreds of names, no Path for each)
            with os.scandir(base or ".") as entries:
                candidates = [e.path for e in entries if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for dist in candidates:
            try:
                with open(os.path.join(dist, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if header not in text:
                continue
            in_group = False
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("["):
                    in_group = line == header
                elif in_group and "=" in line and not line.startswith(("#", ";")):
                    name, _, target = line.partition("=")
                    found.append((name.strip(), target.strip()))
    return found


def _load_target(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    obj = importlib.import_module(module_name.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def load_checks(extra_dirs: Iterable[str | Path] = (), site_dir: str | None = SITE_CHECKS_DIR,
                entry_points: bool = True, deferred: bool = False) -> tuple[list[CheckSpec], list[str]]:
    """All checks, and one error line per source that failed to load. `deferred`: the built-in
    checks from their index, each module imported when its check first runs (a diagnosis)."""
    specs: list[CheckSpec] = []
    errors: list[str] = []
    dirs: list[tuple[Path, str]] = [(builtin_checks_dir(), "built-in")]
    if site_dir and Path(site_dir).is_dir():
        dirs.append((Path(site_dir), "site"))
    dirs += [(Path(d), "site") for d in extra_dirs]
    for directory, origin in dirs:
        if not directory.is_dir():
            errors.append(f"checks directory {directory}: not a directory")
            continue
        if deferred and origin == "built-in":
            from llmdoctor.plugins.deferred import deferred_specs

            indexed = deferred_specs(directory, lambda path: load_module(path, origin))
            if indexed is not None:
                specs.extend(indexed)
                continue
        for path in sorted(directory.glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                specs.extend(_load_file(path, origin))
            except Exception as e:
                errors.append(f"check module {path} failed to load: {type(e).__name__}: {e}")
    if entry_points:
        for name, target in check_entry_points():
            try:
                obj = _load_target(target)
                spec = getattr(obj, MARK, None)
                specs.extend([CheckSpec(**{**spec.__dict__, "origin": name})] if spec else _specs_in(obj, name))
            except Exception as e:
                errors.append(f"check entry point {name} failed to load: {type(e).__name__}: {e}")
    seen: dict[str, CheckSpec] = {}
    for s in specs:
        if s.id in seen:
            errors.append(f"check id {s.id} defined twice ({seen[s.id].origin} and {s.origin}); keeping the first")
            continue
        seen[s.id] = s
    return list(seen.values()), errors
