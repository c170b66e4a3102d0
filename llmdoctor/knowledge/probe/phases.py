"""Where each probe request spent its time, on the probe's shared clock.

A request's life: sent, then waiting (for a free slot, or the network), then the model
loading (Ollama's load_duration), then prefill (the prompt processed: the server's own
prompt time, prompt tokens over prefill tokens/s), then decoding from the first token
to the last. The probe records the client-side instants (`sent_s`, `ttft_s`, every
chunk); the server's counts split the time before the first token into waiting, load
and prefill. Without those counts the split is unknown and said so (`prefill` None),
never guessed. Pure arithmetic: drawn by render/timeline.py and render/html.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from llmdoctor.knowledge.probe.result import ProbeResult, StreamSample

WAITING, LOADING, PREFILL, BEFORE_FIRST, DECODING, FAILED = (
    "waiting", "loading", "prefill", "before first token", "decoding", "failed")


@dataclass(frozen=True)
class Segment:
    kind: str
    start: float  # seconds since the probe started
    end: float


@dataclass(frozen=True)
class RequestPhases:
    id: str
    scenario: str
    sent: float
    first_token: float | None  # probe-relative; None when no token came
    last_token: float | None
    segments: tuple[Segment, ...]
    status: str = "ok"

    @property
    def ttft(self) -> float | None:
        return None if self.first_token is None else self.first_token - self.sent

    @property
    def end(self) -> float:
        return max((s.end for s in self.segments), default=self.sent)


def _prefill_seconds(s: StreamSample) -> float | None:
    """The server's time for the prompt, from its own counts (None when it gave none)."""
    if s.prompt_tokens and s.prefill_tps and s.prefill_tps > 0:
        return s.prompt_tokens / s.prefill_tps
    return None


def request_phases(s: StreamSample) -> RequestPhases:
    """The segments of one request (empty ones left out)."""
    segs: list[Segment] = []
    if s.ttft_s is None:
        end = s.sent_s + (s.end_s if s.end_s is not None else 0.0)
        if end > s.sent_s:
            segs.append(Segment(FAILED if not s.ok else BEFORE_FIRST, s.sent_s, end))
        return RequestPhases(s.id, s.scenario, s.sent_s, None, None, tuple(segs), s.status)
    first = s.sent_s + s.ttft_s
    prefill, load = _prefill_seconds(s), max(0.0, s.load_s or 0.0)
    if prefill is None:
        segs.append(Segment(BEFORE_FIRST, s.sent_s, first))
    else:
        prefill = min(prefill, s.ttft_s)
        load = min(load, s.ttft_s - prefill)
        wait_end = first - prefill - load
        segs += [Segment(WAITING, s.sent_s, wait_end), Segment(LOADING, wait_end, wait_end + load),
                 Segment(PREFILL, wait_end + load, first)]
    last = s.last_token_at if s.last_token_at is not None else first
    segs.append(Segment(DECODING, first, max(first, last)))
    kept = tuple(g for g in segs if g.end > g.start or g.kind == DECODING)
    return RequestPhases(s.id, s.scenario, s.sent_s, first, last, kept, s.status)


def probe_phases(result: ProbeResult) -> list[RequestPhases]:
    """Every request of one probe run, in the order they were sent (by id within 10 ms)."""
    return [request_phases(s) for s in sorted(result.samples, key=lambda s: (round(s.sent_s, 2), s.id))]
