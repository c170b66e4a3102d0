"""The three views of a systemd unit compared: what its files on disk say, what systemd
loaded (`systemctl show`), and what the engine process got (`/proc/PID/environ`, or the
settings Ollama logs at start-up). Files ahead of the loaded view mean a forgotten
daemon-reload; the loaded view ahead of the process means a forgotten restart. Pure: the
systemd checks read their differences from here, and the fixes for drop-ins systemd ignores.
"""
from __future__ import annotations

from llmdoctor.judge.fixes import dropin, reload_and_restart
from llmdoctor.model import Evidence, Fix
from llmdoctor.redact import redact_text, redact_value
from llmdoctor.knowledge.systemd.names import is_engine_var

MAX_EVIDENCE = 12
ENGINE_PREFIXES = (("OLLAMA_", "ollama"), ("VLLM_", "vllm"), ("LLAMA_ARG_", "llamacpp"))


def shown_value(name: str, value: str | None) -> str:
    if value is None:
        return "(not set)"
    return redact_value(name, value)


def pair(name: str, value: str | None) -> str:
    return f"{name}={shown_value(name, value)}" if value is not None else f"no {name}"


def show_source(u) -> str:
    return f"systemctl show {u.unit}"


def setting_evidence(s) -> Evidence:
    return Evidence(f"{s.path}:{s.lineno}", redact_text(s.text.strip()))


def dropin_snippet(unit: str, env: dict[str, str]) -> str:
    return dropin(unit, {name: shown_value(name, value) for name, value in env.items()})


def unit_remedy(unit: str, env: dict[str, str]):
    """The unit's variables in llmdoctor's drop-in (a secret's value kept, never printed), opened
    with `systemctl edit`."""
    from llmdoctor.judge import fixes

    return fixes.env("systemd", unit=unit, restart="edit+reload", **{n: shown_value(n, v) for n, v in env.items()})


def file_vs_loaded(u) -> list[tuple[str, str | None, str | None]]:
    """(var, value in the files, value systemd loaded) for every variable that differs."""
    if u.fragment_path is None or u.loaded_env is None:
        return []
    names = set(u.file_env) | (set() if u.loaded_env_plain else set(u.loaded_env))
    if u.loaded_env_plain:
        names &= set(u.loaded_env)  # a hand-made list may be partial
    out = []
    for name in sorted(names):
        if name in u.file_env_incomplete:
            continue
        want, have = u.file_env.get(name), u.loaded_env.get(name)
        if want != have:
            out.append((name, want, have))
    return out


def loaded_vs_process(u) -> list[tuple[str, str | None, str | None]]:
    """(var, value systemd would give now, value the running process has) where they differ.

    Only engine variables: a wrapper such as `bash -c 'source venv/bin/activate && exec vllm
    serve'` legitimately changes PATH and friends before the engine starts.
    """
    if u.loaded_env is None or u.process_env is None:
        return []
    expected = dict(u.loaded_env)
    expected.update(u.environment_file_env)  # EnvironmentFile= overrides Environment=
    expected = {k: v for k, v in expected.items() if is_engine_var(k)}
    out = []
    for name in sorted(expected):
        have = u.process_env.get(name)
        if have != expected[name]:
            out.append((name, expected[name], have))
    if not u.loaded_env_plain:
        for name in sorted(u.process_env):
            if is_engine_var(name) and name not in expected:
                out.append((name, None, u.process_env[name]))
    return out


# Ollama settings whose server-config spelling can be compared with the unit's value
# without knowing Go's formatting (numbers, and the cache type string).
LOGGED_NUMBERS = ("OLLAMA_NUM_PARALLEL", "OLLAMA_MAX_QUEUE", "OLLAMA_MAX_LOADED_MODELS", "OLLAMA_CONTEXT_LENGTH")


LOGGED_STRINGS = ("OLLAMA_KV_CACHE_TYPE",)


