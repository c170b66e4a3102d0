"""Collect systemd facts through a Host: unit files, drop-ins, `systemctl show`, environments.

Reads through the Host only, so it works on this machine, over SSH, on an evidence
directory, and on a container (tests). Each view that cannot be had (no systemctl,
no permission for /proc/PID/environ) is left None with the reason in `notes`.
Imported only when a unit is to be examined (start-up time is benchmarked).
"""
from __future__ import annotations

import posixpath
import re

from llmdoctor.hosts.base import HostError, Unanswerable
from llmdoctor.parsing import LazyPattern, ParseError
from llmdoctor.knowledge.systemd.environ import (
    HOME_SHELL_FILES,
    SYSTEM_SHELL_FILES,
    ShellSetting,
    parse_env_file,
    parse_etc_environment,
    parse_proc_environ,
    parse_shell_settings,
)
from llmdoctor.knowledge.systemd.show import PROPERTIES, ShowResult, parse_show
from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit
from llmdoctor.knowledge.systemd.units import (
    SYSTEM_UNIT_PATHS,
    UnitFile,
    UnitFileProblem,
    UnitState,
    dropin_dir_names,
    file_environment,
    ignored_file_problems,
    is_engine_var,
    normalize_unit,
    order_dropins,
    parse_unit_text,
    split_words,
)

UNIT_FILE_LIMIT = 256 * 1024
_UNIT_DIR = LazyPattern(r"\.(service|socket|timer|path|mount|automount|swap|target|slice|scope|device)\.d$")
BACKUP_SUFFIXES = ("~", ".bak", ".orig", ".old", ".save", ".swp", ".dpkg-old", ".dpkg-dist", ".dpkg-new",
                   ".ucf-old", ".ucf-dist", ".rpmsave", ".rpmnew", ".disabled")


# -- host access -----------------------------------------------------------------------

def read_bytes(host, path: str, limit: int = UNIT_FILE_LIMIT) -> bytes:
    """Bytes of `path` on the host; a file the host cannot answer for reads as absent."""
    try:
        return host.read(path, limit)
    except (FileNotFoundError, Unanswerable) as e:
        raise FileNotFoundError(str(e)) from e


def read_text(host, path: str, limit: int = UNIT_FILE_LIMIT) -> str:
    return read_bytes(host, path, limit).decode("utf-8", "replace")


def list_dir(host, path: str) -> list[str] | None:
    """Names in a directory, or None when it does not exist / cannot be listed."""
    try:
        return sorted(host.listdir(path))
    except (OSError, HostError):
        return None


def _sets_engine_value_not_in(line: str, env: dict[str, str]) -> bool:
    _, _, value = line.partition("=")
    for word in split_words(value):
        name, eq, val = word.partition("=")
        if eq and is_engine_var(name) and env.get(name) != val:
            return True
    return False


def _is_backup_of(name: str, names: list[str]) -> bool:
    for suffix in BACKUP_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in names:
            return True
    return False


# -- collection ------------------------------------------------------------------------

def _unit_dirs(host, unit: str) -> tuple[str | None, dict[str, list[str]], list[str] | None]:
    """(fragment path, drop-in dir -> names, names in /etc/systemd/system) with few host calls.

    Each search directory is listed once; only the drop-in directories that exist are
    listed again. An evidence directory cannot list most paths, so there each candidate
    is probed directly instead.
    """
    partial = not host.complete_listings
    dnames = dropin_dir_names(unit)
    fragment: str | None = None
    listing: dict[str, list[str]] = {}
    etc_names: list[str] | None = None
    for base in SYSTEM_UNIT_PATHS:
        names = list_dir(host, base)
        if base == "/etc/systemd/system":
            etc_names = names
        if names is None and not partial:
            continue
        probe = partial  # a partial listing may leave a candidate out: ask for each one
        if fragment is None and (_readable(host, posixpath.join(base, unit)) if probe else unit in names):
            fragment = posixpath.join(base, unit)
        for dname in dnames:
            if probe or dname in names:
                inner = list_dir(host, posixpath.join(base, dname))
                if inner is not None:
                    listing[posixpath.join(base, dname)] = inner
    return fragment, listing, etc_names


def _readable(host, path: str) -> bool:
    try:
        read_bytes(host, path, 1)
        return True
    except OSError:
        return False


