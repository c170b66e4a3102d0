"""Shared parsing vocabulary: one error type, and the journald prefix every log line may carry."""
from __future__ import annotations

import re
from functools import cache


class ParseError(ValueError):
    """Input that a parser cannot make sense of; str() is shown to the user as
    `unparseable <source>: <why>`."""


class LazyPattern:
    """A regular expression compiled on its first use, standing in for the re.Pattern: its
    methods and attributes (match, search, sub, groupindex, ...) are the compiled pattern's.

    Start-up time: compiling costs 0.1-0.5 ms a pattern, a module's table of them several
    ms, and a run uses few. Each attribute is looked up once and then kept on the instance,
    so a later call costs what a call on the compiled pattern does. (re.sub(p, ...) and the
    like want a real re.Pattern: call p.sub(...) instead.)"""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str):  # only for names not kept yet: each one's first use
        value = getattr(re.compile(*self.__dict__["_source"]), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r})"


# `Aug 08 23:02:37 j-360 ollama[1617]: ` (journalctl short format), optionally with a
# year or ISO timestamp (`-o short-iso`), and pasted shell prompts are not our business.
@cache
def _journal_prefix() -> re.Pattern[str]:  # (compiled on first use: every run imports this module)
    return re.compile(
        r"^(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)?)"
        r" \S+ [^\s:\[]+(?:\[\d+\])?: "
    )


def strip_journal_prefix(line: str) -> str:
    return _journal_prefix().sub("", line, count=1)


def parse_size(text: str) -> int:
    """'8.3 GB' / '5766.09 MiB' / '24GB' / '24 GiB' / '1024' -> bytes (GB decimal, GiB binary)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGTP]?)(i?)B?\s*", text.strip(), re.I)
    if not m:
        raise ParseError(f"not a size: {text!r}")
    number, unit, binary = float(m.group(1)), m.group(2).upper(), m.group(3)
    base = 1024 if binary else 1000
    power = " KMGTP".index(unit) if unit else 0
    value = number * base**power
    if value != value or value in (float("inf"), float("-inf")):
        raise ParseError(f"not a size: {text!r} (too large)")
    return int(round(value))


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)")


def parse_duration(text: str) -> float:
    """'24h', '10m', '1h30m', '90s', '3600' (seconds), '-1m' -> seconds (Go duration syntax plus days)."""
    t = text.strip()
    if re.fullmatch(r"-?\d+(?:\.\d+)?", t):
        return float(t)
    sign = -1.0 if t.startswith("-") else 1.0
    body = t.lstrip("+-")
    parts = _DURATION_PART.findall(body)
    if not parts or "".join(n + u for n, u in parts) != body:
        raise ParseError(f"not a duration: {text!r} (use e.g. 90s, 10m, 24h)")
    scale = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}
    return sign * sum(float(n) * scale[u] for n, u in parts)


def split_cmdline(text: str | bytes) -> list[str]:
    """A server's command line: NUL-separated (/proc/PID/cmdline) or as a user typed it
    (backslash continuations, quotes; unbalanced quotes fall back to whitespace)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if "\0" in text:
        return [a for a in text.split("\0") if a]
    text = text.strip().replace("\\\n", " ")
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def flag_settings(argv, flags, switches, canonical=lambda name: name, positional=None) -> dict:
    """The settings a server's argv gives through its flag tables: `switches` maps a flag to
    (key, value), `flags` a flag to (key, kind) taking `--flag value` or `--flag=value`.
    A value `kind` cannot read is None (unknown: the checks do arithmetic on these).
    `canonical` respells a flag name; `positional(i, argv, settings)` sees every word that is
    not a flag's value (a subcommand, a model)."""
    settings: dict = {}
    i = 0
    while i < len(argv):
        name, eq, inline = argv[i].partition("=")
        name = canonical(name)
        if positional is not None:
            positional(i, argv, settings)
        if name in switches:
            key, val = switches[name]
            settings[key] = val
        elif name in flags:
            key, kind = flags[name]
            raw = inline if eq else (argv[i + 1] if i + 1 < len(argv) else None)
            if not eq:
                i += 1
            try:
                settings[key] = kind(raw) if raw is not None else None
            except ValueError:
                settings[key] = None
        i += 1
    return settings
