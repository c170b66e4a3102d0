"""Site configuration: thresholds overridden per site in a TOML file
(`/etc/llmdoctor/config.toml`, or `llmdoctor --config FILE`, or $LLMDOCTOR_CONFIG).

    [thresholds]
    LLAMACPP_PREFILL_SHARE = 0.6      # any name of judge/thresholds.py or judge/probe/thresholds.py
    OLLAMA_SLOW_LOAD_S = 10

The names are read from the threshold modules themselves, so a threshold added there can be
overridden without an edit here. An unknown key, or a value of another type than the
default's, is an error that names the file and the nearest known names: a typo must not
silently leave the default in force. The overrides are set on the modules before any check is
imported (the CLI's root callback), so `from ...thresholds import NAME` in a check sees them;
`explain` shows each override beside the default.
"""
from __future__ import annotations

import difflib
import os
from importlib import import_module
from typing import Any

DEFAULT_PATH = "/etc/llmdoctor/config.toml"
ENV = "LLMDOCTOR_CONFIG"
THRESHOLD_MODULES = ("llmdoctor.judge.thresholds", "llmdoctor.judge.probe.thresholds")
SECTIONS = ("thresholds",)

# name -> (value in force, the module's default, the file that set it)
OVERRIDES: dict[str, tuple[Any, Any, str]] = {}


class ConfigError(ValueError):
    pass


def threshold_names() -> dict[str, Any]:
    """Every threshold: NAME -> its module (upper-case module constants of numbers or strings)."""
    out: dict[str, Any] = {}
    for name in THRESHOLD_MODULES:
        try:
            module = import_module(name)
        except ImportError:  # (a module merged into the other: its names are there)
            continue
        for attr, value in vars(module).items():
            if attr.isupper() and not attr.startswith("_") and isinstance(value, (int, float, str)):
                out.setdefault(attr, module)
    return out


def read(path: str) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"config {path}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"config {path}: not valid TOML: {e}") from None
    return doc


def _check_value(path: str, name: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool) or isinstance(value, bool):
        ok = isinstance(value, bool) and isinstance(default, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float))
        value = float(value) if ok else value
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise ConfigError(f"config {path}: thresholds.{name} = {value!r}: expected a {type(default).__name__} "
                          f"like the default {default!r}")
    if isinstance(value, (int, float)) and value < 0:
        raise ConfigError(f"config {path}: thresholds.{name} = {value!r}: must not be negative")
    return value


def overrides_in(doc: dict[str, Any], path: str) -> dict[str, Any]:
    """The [thresholds] table checked against the modules: NAME -> value. Raises ConfigError."""
    unknown = [k for k in doc if k not in SECTIONS]
    if unknown:
        raise ConfigError(f"config {path}: unknown key {unknown[0]!r} (known: {', '.join(SECTIONS)})")
    table = doc.get("thresholds", {})
    if not isinstance(table, dict):
        raise ConfigError(f"config {path}: thresholds must be a table ([thresholds])")
    known = threshold_names()
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = str(key).upper()
        if name not in known:
            near = difflib.get_close_matches(name, known, n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else " (`llmdoctor explain --thresholds` lists them)"
            raise ConfigError(f"config {path}: unknown threshold {key!r}{hint}")
        out[name] = _check_value(path, name, value, getattr(known[name], name))
    return out


def apply(path: str | None = None) -> dict[str, Any]:
    """Read the site's file (`path`, else $LLMDOCTOR_CONFIG, else DEFAULT_PATH if it exists) and
    set its thresholds on the modules. A file named explicitly must exist."""
    explicit = path or os.environ.get(ENV) or None
    path = explicit or DEFAULT_PATH
    if not explicit and not os.path.exists(path):
        return {}
    values = overrides_in(read(path), path)
    known = threshold_names()
    for name, value in values.items():
        module = known[name]
        default = OVERRIDES[name][1] if name in OVERRIDES else getattr(module, name)
        setattr(module, name, value)
        OVERRIDES[name] = (value, default, path)
    return values


def reset() -> None:
    """Put every default back (tests; a long-lived process re-reading its file)."""
    known = threshold_names()
    for name, (_value, default, _path) in OVERRIDES.items():
        setattr(known[name], name, default)
    OVERRIDES.clear()