def _wrong_dirs(host, unit: str, user_homes: list[str], etc_names: list[str] | None) -> list[tuple[str, list[str], str]]:
    """Directories that look meant for this unit's drop-ins but that systemd never reads."""
    stem = unit.rsplit(".", 1)[0]
    right = set(dropin_dir_names(unit))
    found: list[tuple[str, list[str], str]] = []
    base = "/etc/systemd/system"
    if etc_names is not None:
        for name in etc_names:
            if name in right or not name.endswith(".d") or not re.match(rf"{re.escape(stem)}(?:[.\-_@]|\.d$)", name):
                continue
            if _UNIT_DIR.search(name) and name[:-2] != unit:
                continue  # a drop-in dir of another unit (ollama.socket.d, ollama-web.service.d)
            d = posixpath.join(base, name)
            inner = list_dir(host, d)
            if inner is not None:
                found.append((d, inner, f"systemd looks for drop-ins of {unit} in {unit}.d/, not {name}/"))
    user_dirs = ["/etc/systemd/user"]
    probe = not host.complete_listings
    for home in user_homes:
        names = None if probe else list_dir(host, home)
        if names is None and not probe:
            continue
        if names is None or f"{unit}.d" in names:  # e.g. ~/ollama.service.d, made in the wrong cwd
            inner = list_dir(host, posixpath.join(home, f"{unit}.d"))
            if inner is not None:
                found.append((posixpath.join(home, f"{unit}.d"), inner,
                              f"systemd never looks for drop-ins in {home}; they belong in /etc/systemd/system/{unit}.d/"))
        if names is None or ".config" in names:
            user_dirs.append(posixpath.join(home, ".config/systemd/user"))
    for d in user_dirs:
        inner = list_dir(host, posixpath.join(d, f"{unit}.d"))
        if inner is not None:
            found.append((posixpath.join(d, f"{unit}.d"), inner,
                          f"{d} holds drop-ins for a *user* unit; the system service {unit} never reads them"))
    return found


def _show(host, unit: str) -> tuple[ShowResult | None, str | None]:
    try:
        res = host.run(["systemctl", "show", "-p", ",".join(PROPERTIES), "--", check_unit(unit)], timeout=10)
    except (HostError, BadUnitName) as e:
        return None, f"systemctl show {unit}: {e}"
    if not res.ok and not res.stdout.strip():
        first = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[0]
        return None, f"systemctl show {unit}: {first[:200]}"
    try:
        return parse_show(res.stdout), None
    except ParseError as e:
        return None, f"unparseable {res.source or f'systemctl show {unit}'}: {e}"


def read_passwd(host) -> str:
    try:
        return read_text(host, "/etc/passwd")
    except OSError:
        return ""


