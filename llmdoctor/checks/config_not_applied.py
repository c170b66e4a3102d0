"""CONFIG_NOT_APPLIED: a setting the operator changed never reached the running engine.

Three views of one unit are compared (fact "systemd_units"): what the unit files on
disk say, what systemd loaded (`systemctl show`), and what the process got
(`/proc/PID/environ`). Files ahead of the loaded view mean a forgotten
daemon-reload; the loaded view ahead of the process means a forgotten restart.
Settings in shell start-up files, and drop-ins systemd ignores, never arrive at all.
"""
from __future__ import annotations

from llmdoctor.judge.fixes import dropin, edit, reload_and_restart, restart
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.redact import REDACTED, is_secret_name, redact_text
from llmdoctor.knowledge.systemd.names import canonical_path, in_search_paths, is_engine_var

MAX_EVIDENCE = 12
ENGINE_PREFIXES = (("OLLAMA_", "ollama"), ("VLLM_", "vllm"), ("LLAMA_ARG_", "llamacpp"))


def _value(name: str, value: str | None) -> str:
    if value is None:
        return "(not set)"
    return REDACTED if is_secret_name(name) and value else value


def _pair(name: str, value: str | None) -> str:
    return f"{name}={_value(name, value)}" if value is not None else f"no {name}"


def _show_source(u) -> str:
    return f"systemctl show {u.unit}"


def _setting_evidence(s) -> Evidence:
    return Evidence(f"{s.path}:{s.lineno}", redact_text(s.text.strip()))


def _dropin_snippet(unit: str, env: dict[str, str]) -> str:
    return dropin(unit, {name: _value(name, value) for name, value in env.items()})


# -- files on disk vs the loaded unit ---------------------------------------------------

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


@check(id="systemd-reload-pending", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="unit files changed on disk but systemd still runs the old version (daemon-reload forgotten)")
def reload_pending(systemd_units):
    for u in systemd_units:
        evidence: list[Evidence] = []
        src = _show_source(u)
        if u.need_daemon_reload:
            evidence.append(Evidence(src, "NeedDaemonReload=yes"))
        diffs = file_vs_loaded(u)
        for name, want, have in diffs[:MAX_EVIDENCE]:
            settings = u.file_env_settings.get(name, ())
            if want is not None and settings:
                evidence.append(_setting_evidence(settings[-1]))
            elif want is None:
                evidence.append(Evidence(u.fragment_path or u.unit, f"no {name} in the unit files on disk"))
            evidence.append(Evidence(src, f"Environment= has {_pair(name, have)}" if have is not None
                                     else f"Environment= has no {name}"))
        if u.loaded_dropin_paths is not None and u.fragment_path is not None and not u.loaded_env_plain:
            # generator and portable-service dirs are not read from disk here: leave them out
            on_disk = {canonical_path(p) for p in u.dropin_paths}
            loaded = {canonical_path(p) for p in u.loaded_dropin_paths if in_search_paths(p)}
            for p in sorted(on_disk - loaded):
                evidence.append(Evidence(p, f"drop-in on disk that systemd has not loaded (DropInPaths={' '.join(u.loaded_dropin_paths) or '(none)'})"))
            for p in sorted(loaded - on_disk):
                evidence.append(Evidence(src, f"DropInPaths still lists {p}, which is gone from disk"))
        if u.loaded_fragment_path and u.fragment_path and in_search_paths(u.loaded_fragment_path) \
                and canonical_path(u.loaded_fragment_path) != canonical_path(u.fragment_path):
            evidence.append(Evidence(src, f"FragmentPath={u.loaded_fragment_path}, but {u.fragment_path} now takes precedence"))
        if not evidence:
            continue
        names = ", ".join(n for n, _, _ in diffs[:4]) + (" ..." if len(diffs) > 4 else "")
        title = f"{u.unit}: unit files changed on disk but systemd has not reloaded them"
        if names:
            title += f" ({names} not in effect)"
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING, title=title, evidence=evidence,
            fix=Fix(f"Make systemd re-read {u.unit}, then restart it so the engine gets the new settings.",
                    commands=(reload_and_restart(u.unit),)),
        )


# -- the loaded unit vs the running process ---------------------------------------------

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
_LOGGED_NUMBERS = ("OLLAMA_NUM_PARALLEL", "OLLAMA_MAX_QUEUE", "OLLAMA_MAX_LOADED_MODELS", "OLLAMA_CONTEXT_LENGTH")
_LOGGED_STRINGS = ("OLLAMA_KV_CACHE_TYPE",)


