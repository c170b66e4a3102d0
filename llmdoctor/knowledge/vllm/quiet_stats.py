"""Quiet vLLM stats lines: one regex match each, so the scanner skips their parsing.

A busy server writes a stats line every few seconds, and most say nothing new: Waiting 0, no
preemptions, KV cache below the full mark, and a Running count no higher than one already
seen. Such a *quiet* line only adds one to the stats count, ends a waiting or KV-full run and
may become one of the recent records. `quiet_pattern()` is the one bytes pattern that
recognises it from its "Avg prompt throughput: " to the end of the line, in C; the scanner
then keeps the line's bytes (`QuietRegion`) and parses them only if they end up among the
recent records that a result reports.
"""
from __future__ import annotations

import re
from functools import lru_cache

AVG = b"Avg prompt throughput: "
USAGE = b" KV cache usage: "
NL = b"\n"
# at most this many quiet records per MiB are copied one line at a time; denser regions are
# copied whole (one memcpy is cheaper than many small slices)
LINES_PER_MIB = 48


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


def kv_full_mark(kv_full_pct: float) -> int | None:
    """The KV-full threshold as a whole percentage, or None when it is not one (no quiet
    pattern then: the scanner reads every stats line)."""
    if kv_full_pct != int(kv_full_pct) or not 1 <= kv_full_pct <= 1000:
        return None
    return int(kv_full_pct)


@lru_cache(maxsize=64)
def quiet_pattern(max_running: int, kv_full: int) -> re.Pattern[bytes]:
    """A quiet record from its "Avg prompt throughput: " to the end of its line (the newline
    included): Running <= max_running, Waiting 0, Preemptions absent or 0, KV usage below
    kv_full %, the prefix-cache rate last and less than 60 characters after it (the
    scanner's test for a line holding one record). Matched where the line's first
    "Avg prompt throughput: " is, it proves the line holds exactly that one record."""
    quiet = (r"\d+(?:\.\d+)? tokens/s, Avg generation throughput: \d+(?:\.\d+)? tokens/s, "
             rf"Running: {at_most(max_running)} reqs, Waiting: 0 reqs, (?:Preemptions: 0, )?"
             rf"\w+ KV cache usage: {at_most(kv_full - 1)}(?:\.\d+)?%, Prefix cache hit rate: \d+(?:\.\d+)?%"
             r"[^\n]{0,59}(?:\n|\Z)")
    return re.compile(re.escape(AVG) + quiet.encode())


class QuietRegion:
    """The stats records of one region from its first quiet line on (`first`): either its
    bytes (`blob`) or, when they are few, the quiet lines themselves; `slow` maps the start
    of each line the scanner parsed there to the records it gave."""

    __slots__ = ("first", "blob", "lines", "slow", "count", "spans")

    def __init__(self, first: int) -> None:
        self.first = first
        self.blob: bytes | None = None
        self.lines: list | None = None  # bytes (a quiet line) or a list of records (a parsed line)
        self.slow: dict[int, list] = {}
        self.count = 0
        # the region's stats lines in order, as the scanner met them: a quiet line's start and
        # end (two ints), a parsed line's list of records (the same list as in `slow`)
        self.spans: list = []

    def keep(self, buf, end: int) -> None:
        """Hold on to what the quiet records need, before the reader reuses `buf`."""
        begin = self.first
        if (self.count - len(self.slow)) * 1024 * 1024 > LINES_PER_MIB * max(1, end - begin):
            self.blob = bytes(memoryview(buf)[begin:end])
            self.spans = []
            return
        lines: list = []
        spans = self.spans
        i, n = 0, len(spans)
        while i < n:  # no search: the scanner noted where each line is
            item = spans[i]
            if isinstance(item, list):
                lines.append(item)
                i += 1
            else:
                lines.append(bytes(buf[item:spans[i + 1]]))
                i += 2
        self.lines, self.slow, self.spans = lines, {}, []

    def records(self, parse) -> list:
        """The records in order; `parse(line_bytes)` turns a quiet line into its one record."""
        out: list = []
        if self.lines is not None:
            for item in self.lines:
                if isinstance(item, bytes):
                    out.append(parse(item))
                else:
                    out.extend(item)
            return out
        blob, base = self.blob, self.first
        assert blob is not None
        find, rfind = blob.find, blob.rfind
        p = find(USAGE)
        while p != -1:
            ls = rfind(NL, 0, p) + 1
            le = find(NL, p)
            le = len(blob) if le == -1 else le
            raws = self.slow.get(ls + base)
            if raws is not None:
                out.extend(raws)
            else:
                out.append(parse(blob[ls:le]))
            p = find(USAGE, le + 1)
        return out
