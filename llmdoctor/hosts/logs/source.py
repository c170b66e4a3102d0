"""What every log source is, and the bounds every reader keeps to."""
from __future__ import annotations

from typing import Iterator, Protocol


CHUNK = 1024 * 1024  # bytes read from a file at a time
MAX_LINE = 1024 * 1024  # longer lines are cut (a runaway line never grows memory)
BISECT_ABOVE = 4 * CHUNK  # files this large are bisected to the window's start
JOURNAL_DEADLINE = 120.0  # seconds a journal read may take in all
REMOTE_MAX_ENTRIES = 200_000  # journal entries read through host.run (held in memory)
REMOTE_MAX_BYTES = 64 * 1024 * 1024  # plain-file bytes read per run on a remote host


class LogSource(Protocol):
    name: str
    engine: str | None
    error: str | None

    def lines(self) -> Iterator[str]:
        ...
