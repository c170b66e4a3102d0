"""`systemctl show` output: what the manager has loaded for a unit.

Real output (systemd 252) looks like

    MainPID=39
    Environment=PATH=/usr/bin OLLAMA_HOST=0.0.0.0 "OLLAMA_ORIGINS=a b" "B=\\$HOME"
    EnvironmentFiles=/etc/ollama.env (ignore_errors=yes)
    FragmentPath=/etc/systemd/system/ollama.service
    DropInPaths=/etc/systemd/system/ollama.service.d/override.conf
    ActiveEnterTimestamp=Sun 2026-11-29 11:16:43 UTC
    NeedDaemonReload=no

`Environment=` quotes a whole NAME=value word when it needs it and escapes C-style.
An evidence `env.txt` may instead hold plain `NAME=value` lines (pasted by hand);
the two are told apart by the known property names.
"""
from __future__ import annotations

import re

from llmdoctor.model import Record, record
from llmdoctor.parsing import ParseError
from llmdoctor.knowledge.systemd.units import ENV_NAME, split_words

PROPERTIES = ("Environment", "EnvironmentFiles", "FragmentPath", "DropInPaths", "NeedDaemonReload",
              "MainPID", "ActiveEnterTimestamp", "LoadState", "User")
# Properties that mark a text as `systemctl show` output (never an engine variable name).
_SHOW_MARKERS = frozenset(PROPERTIES) | {"Id", "Names", "ActiveState", "SubState", "ExecMainPID", "Type",
                                         "UnitFileState", "ControlGroup", "Description"}


# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class ShowResult(Record):
    env: dict[str, str] | None = None  # None: no Environment= property in the text
    environment_files: tuple[str, ...] | None = None
    fragment_path: str | None = None
    dropin_paths: tuple[str, ...] | None = None
    need_daemon_reload: bool | None = None
    main_pid: int | None = None
    active_since: str | None = None
    load_state: str | None = None
    user: str | None = None
    plain: bool = False  # True: the text was NAME=value lines, not `systemctl show`
    env_lines: dict[str, str] | None = None  # var -> the line it came from (for evidence)


def parse_environment_property(value: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for word in split_words(value):
        name, eq, val = word.partition("=")
        if eq and ENV_NAME.match(name):
            env[name] = val
    return env


def _bool(value: str) -> bool | None:
    return {"yes": True, "no": False}.get(value.strip().lower())


def parse_show(text: str) -> ShowResult:
    """Parse `systemctl show -p ...` output, or plain NAME=value lines.

    Raises ParseError when the text is neither.
    """
    lines = [ln.rstrip("\r") for ln in text.splitlines()]
    props: dict[str, list[str]] = {}
    for ln in lines:
        key, eq, value = ln.partition("=")
        if eq and key in _SHOW_MARKERS:
            props.setdefault(key, []).append(value)
    if props:
        return _from_props(props, lines)
    return _from_plain(lines)


def _from_props(props: dict[str, list[str]], lines: list[str]) -> ShowResult:
    def last(key: str) -> str | None:
        return props[key][-1] if key in props else None

    env = env_lines = None
    if "Environment" in props:
        env, env_lines = {}, {}
        for ln in lines:
            if ln.startswith("Environment="):
                for name, val in parse_environment_property(ln[len("Environment="):]).items():
                    env[name] = val
                    env_lines[name] = ln
    files = None
    if "EnvironmentFiles" in props:
        # one line per file: "/etc/x.env (ignore_errors=yes)"
        files = tuple(re.sub(r"\s+\(ignore_errors=\w+\)\s*$", "", v).strip() for v in props["EnvironmentFiles"] if v.strip())
    pid = None
    raw_pid = last("MainPID")
    if raw_pid and raw_pid.strip().isdecimal() and int(raw_pid) > 0:
        pid = int(raw_pid)
    dropins = None
    if "DropInPaths" in props:
        dropins = tuple(p for v in props["DropInPaths"] for p in v.split())
    return ShowResult(
        env=env,
        environment_files=files,
        fragment_path=(last("FragmentPath") or None) if "FragmentPath" in props else None,
        dropin_paths=dropins,
        need_daemon_reload=_bool(last("NeedDaemonReload") or "") if "NeedDaemonReload" in props else None,
        main_pid=pid,
        active_since=(last("ActiveEnterTimestamp") or "").strip() or None,
        load_state=(last("LoadState") or "").strip() or None,
        user=(last("User") or "").strip() or None,
        env_lines=env_lines,
    )


def _from_plain(lines: list[str]) -> ShowResult:
    env: dict[str, str] = {}
    env_lines: dict[str, str] = {}
    bad = 0
    for ln in lines:
        s = ln.strip()
        if not s or s.startswith("#"):
            continue
        s = re.sub(r"^export\s+", "", s)
        words = split_words(s)
        assigns = [w.partition("=") for w in words]
        if words and all(eq and ENV_NAME.match(name) for name, eq, _ in assigns):
            for name, _, val in assigns:
                env[name] = val
                env_lines[name] = ln
        else:
            bad += 1
    if not env:
        raise ParseError("neither `systemctl show` output nor NAME=value lines")
    return ShowResult(env=env, plain=True, env_lines=env_lines)
