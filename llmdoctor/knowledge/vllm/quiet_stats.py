"""Quiet vLLM stats lines: one regex match each, so the scanner skips their parsing.

A busy server writes a stats line every few seconds, and most say nothing new: Waiting 0, no
preemptions, KV cache below the floor of the KV runs it notes, and a Running count no higher
than one already seen. Such a *quiet* line only adds one to the stats count, ends the waiting
and KV runs and may become one of the recent records. `quiet_pattern()` is the one bytes
pattern that recognises it from its "Avg prompt throughput: " on to the end of the line, in C;
the scanner then keeps the line's bytes (`QuietRegion`) and parses them only if they end up
among the recent records that a result reports.
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache

AVG = b"Avg prompt throughput: "


def at_most(n: int) -> str:
    """A regex for the decimal numbers 0..n written without leading zeros."""
    s = str(n)
    k = len(s)
    if k == 1:
        return f"[0-{n}]"
    alts = [r"\d" if k == 2 else rf"\d|[1-9]\d{{1,{k - 2}}}"]
    for i in range(k):
        lo, hi = (1 if i == 0 else 0), int(s[i]) - 1
        if hi >= lo:
            rest = k - i - 1
            alts.append(s[:i] + f"[{lo}-{hi}]" + (rf"\d{{{rest}}}" if rest else ""))
    alts.append(s)
    return "(?:" + "|".join(alts) + ")"


def running_bound(max_running: int) -> int:
    """The Running bound of the quiet pattern when `max_running` is the highest seen: a multiple
    of 8 below 128 (--max-num-seqs is usually a power of two), else its two leading digits then
    zeros (300 -> 300, 1234 -> 1200), so a log whose Running climbs step by step compiles a few
    dozen patterns at most rather than one per value (about 1 ms each); a line above the bound
    but not above max_running is only parsed (the same result)."""
    if max_running < 128:
        return max(max_running, 0) // 8 * 8
    scale = 10 ** (len(str(max_running)) - 2)
    return max_running // scale * scale


def kv_full_mark(kv_floor_pct: float) -> int | None:
    """The floor of the KV runs the scanner notes as a whole percentage, or None when it is not
    one (no quiet pattern then: the scanner reads every stats line)."""
    if kv_floor_pct != int(kv_floor_pct) or not 1 <= kv_floor_pct <= 1000:
        return None
    return int(kv_floor_pct)


# \d+(?:\.\d+)?, possessive where Python has it (3.11): the same numbers here (no digit or '.'
# follows one), about 20 % less time per match
_POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""
_NUM = rf"\d+{_POSSESSIVE}(?:\.\d+{_POSSESSIVE})?{_POSSESSIVE}"
# the end of a line holding one record: the newline, the end, or under 60 more characters without
# another "KV cache"
_ONE_RECORD_END = r"(?:(?=\n)|\Z|(?:(?!KV cache)[^\n]){1,59}(?![^\n]))"


@lru_cache(maxsize=64)
def quiet_pattern(max_running: int, kv_full: int) -> re.Pattern[bytes]:
    """A quiet record from just after its "Avg prompt throughput: " (AVG, which the scanner has
    found already: matching it again costs a third of the match) to the end of its line, the
    newline left out: Running <= max_running, Waiting 0, Preemptions absent or 0, KV usage
    below kv_full % (the floor of the KV runs), the prefix-cache rate last, then the end of the line or less than 60
    characters without another "KV cache" (the scanner's test for a line holding one record).
    Matched after the line's first AVG, it proves the line holds exactly that one record."""
    quiet = (rf"{_NUM} tokens/s, Avg generation throughput: {_NUM} tokens/s, "
             rf"Running: {at_most(max_running)} reqs, Waiting: 0 reqs, (?:Preemptions: 0, )?"
             rf"\w+ KV cache usage: {at_most(kv_full - 1)}(?:\.\d+{_POSSESSIVE})?{_POSSESSIVE}%, "
             rf"Prefix cache hit rate: {_NUM}%"
             + _ONE_RECORD_END)
    return re.compile(quiet.encode())


@lru_cache(maxsize=1)
def plain_pattern() -> re.Pattern[bytes]:
    """A plain V1 record from just after its AVG to the end of its line, its figures as groups
    (prompt and generation throughput, Running, Waiting, Preemptions or None, the device, KV
    usage): the usual form of a stats line that says something (requests waiting, the KV cache
    high, preemptions, a new highest Running), the only record on its line (the end as in
    quiet_pattern). What it matches, _STATS_FULL parses to the same figures."""
    plain = (rf"({_NUM}) tokens/s, Avg generation throughput: ({_NUM}) tokens/s, "
             rf"Running: (\d+) reqs, Waiting: (\d+) reqs, (?:Preemptions: (\d+), )?"
             rf"(\w+) KV cache usage: ({_NUM})%, Prefix cache hit rate: {_NUM}%"
             + _ONE_RECORD_END)
    return re.compile(plain.encode())


class QuietRegion:
    """The stats records of one region from its first quiet line on. While scanning, `spans`
    notes each stats line in order, as a pair: a quiet line's start and end, or a parsed
    line's list of records (never empty) and None. `keep` then holds only the last records a result can
    report (`lines`: a quiet line's bytes, or a parsed line's records), so a dense region
    costs a few hundred small copies rather than a copy of its bytes."""

    __slots__ = ("lines", "count", "spans")

    def __init__(self) -> None:
        self.lines: list = []
        self.count = 0  # records held in `lines`
        self.spans: list = []

    def keep(self, buf, want: int) -> None:
        """Copy the quiet lines among the region's last `want` stats lines out of `buf` (they hold
        at least `want` records), before the reader reuses it; drop the earlier ones (later
        records only push them further out)."""
        tail = self.spans[-2 * want:] if want > 0 else []
        kept = [bytes(buf[a:b]) if b is not None else a for a, b in zip(tail[::2], tail[1::2])]
        self.lines, self.spans = kept, []
        self.count = len(kept) + sum(len(item) - 1 for item in kept if type(item) is list)

    def records(self, parse) -> list:
        """The records in order; `parse(line_bytes)` turns a quiet line into its one record."""
        out: list = []
        for item in self.lines:
            if isinstance(item, bytes):
                out.append(parse(item))
            else:
                out.extend(item)
        return out
