"""The shape of a queue over time, because each shape has its own fix: a queue that keeps
growing (arrivals outpace service: more capacity), bursts that drain in between (the queue
absorbs them: shape the bursts or bound the queue), or a single spike (nothing structural).
Read from the longest run of readings with requests waiting and from how many such readings
there were in all: more waiting readings than the longest run means the queue drained and came
back. The readings are a log's stats lines (vLLM `Waiting:`, SGLang `#queue-req:`) or the
exporter's history of the waiting count, one reading per cycle (llama-server's deferred too)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from llmdoctor.judge import thresholds as T

GROWING, BURSTS, SPIKE, STEADY = "growing", "bursts", "spike", "steady"
SHAPES = (GROWING, BURSTS, SPIKE, STEADY)


@dataclass(frozen=True)
class QueueShape:
    """How a queue behaved over a log: growing, in bursts, one spike, or steady."""

    kind: str  # GROWING | BURSTS | SPIKE | STEADY
    evidence: str  # the figures that decided it, as a sentence
    peak: float = 0.0  # the most requests waiting in the longest run

    def queue_cap(self) -> int:
        """A queue bound for bursts: twice the deepest burst seen still waits, a deeper one is
        refused at once (503, for the client to retry with back-off) instead of waiting without end."""
        return max(2 * int(math.ceil(self.peak)), 1)


@dataclass(frozen=True)
class _Point:
    waiting: float


@dataclass(frozen=True)
class _Run:
    length: int
    first: _Point
    last: _Point
    peak: float


def queue_shape(run, waiting_lines: int, stats_lines: int, unit: str = "line") -> QueueShape | None:
    """The shape from the longest waiting run (length, first, last, peak), the number of
    readings with requests waiting and of readings in all; None without a run, or when the
    readings are too few to show a shape (a pasted excerpt of the queue alone)."""
    if run is None or run.length < 1:
        return None
    first, last = run.first.waiting, run.last.waiting
    figures = (f"longest run {run.length} {unit}(s), Waiting {first:g} → {last:g} (peak {run.peak:g}); "
               f"{waiting_lines} {unit}(s) with requests waiting in all")
    if waiting_lines > run.length:
        return QueueShape(BURSTS, figures + ": the queue drained to 0 and filled again", run.peak)
    if (run.length >= T.QUEUE_TREND_MIN_LINES and last >= T.QUEUE_TREND_PEAK_SHARE * run.peak
            and last >= T.QUEUE_TREND_GROWTH * max(first, 1)):
        return QueueShape(GROWING, figures + ": it grew without draining", run.peak)
    if run.length <= T.QUEUE_SPIKE_MAX_LINES:
        if stats_lines <= run.length + T.QUEUE_SPIKE_MAX_LINES:
            return None  # no quiet readings around it: a spike cannot be told from an excerpt
        return QueueShape(SPIKE, figures + f", of {stats_lines} {unit}s: one short spike", run.peak)
    return QueueShape(STEADY, figures + ": a standing queue", run.peak)


def series_shape(values: Iterable[float], unit: str = "reading") -> QueueShape | None:
    """The shape of a queue read at successive times, oldest first (a value that is not a
    finite number is left out)."""
    clean = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    best: _Run | None = None
    start, peak = None, 0.0
    for i, v in enumerate(clean + [0.0]):  # the 0 closes a run that lasts to the end
        if v > 0:
            start = i if start is None else start
            peak = max(peak, v)
            continue
        if start is not None and (best is None or i - start > best.length):  # the first of equals, as the logs
            best = _Run(i - start, _Point(clean[start]), _Point(clean[i - 1]), peak)
        start, peak = None, 0.0
    return queue_shape(best, sum(1 for v in clean if v > 0), len(clean), unit)


# What to do about each shape, per engine, said after the finding's own explanation.
ADVICE = {
    GROWING: "The queue grew without draining: requests arrive faster than the server finishes them, "
             "so it will not recover by itself — add capacity (a replica, --data-parallel-size, or more "
             "running sequences where the KV cache has room).",
    BURSTS: "The queue drained between bursts: the server keeps up on average and the queue absorbs the "
            "bursts. Shape them (a concurrency limit or rate limit at the client or load balancer) or bound "
            "the wait (--max-num-queued-reqs, twice the deepest burst seen: deeper ones get a 503 to retry with "
            "back-off); a replica only if the burst TTFT is unacceptable.",
    SPIKE: "A single short spike: nothing structural, so no setting to change; watch whether it recurs "
           "before adding capacity.",
    STEADY: "",
}
SGLANG_ADVICE = {
    GROWING: "The queue grew without draining: requests arrive faster than SGLang finishes them, so it will "
             "not recover by itself — add capacity (a replica or --dp 2, or more running requests where the "
             "KV pool has room).",
    BURSTS: "The queue drained between bursts: SGLang keeps up on average and the queue absorbs the bursts. "
            "Shape them (a concurrency or rate limit at the client or load balancer) or bound the wait "
            "(--max-queued-requests, twice the deepest burst seen: deeper ones are refused, to retry with "
            "back-off); a replica only if the burst TTFT is unacceptable.",
    SPIKE: ADVICE[SPIKE],
    STEADY: "",
}
