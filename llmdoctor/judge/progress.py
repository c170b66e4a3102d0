"""Is the engine making progress? One verdict from what it answered: its health endpoint, its
counters across readings, and where it was sent, the first token of a 1-token request.

Ready: it proved progress (tokens advanced between readings while requests ran, or the
cheapest request got its first token). Stalled: it accepts connections or answers health
but makes none (requests in flight and no token across the window, or no first token within
the deadline). Loading: it says it is loading a model. Down: nothing answers. Failing: it
answers the cheapest request with an error. Unknown: it
could not be told (an engine with no counters and no request allowed, Ollama with no model
in memory, which a readiness check must never load).
"""
from __future__ import annotations

from llmdoctor.judge.thresholds import STALL_MIN_WINDOW_S
from llmdoctor.model import ExitCode, Record, record

READY, BUSY, STALLED, LOADING, DOWN, FAILING, UNKNOWN = "ready", "busy", "stalled", "loading", "down", "failing", "unknown"
EXIT = {READY: ExitCode.OK, BUSY: ExitCode.OK, STALLED: ExitCode.CRITICAL, LOADING: ExitCode.CRITICAL,
        DOWN: ExitCode.CRITICAL, FAILING: ExitCode.CRITICAL, UNKNOWN: ExitCode.UNKNOWN}


@record
class Progress(Record):
    """The verdict, why, and the lines that show it."""

    state: str
    reason: str
    evidence: tuple[str, ...] = ()
    seconds: float = 0.0  # how long it was watched (or the request waited)

    @property
    def exit_code(self) -> int:
        return EXIT[self.state]

    @property
    def serving(self) -> bool:
        return self.state in (READY, BUSY)


def from_readings(readings, health: str = "") -> Progress | None:
    """The verdict from counters alone, or None when they cannot tell (nothing in flight, or
    no token counter): then only a request of our own tells."""
    known = [r for r in readings if r.in_flight is not None or r.marks]
    if len(known) <= 1:
        return None
    first, last = known[0], known[-1]
    lines = tuple(r.describe() for r in (first, last)) + ((health,) if health else ())
    span = last.at - first.at
    moved = [b.advanced_since(a) for a, b in zip(known, known[1:])]
    if any(moved):
        if last.in_flight:
            return Progress(BUSY, f"serving: {last.in_flight} request(s) in flight and tokens advancing "
                                  f"over {span:.1f} s", lines, span)
        return Progress(READY, f"tokens advanced over {span:.1f} s", lines, span)
    busy_throughout = all(r.in_flight for r in known)
    if busy_throughout and all(m is False for m in moved) and span >= STALL_MIN_WINDOW_S:
        return Progress(STALLED, f"{last.in_flight} request(s) in flight and not one token generated in "
                                 f"{span:.1f} s", lines, span)
    return None


def from_request(status: str, waited: float, detail: str, health: str = "") -> Progress:
    """The verdict from our own 1-token request: "token" (a first token came), "timeout" (the
    port took the request and nothing came back), "refused" (nothing listens), "loading", or
    "error" (it answered with an error: detail says which)."""
    lines = tuple(x for x in (health, detail) if x)
    if status == "token":
        return Progress(READY, f"a 1-token request got its first token in {waited:.2f} s", lines, waited)
    if status == "timeout":
        return Progress(STALLED, f"the port is open but a 1-token request got no first token in {waited:.1f} s",
                        lines, waited)
    if status == "refused":
        return Progress(DOWN, "nothing accepts connections there", lines, waited)
    if status == "loading":
        return Progress(LOADING, "the engine is loading a model: not serving yet", lines, waited)
    return Progress(FAILING, f"a 1-token request failed: {detail or status}", lines, waited)
