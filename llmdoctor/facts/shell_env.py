"""Fact "shell_exports": engine variables set in files a systemd service never reads.

`~/.bashrc`, `~/.profile` (of root, of the service's User= and of login users),
`/etc/environment`, `/etc/profile(.d)`, and `/etc/default/NAME` / `/etc/sysconfig/NAME`
when no `EnvironmentFile=` names them. Only engine variables are kept (OLLAMA_*,
VLLM_*, LLAMA_ARG_*, *_VISIBLE_DEVICES): the fact is about settings that never arrive.
"""
from __future__ import annotations

import posixpath

from ..systemd.environ import HOME_SHELL_FILES, SYSTEM_SHELL_FILES, ShellSetting, parse_etc_environment, parse_shell_settings
from ..systemd.units import is_engine_var
from . import Context, FactUnavailable, provider
from .systemd import list_dir, read_text

MAX_LOGIN_USERS = 5
SHELL_FILE_LIMIT = 256 * 1024
NOLOGIN = ("nologin", "false", "sync", "halt", "shutdown")


def candidate_homes(passwd: str, service_users: list[str]) -> list[str]:
    """Home directories worth a look, most relevant first: root, the services' users, login users (pure)."""
    homes: dict[str, str] = {}
    login: list[str] = []
    for line in passwd.splitlines():
        parts = line.split(":")
        if len(parts) < 7:
            continue
        name, uid, home, shell = parts[0], parts[2], parts[5], parts[6]
        homes[name] = home
        if uid.isdigit() and 1000 <= int(uid) < 60000 and not shell.rstrip().endswith(NOLOGIN):
            login.append(home)
    dirs = ["/root"] + [homes[u] for u in service_users if u in homes] + login[:MAX_LOGIN_USERS]
    return [d for d in dict.fromkeys(dirs) if d and d != "/"]


def candidate_files(host, passwd: str, service_users: list[str], unit_stems: list[str]) -> list[str]:
    """Files to read: one listing per home keeps remote hosts to a few calls."""
    files = list(SYSTEM_SHELL_FILES)
    probe = getattr(host, "kind", "") == "evidence"
    for home in candidate_homes(passwd, service_users):
        names = None if probe else list_dir(host, home)
        if names is None and not probe:
            continue
        files += [posixpath.join(home, f) for f in HOME_SHELL_FILES if names is None or f in names]
    for stem in unit_stems:
        files += [f"/etc/default/{stem}", f"/etc/sysconfig/{stem}"]
    return list(dict.fromkeys(files))


def settings_in(path: str, text: str) -> list[ShellSetting]:
    if path == "/etc/environment" or path.startswith(("/etc/default/", "/etc/sysconfig/")):
        found = parse_etc_environment(text, path)
    else:
        found = parse_shell_settings(text, path)
    return [s for s in found if is_engine_var(s.name)]


@provider("shell_exports")
def shell_exports(ctx: Context, systemd_units=()) -> tuple[ShellSetting, ...]:
    host = ctx.host
    try:
        passwd = read_text(host, "/etc/passwd")
    except OSError:
        passwd = ""
    users = [s.user for s in systemd_units or () if s.user]
    stems = [s.unit.rsplit(".", 1)[0] for s in systemd_units or ()]
    referenced = {ref.path for s in systemd_units or () for ref in s.environment_files}
    files = candidate_files(host, passwd, users, stems)
    files += [posixpath.join("/etc/profile.d", n) for n in (list_dir(host, "/etc/profile.d") or [])
              if n.endswith(".sh")][:50]
    found: list[ShellSetting] = []
    read_any = False
    for path in files:
        if path in referenced:
            continue  # systemd does read it
        try:
            text = read_text(host, path, SHELL_FILE_LIMIT)
        except OSError:
            continue
        read_any = True
        found.extend(settings_in(path, text))
    if not read_any and getattr(host, "kind", "") == "evidence":
        raise FactUnavailable("no shell start-up files in the evidence", quiet=True)
    return tuple(found)
