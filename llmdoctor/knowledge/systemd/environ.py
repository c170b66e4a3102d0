"""Environments outside the unit files: the running process, EnvironmentFile=s, shell start-up files.

A service started by systemd gets the unit's `Environment=`, its `EnvironmentFile=`s
and what systemd itself sets - never `~/.bashrc`, `~/.profile` or `/etc/environment`
(pam_env reads that one for logins only). Operators keep exporting OLLAMA_HOST there
and wonder why nothing changes; these parsers find such lines.
"""
from __future__ import annotations

import re
import shlex

from llmdoctor.model import Record, record
from llmdoctor.knowledge.systemd.units import ENV_NAME, EnvSetting, split_words
from llmdoctor.parsing import LazyPattern

# Shell files read at login or by interactive shells, relative to a home directory.
HOME_SHELL_FILES = (".bashrc", ".profile", ".bash_profile", ".bash_login", ".zshrc", ".zshenv", ".zprofile")
# System-wide files a login reads and a service does not.
SYSTEM_SHELL_FILES = ("/etc/environment", "/etc/profile", "/etc/bash.bashrc", "/etc/zsh/zshenv")


def parse_proc_environ(data: bytes) -> dict[str, str]:
    """`/proc/PID/environ`: NUL-separated NAME=value; the first of a duplicated name wins (getenv).

    A copy made with `tr '\\0' '\\n'` (one per line) is read the same way.
    """
    env: dict[str, str] = {}
    items = data.split(b"\0") if b"\0" in data else data.splitlines()
    for item in items:
        if not item:
            continue
        name, eq, value = item.decode("utf-8", "replace").partition("=")
        if eq and name and name not in env:
            env[name] = value
    return env


def parse_env_file(text: str, path: str) -> list[EnvSetting]:
    """An `EnvironmentFile=`: NAME=value lines, # and ; comments, quotes, backslash continuations.

    Lines systemd would reject (no '=', invalid name, `export NAME=...`) are skipped.
    """
    out: list[EnvSetting] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        lineno, first = i + 1, lines[i]
        line = first.strip()
        i += 1
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + lines[i].strip()
            i += 1
        if not line or line.startswith(("#", ";")):
            continue
        name, eq, raw = line.partition("=")
        name = name.strip()
        if not eq or not ENV_NAME.match(name):
            continue
        raw = raw.strip()
        if raw[:1] in "\"'" and raw.endswith(raw[:1]) and len(raw) >= 2:
            words = split_words(raw)
            value = words[0] if words else ""
        else:
            value = raw
        out.append(EnvSetting(name, value, path, lineno, first))
    return out


# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class ShellSetting(Record):
    """A variable set in a shell start-up file (exported or not), with its line."""

    name: str
    value: str
    path: str
    lineno: int
    text: str


_ASSIGN = LazyPattern(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.S)
_EXPORT_PREFIX = LazyPattern(r"^(?:export|declare\s+-[a-zA-Z]*x[a-zA-Z]*|typeset\s+-[a-zA-Z]*x[a-zA-Z]*|readonly)\s+")


def _shell_words(text: str) -> list[str]:
    try:
        lex = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        lex.commenters = "#"
        return list(lex)
    except ValueError:  # unbalanced quotes: fall back to a plain split
        return text.split()


def parse_shell_settings(text: str, path: str) -> list[ShellSetting]:
    """Variables set by `export A=1`, `A=1`, `declare -x A=1`, csh `setenv A 1`, fish `set -gx A 1`.

    One line per setting in file order; `if`/`then` wrappers are looked through. A
    command prefix (`A=1 ollama serve`) is not a setting and is skipped.
    """
    found: list[ShellSetting] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = _shell_words(line)
        # split into simple commands at ; && || |
        commands: list[list[str]] = [[]]
        for w in words:
            if w in (";", "&&", "||", "|", "&", ";;"):
                commands.append([])
            else:
                commands[-1].append(w)
        for cmd in commands:
            while cmd and cmd[0] in ("then", "else", "do", "{", "if", "elif", "!"):
                cmd = cmd[1:]
            if not cmd:
                continue
            head = cmd[0]
            if head in ("setenv",) and len(cmd) >= 2 and ENV_NAME.match(cmd[1]):
                found.append(ShellSetting(cmd[1], " ".join(cmd[2:]), path, lineno, raw))
                continue
            if head == "set" and len(cmd) >= 3 and cmd[1].startswith("-") and "x" in cmd[1] \
                    and ENV_NAME.match(cmd[2]):
                found.append(ShellSetting(cmd[2], " ".join(cmd[3:]), path, lineno, raw))
                continue
            if head in ("export", "readonly") or (head in ("declare", "typeset") and len(cmd) > 1):
                args = [a for a in cmd[1:] if not a.startswith("-")]
                for a in args:
                    m = _ASSIGN.match(a)
                    if m:
                        found.append(ShellSetting(m.group(1), m.group(2), path, lineno, raw))
                continue
            # plain assignments; if a command follows them they are a one-shot prefix
            assigns = []
            for w in cmd:
                m = _ASSIGN.match(w)
                if not m:
                    break
                assigns.append(m)
            if assigns and len(assigns) == len(cmd):
                found.extend(ShellSetting(m.group(1), m.group(2), path, lineno, raw) for m in assigns)
    return found


def parse_etc_environment(text: str, path: str = "/etc/environment") -> list[ShellSetting]:
    """pam_env's /etc/environment: NAME=value lines (quotes allowed, no `export`)."""
    out: list[ShellSetting] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = _EXPORT_PREFIX.sub("", line)
        name, eq, value = line.partition("=")
        if eq and ENV_NAME.match(name.strip()):
            words = split_words(value) if value[:1] in "\"'" else [value.strip()]
            out.append(ShellSetting(name.strip(), words[0] if words else "", path, lineno, raw))
    return out
