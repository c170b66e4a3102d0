"""Unit files and drop-ins the way systemd reads them, as pure functions.

What the files on disk say after systemd's precedence rules, so it can be compared
with what the manager loaded (`systemctl show`) and what the process got
(`/proc/PID/environ`). Rules followed (systemd.unit(5), systemd 252 as tested in
nspawn):

* the fragment NAME.service comes from the first search directory that has it;
* drop-ins are `*.conf` files in NAME.service.d/, in dash-prefix dirs (`foo-.service.d/`
  for `foo-bar.service`) and in the type-level `service.d/`, in every search directory;
  a file name in a higher-priority directory masks the same name in a lower one; the
  survivors are applied sorted by FILE NAME, whatever directory they came from;
* `Environment=` accumulates, later assignments win, an empty `Environment=` resets
  the list; words are unquoted and C-unescaped; `%%` is a literal `%`;
* `EnvironmentFile=` (optional `-` prefix) accumulates the same way;
* assignments before any section header, or in another section than `[Service]`,
  are ignored by systemd ("Assignment outside of section. Ignoring.").
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from llmdoctor.knowledge.systemd.names import (  # noqa: F401  (re-exported: the vocabulary of this module)
    ENGINE_VAR,
    ENV_NAME,
    SYSTEM_UNIT_PATHS,
    canonical_path,
    in_search_paths,
    is_engine_var,
    normalize_unit,
)
from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern


# -- words: systemd's extract_first_word(UNQUOTE | CUNESCAPE | RELAX) -----------------

_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                   "s": " ", "\\": "\\", '"': '"', "'": "'"}


def _unescape_one(s: str, i: int) -> tuple[str, int]:
    """Decode the escape starting after the backslash at s[i-1]; returns (text, next index)."""
    c = s[i]
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], i + 1
    if c == "x" and re.match(r"[0-9a-fA-F]{2}", s[i + 1:i + 3]):
        return chr(int(s[i + 1:i + 3], 16)), i + 3
    if c in "uU":
        n = 4 if c == "u" else 8
        digits = s[i + 1:i + 1 + n]
        if len(digits) == n and re.fullmatch(r"[0-9a-fA-F]+", digits):
            try:
                return chr(int(digits, 16)), i + 1 + n
            except (ValueError, OverflowError):
                pass
    if re.match(r"[0-7]{3}", s[i:i + 3]):
        return chr(int(s[i:i + 3], 8)), i + 3
    # Relaxed: an unknown escape keeps the character (`systemctl show` writes `\$`).
    return c, i + 1


def split_words(text: str) -> list[str]:
    """Split like systemd: whitespace separates, quotes group (also mid-word), C escapes apply."""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\n\r":
            i += 1
        if i >= n:
            break
        buf: list[str] = []
        quote = ""
        while i < n:
            c = text[i]
            if c == "\\":
                if i + 1 >= n:
                    i += 1  # a trailing backslash is dropped
                    break
                piece, i = _unescape_one(text, i + 1)
                buf.append(piece)
                continue
            if quote:
                if c == quote:
                    quote = ""
                else:
                    buf.append(c)
                i += 1
                continue
            if c in "\"'":
                quote = c
                i += 1
                continue
            if c in " \t\n\r":
                break
            buf.append(c)
            i += 1
        words.append("".join(buf))
    return words


def expand_specifiers(value: str, unit: str) -> tuple[str, bool]:
    """Expand the specifiers whose value follows from the unit name; (text, complete)."""
    prefix = unit.rsplit(".", 1)[0]
    instance = prefix.split("@", 1)[1] if "@" in prefix else ""
    known = {"%": "%", "n": unit, "N": prefix, "p": prefix.split("@", 1)[0], "i": instance, "I": instance}
    out: list[str] = []
    complete = True
    i = 0
    while i < len(value):
        if value[i] == "%" and i + 1 < len(value):
            spec = value[i + 1]
            if spec in known:
                out.append(known[spec])
            else:
                out.append(value[i:i + 2])
                complete = False
            i += 2
            continue
        out.append(value[i])
        i += 1
    return "".join(out), complete


# -- unit file text -----------------------------------------------------------------------
# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.

@record
class Assignment(Record):
    """One `Key=value` line of a unit file (continuations joined)."""

    key: str
    value: str
    path: str
    lineno: int
    section: str | None  # None: before any section header
    text: str  # the line as written (first physical line when continued)


@record
class UnitFileProblem(Record):
    """Something in the files that systemd ignores (or that is not where systemd looks)."""

    kind: str  # outside-section | wrong-section | invalid-assignment | not-conf | wrong-dir | unreadable
    path: str
    detail: str
    lineno: int = 0
    text: str = ""


@record
class UnitFile(Record):
    path: str
    assignments: tuple[Assignment, ...] = ()
    problems: tuple[UnitFileProblem, ...] = ()
    sections: tuple[str, ...] = ()


_SECTION = LazyPattern(r"\[([^\[\]]+)\]\s*\Z")


def parse_unit_text(text: str, path: str) -> UnitFile:
    """Parse unit-file syntax: sections, comments (# ;), backslash continuations."""
    assignments: list[Assignment] = []
    problems: list[UnitFileProblem] = []
    sections: list[str] = []
    section: str | None = None
    lines = text.removeprefix("\ufeff").splitlines()  # systemd skips a UTF-8 byte-order mark
    i = 0
    while i < len(lines):
        lineno, first = i + 1, lines[i]
        line = first.strip()
        i += 1
        # Continuation: a trailing backslash joins the next line (comment lines inside are skipped).
        while line.endswith("\\") and i < len(lines):
            nxt = lines[i].strip()
            i += 1
            if nxt.startswith(("#", ";")):
                continue
            line = line[:-1] + " " + nxt
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            m = _SECTION.match(line)
            if m:
                section = m.group(1)
                sections.append(section)
            else:
                problems.append(UnitFileProblem("invalid-assignment", path, "bad section header", lineno, first))
            continue
        if "=" not in line:
            problems.append(UnitFileProblem("invalid-assignment", path, "line without '='", lineno, first))
            continue
        key, value = line.split("=", 1)
        key, value = key.strip(), value.strip()
        assignments.append(Assignment(key, value, path, lineno, section, first))
        if section is None:
            problems.append(UnitFileProblem(
                "outside-section", path, "assignment before any section header; systemd ignores it "
                "(\"Assignment outside of section. Ignoring.\")", lineno, first))
        elif key in ("Environment", "EnvironmentFile", "PassEnvironment") and section != "Service":
            problems.append(UnitFileProblem(
                "wrong-section", path, f"{key}= in [{section}]; systemd only reads it in [Service]", lineno, first))
    return UnitFile(path, tuple(assignments), tuple(problems), tuple(sections))


# -- drop-in discovery and precedence ------------------------------------------------------

def dropin_dir_names(unit: str) -> list[str]:
    """Drop-in directory names for a unit, most specific first.

    `foo-bar-baz.service` -> foo-bar-baz.service.d, foo-bar-.service.d, foo-.service.d,
    service.d (systemd.unit(5): "dashes in unit names").
    """
    unit = normalize_unit(unit)
    prefix, _, suffix = unit.rpartition(".")
    names = [f"{unit}.d"]
    template = re.sub(r"@[^.]*$", "@", prefix)
    if template != prefix:
        names.append(f"{template}.{suffix}.d")
    parts = template.rstrip("@").split("-")
    for k in range(len(parts) - 1, 0, -1):
        names.append("-".join(parts[:k]) + f"-.{suffix}.d")
    names.append(f"{suffix}.d")
    return list(dict.fromkeys(names))


def _same_file_on_merged_usr(a: str, b: str) -> bool:
    return canonical_path(a) == canonical_path(b)


@record
class DropinOrder(Record):
    paths: tuple[str, ...]  # applied in this order
    masked: tuple[tuple[str, str], ...] = ()  # (hidden path, path that masks it)
    ignored: tuple[UnitFileProblem, ...] = ()  # wrong suffix


def order_dropins(unit: str, listing: Mapping[str, Sequence[str]],
                  search_paths: Sequence[str] = SYSTEM_UNIT_PATHS) -> DropinOrder:
    """systemd's drop-in precedence, from what each candidate directory holds.

    `listing` maps a drop-in directory (e.g. /etc/systemd/system/ollama.service.d) to the
    names in it; directories not in it are taken as absent.
    """
    chosen: dict[str, str] = {}
    masked: list[tuple[str, str]] = []
    ignored: list[UnitFileProblem] = []
    *specific, type_level = dropin_dir_names(unit)
    # Priority, as systemd 252 resolves it (checked in nspawn): search directory first,
    # then the unit's own dir before its dash prefixes; the type-level dir (service.d)
    # ranks below all of them, whatever directory it is in.
    candidates = [posixpath.join(base, d) for base in search_paths for d in specific]
    candidates += [posixpath.join(base, type_level) for base in search_paths]
    for d in dict.fromkeys(candidates):
        if d in listing:
            for name in listing[d]:
                path = posixpath.join(d, name)
                if not name.endswith(".conf"):
                    if not name.startswith("."):
                        ignored.append(UnitFileProblem(
                            "not-conf", path, "systemd reads only drop-ins whose name ends in .conf"))
                    continue
                if name in chosen:
                    if chosen[name] != path and not _same_file_on_merged_usr(path, chosen[name]) \
                            and not any(_same_file_on_merged_usr(path, m) for m, _ in masked):
                        masked.append((path, chosen[name]))
                    continue
                chosen[name] = path
    ordered = tuple(chosen[name] for name in sorted(chosen))
    return DropinOrder(ordered, tuple(masked), tuple(ignored))


# -- effective environment -----------------------------------------------------------------

@record
class EnvSetting(Record):
    """Where one variable got a value: the file, the line, the value."""

    name: str
    value: str
    path: str
    lineno: int
    text: str
    complete: bool = True  # False when the value holds a specifier we cannot expand offline


@record
class EnvironmentFileRef(Record):
    path: str
    optional: bool
    origin: str  # file:line that names it


@dataclass
class FileEnvironment:
    """What the unit's files on disk say, after precedence."""

    env: dict[str, str] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # var -> file that wins
    settings: dict[str, tuple[EnvSetting, ...]] = field(default_factory=dict)  # var -> every assignment, in order
    incomplete: frozenset[str] = frozenset()  # vars whose value holds an unexpanded specifier
    environment_files: tuple[EnvironmentFileRef, ...] = ()
    problems: tuple[UnitFileProblem, ...] = ()
    user: str | None = None
    resets: tuple[EnvSetting, ...] = ()  # `Environment=` lines that cleared earlier ones


def parse_environment_words(value: str, unit: str, a: Assignment) -> tuple[list[EnvSetting], list[UnitFileProblem]]:
    """NAME=value words of one `Environment=` line; rejected words make one problem for the line."""
    out: list[EnvSetting] = []
    rejected: list[str] = []
    for word in split_words(value):
        name, eq, val = word.partition("=")
        if not eq or not ENV_NAME.match(name):
            rejected.append(word)
            continue
        expanded, complete = expand_specifiers(val, unit)
        out.append(EnvSetting(name, expanded, a.path, a.lineno, a.text, complete))
    if not rejected:
        return out, []
    detail = f"systemd ignores {', '.join(repr(w) for w in rejected[:4])} (\"Invalid environment assignment, ignoring\")"
    if any(w.startswith(("#", ";")) for w in rejected):
        detail += "; unit files have no end-of-line comments"
    return out, [UnitFileProblem("invalid-assignment", a.path, detail, a.lineno, a.text)]


def file_environment(unit: str, files: Iterable[UnitFile]) -> FileEnvironment:
    """Fold the fragment and its drop-ins (already in systemd's order) into one view."""
    unit = normalize_unit(unit)
    history: dict[str, list[EnvSetting]] = {}
    current: dict[str, EnvSetting] = {}
    env_files: list[EnvironmentFileRef] = []
    problems: list[UnitFileProblem] = []
    resets: list[EnvSetting] = []
    user: str | None = None
    for f in files:
        problems.extend(f.problems)
        for a in f.assignments:
            if a.section != "Service":
                continue
            if a.key == "Environment":
                if not a.value:
                    current.clear()
                    resets.append(EnvSetting("", "", a.path, a.lineno, a.text))
                    continue
                settings, bad = parse_environment_words(a.value, unit, a)
                problems.extend(bad)
                for s in settings:
                    current.pop(s.name, None)  # re-insert: later assignment, later position
                    current[s.name] = s
                    history.setdefault(s.name, []).append(s)
            elif a.key == "EnvironmentFile":
                if not a.value:
                    env_files.clear()
                    continue
                optional = a.value.startswith("-")
                path, _ = expand_specifiers(a.value[1:] if optional else a.value, unit)
                env_files.append(EnvironmentFileRef(path.strip(), optional, f"{a.path}:{a.lineno}"))
            elif a.key == "User":
                user = a.value or None
    return FileEnvironment(
        env={k: s.value for k, s in current.items()},
        origin={k: s.path for k, s in current.items()},
        settings={k: tuple(v) for k, v in history.items()},
        incomplete=frozenset(k for k, s in current.items() if not s.complete),
        environment_files=tuple(env_files),
        problems=tuple(problems),
        user=user,
        resets=tuple(resets),
    )


# -- the fact value --------------------------------------------------------------------

class UnitState(Record):
    """One engine unit: what its files say, what systemd loaded, what the process got.

    The first fields are the cross-helper contract (COMMON.md); the rest are extras
    the CONFIG_NOT_APPLIED checks use.
    """

    __slots__ = ("unit", "engine", "fragment_path", "dropin_paths", "file_env", "file_env_origin", "loaded_env",
                 "process_env", "need_daemon_reload", "main_pid", "active_since", "file_env_settings",
                 "file_env_incomplete", "environment_files", "environment_file_env", "environment_file_origin",
                 "loaded_dropin_paths", "loaded_fragment_path", "loaded_environment_files", "load_state", "user",
                 "problems", "masked_dropins", "notes", "loaded_env_plain", "loaded_env_lines")

    def __init__(
        self,
        unit: str,
        engine: str | None = None,
        fragment_path: str | None = None,
        dropin_paths: tuple[str, ...] = (),
        file_env: dict[str, str] | None = None,
        file_env_origin: dict[str, str] | None = None,
        loaded_env: dict[str, str] | None = None,
        process_env: dict[str, str] | None = None,
        need_daemon_reload: bool | None = None,
        main_pid: int | None = None,
        active_since: str | None = None,
        file_env_settings: dict[str, tuple[EnvSetting, ...]] | None = None,
        file_env_incomplete: frozenset[str] = frozenset(),
        environment_files: tuple[EnvironmentFileRef, ...] = (),
        environment_file_env: dict[str, str] | None = None,
        environment_file_origin: dict[str, str] | None = None,
        loaded_dropin_paths: tuple[str, ...] | None = None,
        loaded_fragment_path: str | None = None,
        loaded_environment_files: tuple[str, ...] | None = None,
        load_state: str | None = None,
        user: str | None = None,
        problems: tuple[UnitFileProblem, ...] = (),
        masked_dropins: tuple[tuple[str, str], ...] = (),
        notes: tuple[str, ...] = (),
        loaded_env_plain: bool = False,
        loaded_env_lines: dict[str, str] | None = None,
    ) -> None:
        self.unit = unit
        self.engine = engine
        self.fragment_path = fragment_path
        self.dropin_paths = dropin_paths
        self.file_env = {} if file_env is None else file_env
        self.file_env_origin = {} if file_env_origin is None else file_env_origin
        self.loaded_env = loaded_env
        self.process_env = process_env
        self.need_daemon_reload = need_daemon_reload
        self.main_pid = main_pid
        self.active_since = active_since
        self.file_env_settings = {} if file_env_settings is None else file_env_settings
        self.file_env_incomplete = file_env_incomplete
        self.environment_files = environment_files
        self.environment_file_env = {} if environment_file_env is None else environment_file_env  # contents as read now
        self.environment_file_origin = {} if environment_file_origin is None else environment_file_origin
        self.loaded_dropin_paths = loaded_dropin_paths
        self.loaded_fragment_path = loaded_fragment_path
        self.loaded_environment_files = loaded_environment_files
        self.load_state = load_state
        self.user = user
        self.problems = problems
        self.masked_dropins = masked_dropins
        self.notes = notes  # why a view is missing (process env unreadable, ...)
        self.loaded_env_plain = loaded_env_plain  # loaded_env came from hand-made NAME=value lines (may be partial)
        self.loaded_env_lines = {} if loaded_env_lines is None else loaded_env_lines  # var -> `systemctl show` line


def ignored_file_problems(kind: str, path: str, text: str, detail: str) -> list[UnitFileProblem]:
    """A file systemd never reads: one problem per environment line in it (the evidence).

    A stray backup without environment lines is not worth a finding and yields nothing.
    """
    parsed = parse_unit_text(text, path)
    return [
        UnitFileProblem(kind, path, detail, a.lineno, a.text)
        for a in parsed.assignments
        if a.key in ("Environment", "EnvironmentFile")
    ]