def loaded_vs_logged(u, server_config: dict[str, str] | None) -> list[tuple[str, str, str]]:
    """(var, value systemd would give now, value in Ollama's last `server config` line) that differ.

    The start-up line is Ollama's own account of what it runs with (FACTS.md §1); used
    when /proc/PID/environ cannot be read. Values Ollama cannot parse are left to the
    Ollama checks.
    """
    if u.engine != "ollama" or u.loaded_env is None or u.loaded_env_plain or not server_config:
        return []
    expected = dict(u.loaded_env)
    expected.update(u.environment_file_env)
    out = []
    for name in _LOGGED_NUMBERS + _LOGGED_STRINGS:
        if name not in expected or name not in server_config:
            continue
        want, have = expected[name].strip().strip("\"'"), server_config[name].strip()
        if name in _LOGGED_NUMBERS:
            if not (want.isdigit() and have.isdigit()) or int(want) == int(have):
                continue
        elif want == have:
            continue
        out.append((name, want, have))
    return out


@check(id="systemd-restart-pending", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="systemd has the new environment but the running engine was started before it (restart forgotten)")
def restart_pending(systemd_units, ollama_log=None):
    for u in systemd_units:
        diffs = loaded_vs_process(u)
        if not diffs and u.process_env is None and ollama_log is not None \
                and not _logged_before_start(getattr(ollama_log, "server_config_at", None), u.active_since):
            logged = loaded_vs_logged(u, getattr(ollama_log, "server_config", None))
            if logged:
                yield _restart_from_log(u, logged, getattr(ollama_log, "server_config_example", None))
            continue
        if not diffs:
            continue
        src, proc = _show_source(u), f"/proc/{u.main_pid}/environ"
        evidence: list[Evidence] = []
        for name, want, have in diffs[:MAX_EVIDENCE]:
            origin = u.environment_file_origin.get(name)
            if want is None:
                evidence.append(Evidence(src, f"Environment= has no {name}"))
            elif origin and name in u.environment_file_env:
                evidence.append(Evidence(origin, _pair(name, want)))
            else:
                evidence.append(Evidence(src, f"Environment= has {_pair(name, want)}"))
            evidence.append(Evidence(proc, f"running process (PID {u.main_pid}) has {_pair(name, have)}"))
        if u.active_since:
            evidence.append(Evidence(src, f"ActiveEnterTimestamp={u.active_since}"))
        names = ", ".join(n for n, _, _ in diffs[:4]) + (" ..." if len(diffs) > 4 else "")
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
            title=f"{u.unit}: the running process has an old environment ({names}); it was not restarted",
            evidence=evidence,
            fix=Fix(f"Restart {u.unit} so the process starts with the environment systemd has now.",
                    commands=(restart(u.unit),)),
        )


def _logged_before_start(logged_at, active_since: str | None) -> bool:
    """True when the server config line is older than the running process (an earlier start)."""
    import re
    from datetime import datetime, timedelta, timezone

    if logged_at is None or not active_since or getattr(logged_at, "tzinfo", None) is None:
        return False
    m = re.search(r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC\b", active_since)
    if not m:
        return False
    started = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}").replace(tzinfo=timezone.utc)
    return logged_at < started - timedelta(minutes=2)


def _restart_from_log(u, diffs, example) -> Finding:
    src = _show_source(u)
    log_source = getattr(example, "source", None) or "ollama log"
    evidence: list[Evidence] = []
    for name, want, have in diffs:
        evidence.append(Evidence(src, f"Environment= has {_pair(name, want)}"))
        evidence.append(Evidence(log_source, f'last start-up logged server config env="map[... {name}:{have} ...]"'))
    if u.active_since:
        evidence.append(Evidence(src, f"ActiveEnterTimestamp={u.active_since}"))
    names = ", ".join(n for n, _, _ in diffs[:4])
    return Finding(
        cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING, confidence="medium",
        title=f"{u.unit}: Ollama last started with other settings than systemd has now ({names}); not restarted",
        evidence=evidence,
        fix=Fix(f"Restart {u.unit} so Ollama starts with the environment systemd has now.",
                commands=(restart(u.unit),)),
    )


# -- settings in files a service never reads ------------------------------------------------

def _engines_for(name: str) -> set[str] | None:
    for prefix, engine in ENGINE_PREFIXES:
        if name.startswith(prefix):
            return {engine}
    return None  # device filters apply to every engine


def _client_only(name: str, value: str) -> bool:
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


@check(id="systemd-env-outside-unit", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="engine variables set in ~/.bashrc, ~/.profile or /etc/environment, which a service never reads")
def env_outside_unit(systemd_units, shell_exports):
    for u in systemd_units:
        env = service_env(u)
        missing: dict[str, str] = {}
        evidence: list[Evidence] = []
        paths: list[str] = []
        for s in shell_exports:
            engines = _engines_for(s.name)
            if engines is not None and u.engine not in engines:
                continue
            if _client_only(s.name, s.value) or env.get(s.name) == s.value:
                continue
            missing[s.name] = s.value
            evidence.append(_setting_evidence(s))
            paths.append(s.path)
        if not missing:
            continue
        where = "running process" if u.process_env is not None else "unit"
        for name in list(missing)[:MAX_EVIDENCE]:
            source = f"/proc/{u.main_pid}/environ" if u.process_env is not None else _show_source(u)
            evidence.append(Evidence(source, f"{where} has {_pair(name, env.get(name))}"))
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
            title=f"{u.unit}: {', '.join(list(missing)[:4])} set only in {', '.join(list(dict.fromkeys(paths))[:3])}, "
                  "which a systemd service never reads",
            evidence=evidence[: 2 * MAX_EVIDENCE],
            fix=Fix(f"Put the variables in a drop-in for {u.unit} (`systemctl edit {u.unit}`), then reload and restart.",
                    commands=(edit(u.unit), reload_and_restart(u.unit)),
                    config=_dropin_snippet(u.unit, missing)),
        )


