"""How far the probe's client-side clock is from llama-server's own `timings`.

Like is compared with like: the server's `prompt_ms` against the client's TTFT
minus the network round trip (the server starts timing after it has the request),
and the server's `predicted_per_token_ms` (a mean: `predicted_ms`, from the first
token to the last, over `predicted_n`) against the client's first-to-last span over
the same count. Each is the median over the requests. The client's median gap is
reported too; on a busy machine it sits below the mean. Used by the tests and by
bench/probe_accuracy.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from llmdoctor.knowledge.probe.result import StreamSample
from llmdoctor.knowledge.probe.stats import p50


@dataclass(frozen=True)
class Agreement:
    samples: int
    ttft_client_ms: float       # median TTFT minus round trip
    ttft_server_ms: float       # median prompt_ms
    itl_client_ms: float        # median of each request's (last - first chunk) / predicted_n
    itl_server_ms: float        # median predicted_per_token_ms
    itl_client_p50_ms: float    # median of each request's median gap

    @property
    def ttft_error(self) -> float:
        return abs(self.ttft_client_ms - self.ttft_server_ms) / self.ttft_server_ms

    @property
    def itl_error(self) -> float:
        return abs(self.itl_client_ms - self.itl_server_ms) / self.itl_server_ms


def _timed(samples: Iterable[StreamSample]) -> list[StreamSample]:
    """The samples that carry llama-server timings to compare against."""
    return [s for s in samples if s.ok and s.counts_from == "timings" and s.ttft_s is not None
            and s.server.get("prompt_ms") and s.server.get("predicted_per_token_ms") and len(s.chunk_s) >= 3]


def _client_itl_ms(s: StreamSample) -> float:
    """First-to-last chunk span over the server's `predicted_n` (the count it averaged over)."""
    return (s.chunk_s[-1] - s.chunk_s[0]) * 1000 / float(s.server.get("predicted_n") or len(s.chunk_s))


def agreement(samples: Iterable[StreamSample], rtt_s: float | None) -> Agreement | None:
    """None unless at least one sample carries llama-server timings."""
    rows = _timed(samples)
    if not rows:
        return None
    rtt = rtt_s or 0.0
    return Agreement(
        samples=len(rows),
        ttft_client_ms=p50((s.ttft_s - rtt) * 1000 for s in rows),
        ttft_server_ms=p50(float(s.server["prompt_ms"]) for s in rows),
        itl_client_ms=p50(_client_itl_ms(s) for s in rows),
        itl_server_ms=p50(float(s.server["predicted_per_token_ms"]) for s in rows),
        itl_client_p50_ms=p50(p50(s.itl) * 1000 for s in rows),
    )


def relative_errors(samples: Iterable[StreamSample], rtt_s: float | None) -> tuple[list[float], list[float]]:
    """Per request: |client - server| / server for TTFT and for ITL (same pairing as above)."""
    ttft, itl = [], []
    rtt = rtt_s or 0.0
    for s in _timed(samples):
        prompt_ms, per_token_ms = float(s.server["prompt_ms"]), float(s.server["predicted_per_token_ms"])
        ttft.append(abs((s.ttft_s - rtt) * 1000 - prompt_ms) / prompt_ms)
        itl.append(abs(_client_itl_ms(s) - per_token_ms) / per_token_ms)
    return ttft, itl
