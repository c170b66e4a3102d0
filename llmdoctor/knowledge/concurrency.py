"""Requests in flight over time, rebuilt from access-log intervals. Pure: spans in, series and waits out.

An access line gives one request's span. Ollama's gin line is printed when the request ends,
with its duration, so the start is `end - duration`; the line's clock is whole seconds, which
is the log's *resolution*: two spans that meet within it cannot be told apart from touching.
Ollama's gin duration covers the wait in Ollama's own queue, so requests that queued there
overlap; a client (or a proxy) that holds requests back and sends them one at a time makes
them *back to back* instead: each starts within the resolution of the previous one's end.
Back to back alone is also what one user (or one agent) sending one request after another
looks like, so a chain is called a queue only with a sign that the requests were sent
together: several requests failing at the same round duration (a client deadline hit again
and again behind a busy server). This module reports each chain's failures by the round
duration they stopped at; how short a deadline is worth naming and how many hits make a queue
is judge/deadlines.py's call. Durations that grow along a back-to-back chain are not such
a sign: a queue inside the engine makes spans overlap (see `waits_one_slot`), and growing
spans back to back are a conversation whose prompt grows turn by turn.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from llmdoctor.model import Record, record

# A client deadline is a round number of seconds, set by a person: a multiple of 5 s (10 s, 30 s,
# 5m0s, 30m0s). gin prints durations under a minute to the nanosecond, so one stopped by its own
# end almost never lands within ROUND_TOLERANCE_S of one; from a minute on it truncates them to
# the second (`29m59s` for a 30-minute deadline), so there the tolerance is that second.
ROUND_STEP_S = 5.0
ROUND_TOLERANCE_S = 0.05
FAILED = frozenset((499, 500, 502, 503, 504))


@record
class Span(Record):
    """One request: [start, end] in seconds (any epoch), its HTTP status and the line it came from."""

    start: float
    end: float
    status: int = 0
    example: Any = None

    @property
    def seconds(self) -> float:
        return self.end - self.start


def span_from_end(end: float, seconds: float, status: int = 0, example: Any = None) -> Span:
    """A span from an access line that gives the end and the duration (Ollama's gin)."""
    return Span(end - max(seconds, 0.0), end, status, example)


def in_flight(spans: Iterable[Span], resolution: float = 1.0) -> list[tuple[float, int]]:
    """The step series (time, requests in flight from then on). A span counts from `resolution`
    after its start: spans that meet within the log's resolution do not overlap."""
    events = sorted(ev for s in spans if s.end - s.start > resolution
                    for ev in ((s.start + resolution, 1), (s.end, -1)))
    out: list[tuple[float, int]] = []
    cur = 0
    for t, step in events:
        cur += step
        if out and out[-1][0] == t:
            out[-1] = (t, cur)
        else:
            out.append((t, cur))
    return out


def peak(series: Sequence[tuple[float, int]]) -> int:
    return max((n for _, n in series), default=0)


def waits_one_slot(spans: Sequence[Span]) -> list[float]:
    """Seconds each request waited, where one slot served them in the order they ended and
    each span covers its wait (Ollama's gin): service began when the previous one ended."""
    c = sorted(spans, key=lambda s: s.end)
    return [0.0] + [max(0.0, c[i - 1].end - c[i].start) for i in range(1, len(c))]


def deadline_of(seconds: float) -> float | None:
    """The round duration a request stopped at (knowing gin's precision), or None. Whether it
    is long enough to be a client's deadline is judge/deadlines.py's call."""
    if not seconds > 0 or seconds > 1e7:
        return None
    nearest = round(seconds / ROUND_STEP_S) * ROUND_STEP_S
    tolerance = 1.0 if seconds >= 60 else ROUND_TOLERANCE_S
    if nearest <= 0:
        return None
    return nearest if -tolerance <= seconds - nearest <= (tolerance if seconds < 60 else ROUND_TOLERANCE_S) else None


def is_round(seconds: float) -> bool:
    return deadline_of(seconds) is not None


@record
class Chain(Record):
    """Requests served back to back (each started within the resolution of the previous end)."""

    spans: tuple[Span, ...]
    gaps: tuple[float, ...]  # start of each request minus the previous end (negative within resolution)
    # (round duration, requests of the chain that failed after exactly that long), most hits first
    failed_at: tuple[tuple[float, int], ...]
    waited_s: float  # the last request's start minus the first's: its wait, if sent together


def _failed_at(spans: Sequence[Span]) -> tuple[tuple[float, int], ...]:
    counts: dict[float, int] = {}
    for s in spans:
        d = deadline_of(s.seconds) if s.status in FAILED else None
        if d is not None:
            counts[float(d)] = counts.get(float(d), 0) + 1
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0])))


def chains(spans: Iterable[Span], resolution: float = 1.0, min_len: int = 3) -> list[Chain]:
    """Maximal runs of at least `min_len` requests, ordered by end, each starting within
    `resolution` of the previous end (not before it by more: that is an overlap, a queue the
    engine itself shows, nor after it by more: that is a pause). Requests no longer than the
    resolution take no part: a burst of instant answers meets end to start by itself."""
    ordered = sorted((s for s in spans if s.seconds > resolution), key=lambda s: s.end)
    runs: list[list[Span]] = []
    for s in ordered:
        if runs and abs(s.start - runs[-1][-1].end) <= resolution:
            runs[-1].append(s)
        else:
            runs.append([s])
    out = []
    for run in runs:
        if len(run) < min_len:
            continue
        gaps = tuple(round(run[i].start - run[i - 1].end, 3) for i in range(1, len(run)))
        out.append(Chain(tuple(run), gaps, _failed_at(run), round(run[-1].start - run[0].start, 3)))
    return out
