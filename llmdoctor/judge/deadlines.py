"""Whether a back-to-back chain of requests (knowledge/concurrency.py) was sent together: its
clients kept giving up at one deadline behind a busy server.

The parser reports how many of a chain's failed requests stopped at each round duration; one
such failure is one runaway generation meeting its client's limit, several at the same round
duration are a limit the queue keeps hitting (thresholds MIN_DEADLINE_S, DEADLINE_HITS).
"""
from __future__ import annotations

from llmdoctor.judge import thresholds as T


def deadline(chain) -> tuple[float, int] | None:
    """(the client deadline, how many of the chain's requests failed at it) when the chain's
    clients kept hitting one, else None. Of the round durations MIN_DEADLINE_S or longer, the
    one most requests stopped at (the longer on a tie)."""
    named = [(secs, n) for secs, n in chain.failed_at if secs >= T.MIN_DEADLINE_S]
    if not named:
        return None
    secs, n = max(named, key=lambda kv: (kv[1], kv[0]))
    return (secs, n) if n >= T.DEADLINE_HITS else None


def sent_together(chain) -> bool:
    return deadline(chain) is not None
