"""A target's effective settings as one flat, comparable value: what `llmdoctor history`
diffs between two exporter runs to say what changed.

Pure: facts in, {key: (shown value, where)} out. A value is shown only where the keep-list
keeps it (a setting's name from settings_names.py, or a plainly harmless value: a number, a
size, a path); any other value is kept as a keyed digest (HMAC-SHA256 under the history's
own random key), so a changed secret is still a change, and the stored history and the
exported metric never hold the secret nor a hash anyone could test guesses against.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import Any

from llmdoctor.redact_struct import plain
from llmdoctor.settings_names import is_setting_flag, is_setting_variable

# names a secret is stored under, whatever the keep-list says of the rest of the name
_SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|credential|auth|cookie|private")
CMDLINE_FACTS = ("llamacpp_cmdline", "vllm_cmdline", "sglang_cmdline")


def shown(name: str, value: str, digest_key: bytes, setting: bool) -> str:
    """The value as history keeps it: itself where the keep-list keeps it (and redaction finds
    nothing in it: `OLLAMA_HOST=https://user:pw@...` is a setting's name with a password in its
    value), else a digest."""
    if not _SECRET_NAME.search(name) and (setting or plain(value)):
        from llmdoctor.redact import redact_text

        if redact_text(value) == value:
            return value
    return "digest:" + hmac.new(digest_key, value.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:12]


def _flags(argv: tuple[str, ...]) -> list[tuple[str, str]]:
    """(--flag, value) pairs of a command line; a flag without a value gets "" (a switch)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(argv):
        arg = str(argv[i])
        i += 1
        if not arg.startswith("-") or arg in ("-", "--"):
            continue
        name, eq, value = arg.partition("=")
        if not eq and i < len(argv) and not str(argv[i]).startswith("-"):
            value = str(argv[i])
            i += 1
        out.append((name, value))
    return out


def _where(origin: str) -> str:
    """`/etc/systemd/system/ollama.service.d/override.conf` -> `override.conf`; others as given."""
    origin = str(origin or "")
    tail = origin.rsplit(" ", 1)[-1]
    return tail.rsplit("/", 1)[-1] if "/" in tail else origin


def _rows(value: Any) -> tuple[Any, ...]:
    """A fact that is a sequence, as a tuple; anything else (absent, unavailable) as ()."""
    return tuple(value) if isinstance(value, (tuple, list)) else ()


def settings_snapshot(facts: Mapping[str, Any], digest_key: bytes) -> dict[str, tuple[str, str]]:
    """{key: (value, where)}: unit and process environment, running command lines' flags,
    engine versions, loaded models. Keys: `NAME` (an environment variable), `--flag@kind`,
    `version@kind`, `models@ollama`, `dropins@UNIT` (the drop-in files' names), `started@UNIT`
    (when systemd last started it: history.py tells a restart from it), `image@container`."""
    snap: dict[str, tuple[str, str]] = {}
    unit_env: dict[str, tuple[str, str]] = {}  # name -> (value, the unit file that sets it)
    for unit in _rows(facts.get("systemd_units")):
        env = getattr(unit, "file_env", None)
        origin = getattr(unit, "file_env_origin", None) or {}
        if isinstance(env, Mapping):
            for name, value in env.items():
                unit_env.setdefault(str(name), (str(value), _where(origin.get(name, getattr(unit, "unit", "")))))
    config = facts.get("ollama_config")
    values = getattr(config, "values", None)
    if isinstance(values, Mapping):
        origins = getattr(config, "origins", {}) or {}
        for name, value in values.items():
            origin = str(origins.get(name, ""))
            if origin.startswith("default"):
                continue  # the version's default: not something anyone changed
            where = _where(origin)
            if name in unit_env and unit_env[name][0] == str(value):
                where = unit_env[name][1]  # the file a person edits, not "process environment"
            snap[str(name)] = (shown(name, str(value), digest_key, is_setting_variable(name)), where)
    container = facts.get("container")
    env = getattr(container, "env", None)
    if isinstance(env, Mapping):  # a container's or pod's environment, where no unit sets one
        for name, value in env.items():
            unit_env.setdefault(str(name), (str(value), "container"))
    image = getattr(container, "image", None)
    if isinstance(image, str) and image:
        snap["image@container"] = (shown("image", image, digest_key, True), "container")
    for unit in _rows(facts.get("systemd_units")):
        name = str(getattr(unit, "unit", "") or "")
        if not name:
            continue
        dropins = getattr(unit, "dropin_paths", None) or ()
        if isinstance(dropins, (tuple, list)) and dropins:
            snap[f"dropins@{name}"] = (",".join(sorted(_where(str(d)) for d in dropins))[:512], "systemd")
        since = getattr(unit, "active_since", None)
        if since:
            snap[f"started@{name}"] = (str(since)[:64], "systemd")
    for name, (value, where) in unit_env.items():
        if name not in snap and name != "PATH":
            snap[name] = (shown(name, value, digest_key, is_setting_variable(name)), where)
    argvs = [(fact.split("_", 1)[0], getattr(facts.get(fact), "argv", None)) for fact in CMDLINE_FACTS]
    if not any(argv for _k, argv in argvs):
        argvs.append(("container", getattr(container, "argv", None)))  # the container's process
    for kind, argv in argvs:
        if not isinstance(argv, (tuple, list)) or not argv:
            continue
        for flag, value in _flags(tuple(argv)):
            snap[f"{flag}@{kind}"] = (shown(flag, value, digest_key, is_setting_flag(flag)), "command line")
    for engine in _rows(facts.get("engines")):
        version = getattr(engine, "version", None)
        if version:
            snap[f"version@{str(getattr(engine, 'kind', '?')).lower()}"] = (str(version)[:64], "engine")
    if facts.get("ollama_version") and "version@ollama" not in snap:
        snap["version@ollama"] = (str(facts["ollama_version"])[:64], "engine")
    models = sorted({str(getattr(m, "name", "")) for m in _rows(facts.get("ollama_ps")) if getattr(m, "name", "")})
    if models:
        snap["models@ollama"] = (",".join(models)[:512], "ollama ps")
    return snap
