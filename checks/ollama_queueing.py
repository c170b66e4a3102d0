"""QUEUEING in Ollama: one slot per model, and access logs that show requests served one at a time."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

KV_WARNING = ("Each slot reserves its own context of KV cache (memory = slots x num_ctx x bytes per token), "
              "so more slots can push layers to the CPU: check `ollama ps` afterwards, and lower "
              "OLLAMA_CONTEXT_LENGTH or set OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1 if it splits.")


@check(id="ollama-one-slot", cause=Cause.QUEUEING,
       purpose="Ollama runs one slot per model (OLLAMA_NUM_PARALLEL=1 set, by the version's default, or forced by the architecture)",
       engines=("ollama",), needs=("ollama_config", "ollama_log"))
def one_slot(
    ollama_config: OllamaConfig | None = None,
    ollama_log: OllamaLogSummary | None = None,
    ollama_deployment: str | None = None,
):
    if ollama_config is None and ollama_log is None:
        return  # no Ollama here (and the figures module stays unimported)
    from llmdoctor.judge.ollama import evs, slots
    from llmdoctor.judge.fixes import env, remedy_fix

    if ollama_log is not None and ollama_log.forced_single_slot.count:
        yield Finding(
            Cause.QUEUEING, Severity.WARNING,
            "Ollama forced this model to one slot: its architecture does not support parallel requests",
            evs(ollama_log.forced_single_slot.examples),
            Fix("OLLAMA_NUM_PARALLEL cannot help this model: requests to it run one at a time. Use a model of "
                "another architecture for concurrent users, or run a second instance/engine (vLLM, llama-server) for it."),
        )
        return
    s = slots(ollama_config, ollama_log)
    if s is None or s.count != 1:
        return
    # One slot is a setting, not yet a problem: it is one only where requests overlapped.
    r = ollama_log.requests if ollama_log is not None else None
    overlapped = r is not None and (r.concurrent_groups > 0 or r.peak_in_flight > 1)
    ev = list(s.evidence or (Evidence("ollama_config", s.how),))
    if overlapped:
        ev.append(Evidence("ollama access log", f"{r.concurrent_groups} group(s) of requests in flight together "
                                                f"(up to {max(r.peak_in_flight, 2)} at once)"))
    yield Finding(
        Cause.QUEUEING, Severity.WARNING if overlapped else Severity.INFO,
        f"Ollama serves one request at a time per model ({s.how}); concurrent users wait in line",
        ev,
        remedy_fix("Raise OLLAMA_NUM_PARALLEL in the service (4 is a common start) and restart. " + KV_WARNING,
            env(ollama_deployment, OLLAMA_NUM_PARALLEL=4)),
        confidence=Confidence.HIGH if s.from_runner and overlapped else Confidence.MEDIUM,
    )


@check(id="ollama-serialized-requests", cause=Cause.QUEUEING,
       purpose="Access-log requests that were in flight together finished strictly one after another",
       engines=("ollama",))
def serialized_requests(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    if not ollama_log.requests.groups:
        return  # (no requests in flight together: the judge module stays unimported)
    from llmdoctor.judge.ollama import evs, serial_service

    r = serial_service(ollama_log.requests)
    if not r.bursts or r.parallel_pairs:
        return
    from llmdoctor.judge.fixes import env, remedy_fix

    yield Finding(
        Cause.QUEUEING, Severity.WARNING,
        f"Requests that arrived together were answered one at a time ({r.bursts} such burst(s) in the access log)",
        [Evidence("ollama access log", r.figures)] + evs(r.examples),
        remedy_fix("The model has one slot. Raise OLLAMA_NUM_PARALLEL (the durations grow by one full answer per "
            "request waiting ahead). " + KV_WARNING, env(ollama_deployment, OLLAMA_NUM_PARALLEL=4)),
    )
