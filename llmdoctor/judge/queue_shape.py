"""The shape of a queue over a log, because each shape has its own fix: a queue that keeps
growing (arrivals outpace service: more capacity), bursts that drain in between (the queue
absorbs them: shape the bursts or bound the queue), or a single spike (nothing structural).
Read from the longest run of stats lines with requests waiting and from how many such lines
there were in all: more waiting lines than the longest run means the queue drained and came back."""
from __future__ import annotations

from dataclasses import dataclass

from llmdoctor.judge import thresholds as T

GROWING, BURSTS, SPIKE, STEADY = "growing", "bursts", "spike", "steady"


@dataclass(frozen=True)
class QueueShape:
    """How a queue behaved over a log: growing, in bursts, one spike, or steady."""

    kind: str  # GROWING | BURSTS | SPIKE | STEADY
    evidence: str  # the figures that decided it, as a sentence


def queue_shape(run, waiting_lines: int, stats_lines: int) -> QueueShape | None:
    """The shape from the longest waiting run (length, first, last, peak), the number of stats
    lines with requests waiting and of stats lines in all; None without a run, or when the
    lines are too few to show a shape (a pasted excerpt of the queue alone)."""
    if run is None or run.length < 1:
        return None
    first, last = run.first.waiting, run.last.waiting
    figures = (f"longest run {run.length} line(s), Waiting {first:g} → {last:g} (peak {run.peak:g}); "
               f"{waiting_lines} line(s) with requests waiting in all")
    if waiting_lines > run.length:
        return QueueShape(BURSTS, figures + ": the queue drained to 0 and filled again")
    if (run.length >= T.QUEUE_TREND_MIN_LINES and last >= T.QUEUE_TREND_PEAK_SHARE * run.peak
            and last >= T.QUEUE_TREND_GROWTH * max(first, 1)):
        return QueueShape(GROWING, figures + ": it grew without draining")
    if run.length <= T.QUEUE_SPIKE_MAX_LINES:
        if stats_lines <= run.length + T.QUEUE_SPIKE_MAX_LINES:
            return None  # no quiet lines around it: a spike cannot be told from an excerpt
        return QueueShape(SPIKE, figures + f", of {stats_lines} stats lines: one short spike")
    return QueueShape(STEADY, figures + ": a standing queue")


# What to do about each shape, said after the finding's own explanation.
ADVICE = {
    GROWING: "The queue grew without draining: requests arrive faster than the server finishes them, "
             "so it will not recover by itself — add capacity (a replica, --data-parallel-size, or more "
             "running sequences where the KV cache has room).",
    BURSTS: "The queue drained between bursts: the server keeps up on average and the queue absorbs the "
            "bursts. Shape them (a concurrency limit or rate limit at the client or load balancer) or bound "
            "the wait (--max-num-queued-reqs); a replica only if the burst TTFT is unacceptable.",
    SPIKE: "A single short spike: nothing structural; watch whether it recurs before adding capacity.",
    STEADY: "",
}
