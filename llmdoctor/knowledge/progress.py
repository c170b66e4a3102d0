"""What an engine says about its own progress, as values: requests in flight and the tokens it
has generated so far, read from its own counters (pure: the answers are fetched in
facts/progress.py; judge/progress.py decides).

A health endpoint proves the HTTP server answers, not that the engine serves: vLLM's
`/health` has answered 200 while its engine core was wedged, Ollama's `/` says "Ollama is
running" while every generate hangs. Tokens generated between two readings prove it.

Sources (metric names as the engines export them):
- llama-server `/metrics` (--metrics): `llamacpp:tokens_predicted_total` (counter),
  `llamacpp:requests_processing`, `llamacpp:requests_deferred` (gauges); `/slots`:
  `is_processing` and `n_decoded` per slot (next_token[0].n_decoded in newer builds);
- vLLM `/metrics`: `vllm:generation_tokens_total`, `vllm:num_requests_running`,
  `vllm:num_requests_waiting`;
- SGLang `/metrics` (--enable-metrics): `sglang:generation_tokens_total`,
  `sglang:num_running_reqs`, `sglang:num_queue_reqs`.
Ollama exports no counters: only a request of its own tells.
"""
from __future__ import annotations

from typing import Any

from llmdoctor.model import Record, record
from llmdoctor.parsing import ParseError

# engine -> (generated-token counter names, running gauge names, waiting gauge names)
COUNTERS = {
    "llamacpp": (("llamacpp:tokens_predicted_total", "llamacpp_tokens_predicted_total"),
                 ("llamacpp:requests_processing", "llamacpp_requests_processing"),
                 ("llamacpp:requests_deferred", "llamacpp_requests_deferred")),
    "vllm": (("vllm:generation_tokens_total",), ("vllm:num_requests_running",), ("vllm:num_requests_waiting",)),
    "sglang": (("sglang:generation_tokens_total",), ("sglang:num_running_reqs",), ("sglang:num_queue_reqs",)),
}


@record
class Reading(Record):
    """One look at the engine's counters; None where it did not say. `at`: seconds on the
    sampler's monotonic clock."""

    at: float
    source: str
    generated: float | None = None  # the engine's generated-token counter
    running: int | None = None
    waiting: int | None = None
    marks: tuple = ()

    def advanced_since(self, earlier: "Reading") -> bool | None:
        """Did any progress figure move between `earlier` and this reading? None: not known."""
        if not self.marks or not earlier.marks:
            return None
        return self.marks != earlier.marks

    @property
    def in_flight(self) -> int | None:
        if self.running is None and self.waiting is None:
            return None
        return (self.running or 0) + (self.waiting or 0)

    def describe(self) -> str:
        parts = []
        if self.running is not None:
            parts.append(f"{self.running} running")
        if self.waiting is not None:
            parts.append(f"{self.waiting} waiting")
        slots = [m for m in self.marks if isinstance(m, tuple)]
        if slots:
            parts.append(f"slot tasks/prompt/decoded {', '.join('/'.join('-' if x is None else str(x) for x in m) for m in slots)}")
        elif self.generated is not None:
            parts.append(f"{self.generated:,.0f} tokens generated so far")
        return f"{self.source}: " + (", ".join(parts) if parts else "no progress figures")


def _int(v: float | None) -> int | None:
    return None if v is None else int(v)


def reading(engine: str, at: float, metrics: str | None = None, slots: Any = None) -> Reading:
    """A Reading from a /metrics text and (llama-server) a /slots answer; garbage reads as
    figures unknown, never as an error."""
    from llmdoctor.knowledge.prom import parse_exposition

    names = COUNTERS.get(engine)
    generated = running = waiting = None
    sources = []
    if names and metrics:
        try:
            exp = parse_exposition(metrics)
        except ParseError:
            exp = None
        if exp is not None and (exp.first_present(*names[0]) or exp.first_present(*names[1])):
            sources.append("/metrics")
            generated, running, waiting = exp.total(*names[0]), _int(exp.total(*names[1])), _int(exp.total(*names[2]))
    marks: tuple = () if generated is None else (generated,)
    if engine == "llamacpp" and isinstance(slots, list):
        entries = [s for s in slots if isinstance(s, dict)]
        if entries:
            sources.append("/slots")
            busy = sum(1 for s in entries if s.get("is_processing") is True
                       or (s.get("is_processing") is None and s.get("state") == 1))
            running = max(running or 0, busy)
            per_slot = tuple((s.get("id_task"), s.get("n_prompt_tokens_processed"), _decoded(s)) for s in entries)
            if any(x is not None for slot in per_slot for x in slot):
                marks += per_slot
    return Reading(at, ", ".join(sources) or "no progress endpoint answered", generated, running, waiting, marks)


def _decoded(slot: dict) -> int | None:
    """Tokens decoded for the slot's current request (`next_token[0].n_decoded` in newer
    builds, `n_decoded` at the top in older ones)."""
    nt = slot.get("next_token")
    if isinstance(nt, list) and nt and isinstance(nt[0], dict):
        nt = nt[0]
    v = nt.get("n_decoded") if isinstance(nt, dict) else slot.get("n_decoded")
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None
