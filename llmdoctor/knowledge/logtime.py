"""When a log line was written, from the first time stamp it carries: ISO and slog stamps,
gin's and old Ollama's `2024/10/30 09:20:45`, journalctl's year-less `Aug 08 23:02:37` and
vLLM's `INFO 08-01 07:02:33` (a year-less stamp is the latest such moment not more than a
day ahead of now)."""
from __future__ import annotations

import time

from llmdoctor.parsing import LazyPattern

DAY = 24 * 3600.0

_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
# 2026-08-01T07:02:33.347Z (slog, short-iso), 2025/03/06 - 11:42:21 (gin), 2024/10/30 09:20:45 (old Ollama)
_ISO = LazyPattern(
    r"(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ]| - )(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?\s?(Z|[+-]\d{2}:?\d{2}(?!\d))?"
)
# Aug 08 23:02:37 (journalctl short, no year)
_SYSLOG = LazyPattern(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d{2}):(\d{2}):(\d{2})\b")
# INFO 08-01 07:02:33 [loggers.py:123] (vLLM, no year)
_VLLM = LazyPattern(r"\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\b")
SCAN = 200  # time stamps are looked for in the first characters of a line only


def _epoch(year: int, month: int, day: int, hh: int, mm: int, ss: int, tz: str | None) -> float | None:
    try:
        if tz is None:  # a time without zone is the host's local time
            return time.mktime((year, month, day, hh, mm, ss, 0, 0, -1))
        import calendar  # (here: most runs read no zoned time stamp; ~1 ms of start-up)

        seconds = calendar.timegm((year, month, day, hh, mm, ss, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if tz != "Z":
        sign = -1 if tz[0] == "+" else 1
        digits = tz[1:].replace(":", "")
        seconds += sign * (int(digits[:2]) * 3600 + int(digits[2:4]) * 60)
    return float(seconds)


def _without_year(month: int, day: int, hh: int, mm: int, ss: int, now: float) -> float | None:
    """A year-less stamp is the latest such moment not more than a day after `now`."""
    year = time.localtime(now).tm_year
    for y in (year, year - 1):
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        t = _epoch(y, month, day, hh, mm, ss, None)
        if t is not None and t <= now + DAY:
            return t
    return None


def line_time(line: str, now: float | None = None) -> float | None:
    """The moment a log line was written (epoch seconds), from the first stamp it carries."""
    head = line[:SCAN]
    m = _ISO.search(head)
    if m:
        y, mo, d, hh, mi, ss = (int(g) for g in m.groups()[:6])
        if 1 <= mo <= 12 and 1 <= d <= 31 and hh < 24 and mi < 60 and ss < 62:
            return _epoch(y, mo, d, hh, mi, ss, m.group(7))
        return None
    now = time.time() if now is None else now
    m = _SYSLOG.search(head)
    if m:
        return _without_year(_MONTHS[m.group(1)], int(m.group(2)), *(int(g) for g in m.groups()[2:]), now)
    m = _VLLM.search(head)
    if m:
        return _without_year(*(int(g) for g in m.groups()), now)
    return None