# -- drop-ins systemd ignores --------------------------------------------------------------

def _fix_for(kind: str, path: str, unit: str, lines: list[str]) -> Fix:
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


_TITLES = {
    "outside-section": "has no [Service] header, so systemd ignores its assignments",
    "wrong-section": "sets the environment outside [Service], where systemd ignores it",
    "invalid-assignment": "has assignments systemd rejects",
    "not-conf": "does not end in .conf, so systemd never reads it",
    "wrong-dir": "is in a directory systemd never reads for this unit",
    "masked": "is hidden by a drop-in of the same name in a higher-priority directory",
}


@check(id="systemd-dropin-ignored", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="drop-ins systemd ignores: no [Service] header, wrong directory, no .conf suffix, bad assignments")
def dropin_ignored(systemd_units):
    for u in systemd_units:
        groups: dict[tuple[str, str], list] = {}
        for p in u.problems:
            if p.kind in _TITLES:
                groups.setdefault((p.kind, p.path), []).append(p)
        for (kind, path), probs in groups.items():
            evidence = []
            for p in probs[:MAX_EVIDENCE]:
                where = f"{p.path}:{p.lineno}" if p.lineno else p.path
                evidence.append(Evidence(where, redact_text(p.text.strip()) if p.text else p.detail))
                if kind == "invalid-assignment" and p.text:
                    evidence.append(Evidence(where, redact_text(p.detail)))
            if kind != "invalid-assignment":
                evidence.append(Evidence(path, probs[0].detail))
            lines = [redact_text(p.text.strip()) for p in probs if p.text]
            yield Finding(
                cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
                title=f"{u.unit}: {path} {_TITLES[kind]}",
                evidence=evidence, fix=_fix_for(kind, path, u.unit, lines),
            )


# -- two drop-ins, one variable ----------------------------------------------------------

@check(id="systemd-env-conflict", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="two unit files set the same engine variable differently; says which one wins")
def env_conflict(systemd_units):
    for u in systemd_units:
        for name, settings in sorted(u.file_env_settings.items()):
            if not is_engine_var(name) or name not in u.file_env:
                continue
            if len({s.path for s in settings}) < 2 or len({s.value for s in settings}) < 2:
                continue
            winner = settings[-1]
            losers = sorted({s.path for s in settings if s.path != winner.path})
            evidence = [_setting_evidence(s) for s in settings[:MAX_EVIDENCE]]
            evidence.append(Evidence(winner.path, f"wins: {_pair(name, winner.value)} (drop-ins apply in "
                                                  "file-name order; the last assignment wins)"))
            yield Finding(
                cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.INFO,
                title=f"{u.unit}: {name} is set in {len({s.path for s in settings})} files; "
                      f"{winner.path} wins with {_pair(name, winner.value)}",
                evidence=evidence,
                fix=Fix(f"Keep {name} in one file; remove it from {', '.join(losers)} so the next edit does what it says.",
                        commands=(reload_and_restart(u.unit),)),
            )


# -- settings a reinstall will wipe ----------------------------------------------------------

INSTALL_SH_UNIT = "/etc/systemd/system/ollama.service"


@check(id="systemd-env-in-unit-file", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="Ollama settings edited into the unit file that install.sh rewrites on every upgrade")
def env_in_unit_file(systemd_units):
    for u in systemd_units:
        if u.engine != "ollama" or u.fragment_path != INSTALL_SH_UNIT:
            continue
        mine = {name: s[-1] for name, s in u.file_env_settings.items()
                if is_engine_var(name) and s and s[-1].path == INSTALL_SH_UNIT and u.file_env.get(name) == s[-1].value}
        if not mine:
            continue
        evidence = [_setting_evidence(s) for s in list(mine.values())[:MAX_EVIDENCE]]
        evidence.append(Evidence(INSTALL_SH_UNIT, "Ollama's install.sh writes this file anew on every install "
                                                  "or upgrade; drop-ins in ollama.service.d/ are kept"))
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.INFO, confidence="medium",
            title=f"{u.unit}: {', '.join(list(mine)[:4])} set in the unit file itself; the next Ollama upgrade "
                  "overwrites it",
            evidence=evidence,
            fix=Fix(f"Move the settings to a drop-in (it survives upgrades) and delete them from {INSTALL_SH_UNIT}.",
                    commands=(edit(u.unit), reload_and_restart(u.unit)),
                    config=_dropin_snippet(u.unit, {k: s.value for k, s in mine.items()})),
        )
