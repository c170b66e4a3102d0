"""A log line as a finding's evidence: stripped, and cut to a length a report can show."""
from __future__ import annotations

EVIDENCE_CHARS = 400


def short_line(line: str) -> str:
    line = line.strip()
    return line if len(line) <= EVIDENCE_CHARS else line[: EVIDENCE_CHARS - 1] + "…"