def loaded_vs_logged(u, server_config: dict[str, str] | None) -> list[tuple[str, str, str]]:
    """(var, value systemd would give now, value in Ollama's last `server config` line) that differ.

    The start-up line is Ollama's own account of what it runs with; used
    when /proc/PID/environ cannot be read. Values Ollama cannot parse are left to the
    Ollama checks.
    """
    if u.engine != "ollama" or u.loaded_env is None or u.loaded_env_plain or not server_config:
        return []
    expected = dict(u.loaded_env)
    expected.update(u.environment_file_env)
    out = []
    for name in LOGGED_NUMBERS + LOGGED_STRINGS:
        if name not in expected or name not in server_config:
            continue
        want, have = expected[name].strip().strip("\"'"), server_config[name].strip()
        if name in LOGGED_NUMBERS:
            if not (want.isdigit() and have.isdigit()) or int(want) == int(have):
                continue
        elif want == have:
            continue
        out.append((name, want, have))
    return out


def logged_before_start(logged_at, active_since: str | None) -> bool:
    """True when the server config line is older than the running process (an earlier start)."""
    import re
    from datetime import datetime, timedelta, timezone

    from llmdoctor.judge.thresholds import SYSTEMD_LOGGED_BEFORE_START_S

    if logged_at is None or not active_since or getattr(logged_at, "tzinfo", None) is None:
        return False
    m = re.search(r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC\b", active_since)
    if not m:
        return False
    started = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}").replace(tzinfo=timezone.utc)
    return logged_at < started - timedelta(seconds=SYSTEMD_LOGGED_BEFORE_START_S)


def engines_for(name: str) -> set[str] | None:
    for prefix, engine in ENGINE_PREFIXES:
        if name.startswith(prefix):
            return {engine}
    return None  # device filters apply to every engine


def client_only(name: str, value: str) -> bool:
    """OLLAMA_HOST pointing at another machine is how the `ollama` CLI finds a server."""
    if name != "OLLAMA_HOST":
        return False
    host = value.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
    return host not in ("", "0.0.0.0", "::", "127.0.0.1", "localhost")


def service_env(u) -> dict[str, str]:
    """The environment the service has (process), else would get (loaded/files)."""
    if u.process_env is not None:
        return u.process_env
    base = dict(u.loaded_env) if u.loaded_env is not None and not u.loaded_env_plain else dict(u.file_env)
    base.update(u.environment_file_env)
    return base


def ignored_dropin_fix(kind: str, path: str, unit: str, lines: list[str]) -> Fix:
    name = path.rsplit("/", 1)[-1]
    if kind == "outside-section":
        return Fix(f"Add a [Service] line at the top of {path}; without it systemd ignores every assignment.",
                   commands=(f"sed -i '1i [Service]' {path}", reload_and_restart(unit)),
                   config="[Service]\n" + "\n".join(lines) + "\n")
    if kind == "wrong-section":
        return Fix(f"Move these lines under [Service] in {path}.", commands=(reload_and_restart(unit),),
                   config="[Service]\n" + "\n".join(lines) + "\n")
    if kind == "not-conf":
        target = path[: path.index(".conf") + 5] if ".conf" in name else f"{path}.conf"
        return Fix("systemd reads only drop-ins ending in .conf; rename the file.",
                   commands=(f"mv {path} {target}", reload_and_restart(unit)))
    if kind == "wrong-dir":
        stem = name if name.endswith(".conf") else f"{name}.conf"
        target = f"/etc/systemd/system/{unit}.d/{stem}"
        return Fix(f"Move the file to /etc/systemd/system/{unit}.d/, where systemd looks for drop-ins.",
                   commands=(f"mkdir -p /etc/systemd/system/{unit}.d && mv {path} {target}", reload_and_restart(unit)))
    if kind == "masked":
        return Fix("A drop-in of the same name in a higher-priority directory hides this one; merge the settings "
                   "into that file or give this one a different name.", commands=(reload_and_restart(unit),))
    return Fix("Fix the assignment: a variable name is letters, digits and '_' (not starting with a digit); "
               "quote values with spaces as Environment=\"NAME=value with spaces\".", commands=(reload_and_restart(unit),))


IGNORED_DROPIN = {
    "outside-section": "has no [Service] header, so systemd ignores its assignments",
    "wrong-section": "sets the environment outside [Service], where systemd ignores it",
    "invalid-assignment": "has assignments systemd rejects",
    "not-conf": "does not end in .conf, so systemd never reads it",
    "wrong-dir": "is in a directory systemd never reads for this unit",
    "masked": "is hidden by a drop-in of the same name in a higher-priority directory",
}
