"""Shared parsing vocabulary: one error type, and the journald prefix every log line may carry."""
from __future__ import annotations

import re


class ParseError(ValueError):
    """Input that a parser cannot make sense of; str() is shown to the user as
    `unparseable <source>: <why>`."""


# `Aug 08 23:02:37 j-360 ollama[1617]: ` (journalctl short format), optionally with a
# year or ISO timestamp (`-o short-iso`), and pasted shell prompts are not our business.
JOURNAL_PREFIX = re.compile(
    r"^(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)?)"
    r" \S+ [^\s:\[]+(?:\[\d+\])?: "
)


def strip_journal_prefix(line: str) -> str:
    return JOURNAL_PREFIX.sub("", line, count=1)


def parse_size(text: str) -> int:
    """'8.3 GB' / '5766.09 MiB' / '24GB' / '24 GiB' / '1024' -> bytes (GB decimal, GiB binary)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGTP]?)(i?)B?\s*", text.strip(), re.I)
    if not m:
        raise ParseError(f"not a size: {text!r}")
    number, unit, binary = float(m.group(1)), m.group(2).upper(), m.group(3)
    base = 1024 if binary else 1000
    power = " KMGTP".index(unit) if unit else 0
    return int(round(number * base**power))