def collect_unit(host, unit: str, engine: str | None, passwd: str | None = None) -> UnitState:
    """Everything llmdoctor knows about one unit; never raises for a missing view."""
    unit = normalize_unit(unit)
    notes: list[str] = []
    problems: list[UnitFileProblem] = []
    fragment_path, listing, etc_names = _unit_dirs(host, unit)
    files: list[UnitFile] = []
    if fragment_path is not None:
        try:
            files.append(parse_unit_text(read_text(host, fragment_path), fragment_path))
        except OSError as e:
            notes.append(f"unit file {fragment_path} not readable: {e}")
            fragment_path = None
    else:
        notes.append(f"unit file {unit} not found in {', '.join(SYSTEM_UNIT_PATHS[3:])}")
    order = order_dropins(unit, listing)
    for path in order.paths:
        try:
            files.append(parse_unit_text(read_text(host, path), path))
        except OSError as e:
            problems.append(UnitFileProblem("unreadable", path, f"cannot read: {e}"))
    for p in order.ignored:
        d, name = posixpath.split(p.path)
        if _is_backup_of(name, listing.get(d, [])):
            continue
        try:
            problems.extend(ignored_file_problems("not-conf", p.path, read_text(host, p.path), p.detail))
        except OSError:
            pass
    fenv = file_environment(unit, files)
    for hidden, by in order.masked:
        # Hiding a vendor drop-in by name is the documented way to override it; it matters
        # only when the hidden file holds an engine setting that is not in effect.
        try:
            found = ignored_file_problems(
                "masked", hidden, read_text(host, hidden),
                f"a drop-in of the same name in a higher-priority directory ({by}) hides this file")
        except OSError:
            continue
        problems.extend(p for p in found if _sets_engine_value_not_in(p.text, fenv.env))
    problems = list(fenv.problems) + problems

    show, why = _show(host, unit)
    if why:
        notes.append(why)
    user = (show.user if show and show.user else None) or fenv.user
    passwd = passwd if passwd is not None else read_passwd(host)
    user_homes = candidate_homes(passwd, [user] if user else [])
    for d, names, detail in _wrong_dirs(host, unit, user_homes, etc_names):
        for name in names:
            path = posixpath.join(d, name)
            try:
                problems.extend(ignored_file_problems("wrong-dir", path, read_text(host, path), detail))
            except OSError:
                pass

    # EnvironmentFile= contents, as they are now
    ef_env: dict[str, str] = {}
    ef_origin: dict[str, str] = {}
    for ref in fenv.environment_files:
        try:
            for s in parse_env_file(read_text(host, ref.path), ref.path):
                ef_env[s.name] = s.value
                ef_origin[s.name] = f"{s.path}:{s.lineno}"
        except OSError as e:
            if not ref.optional:
                notes.append(f"EnvironmentFile {ref.path} (named in {ref.origin}) not readable: {e}")

    main_pid = show.main_pid if show else None
    process_env = None
    if main_pid:
        try:
            process_env = parse_proc_environ(read_bytes(host, f"/proc/{main_pid}/environ", 1024 * 1024))
        except PermissionError:
            notes.append(f"environment of PID {main_pid} not readable (run llmdoctor as root)")
        except (FileNotFoundError, OSError) as e:
            notes.append(f"environment of PID {main_pid} not available: {e}")
    elif show is not None and not show.plain:
        notes.append(f"{unit} has no main process (not running)")

    return UnitState(
        unit=unit,
        engine=engine,
        fragment_path=fragment_path,
        dropin_paths=order.paths,
        file_env=fenv.env,
        file_env_origin=fenv.origin,
        loaded_env=show.env if show else None,
        process_env=process_env,
        need_daemon_reload=show.need_daemon_reload if show else None,
        main_pid=main_pid,
        active_since=show.active_since if show else None,
        file_env_settings=fenv.settings,
        file_env_incomplete=fenv.incomplete,
        environment_files=fenv.environment_files,
        environment_file_env=ef_env,
        environment_file_origin=ef_origin,
        loaded_dropin_paths=show.dropin_paths if show else None,
        loaded_fragment_path=show.fragment_path if show else None,
        loaded_environment_files=show.environment_files if show else None,
        load_state=show.load_state if show else None,
        user=user,
        problems=tuple(problems),
        masked_dropins=order.masked,
        notes=tuple(notes),
        loaded_env_plain=bool(show and show.plain),
        loaded_env_lines=dict(show.env_lines or {}) if show else {},
    )


def engine_units(engines, requested) -> dict[str, str | None]:
    """unit -> engine kind, from the engines found and the --unit names."""
    from llmdoctor.facts.engines import engine_of_unit

    units: dict[str, str | None] = {}
    for e in engines or ():
        if getattr(e, "unit", None):
            units.setdefault(normalize_unit(e.unit), e.kind)
    for u in requested or ():
        units.setdefault(normalize_unit(u), engine_of_unit(normalize_unit(u)))
    return units


# -- shell start-up files ---------------------------------------------------------------

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
        if uid.isdecimal() and 1000 <= int(uid) < 60000 and not shell.rstrip().endswith(NOLOGIN):
            login.append(home)
    dirs = ["/root"] + [homes[u] for u in service_users if u in homes] + login[:MAX_LOGIN_USERS]
    return [d for d in dict.fromkeys(dirs) if d and d != "/"]


def candidate_files(host, passwd: str, service_users: list[str], unit_stems: list[str]) -> list[str]:
    """Files to read: one listing per home keeps remote hosts to a few calls."""
    files = list(SYSTEM_SHELL_FILES)
    probe = not host.complete_listings
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


def collect_shell_settings(host, systemd_units) -> tuple[ShellSetting, ...] | None:
    """Engine variables in shell start-up files; None when a recording holds none of them."""
    passwd = read_passwd(host)
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
    if not read_any and host.partial:
        return None
    return tuple(found)
