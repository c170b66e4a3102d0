"""A same-second burst of fast HTTP 500s (queue full in Ollama <= 0.1.33), or 'llm busy - no slots available'."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.judge.thresholds import OLLAMA_REJECTED_BURST
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-rejected-burst", cause=Cause.QUEUE_FULL,
       purpose="A same-second burst of fast HTTP 500s (queue full in Ollama <= 0.1.33), or 'llm busy - no slots available'",
       engines=("ollama",))
def rejected_burst(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import env, remedy_fix

    if ollama_log.status_503.count or ollama_log.max_pending.count:
        return  # ollama-queue-full says it with the server's own words
    size, busy = ollama_log.fast_error_burst_size, ollama_log.busy
    if size < OLLAMA_REJECTED_BURST and not busy.count:
        return
    ev = evs(ollama_log.fast_error_burst[:3]) if size >= OLLAMA_REJECTED_BURST else []
    if size >= OLLAMA_REJECTED_BURST:
        ev.append(Evidence("ollama access log", f"{size} inference requests answered 5xx within the same second, "
                                                f"each in under a second: turned away before reaching the model"))
    ev += evs(busy.examples[:2])
    yield Finding(
        Cause.QUEUE_FULL, Severity.WARNING,
        (f"Ollama turned away a burst of {size} requests in one second" if size >= OLLAMA_REJECTED_BURST else
         "Ollama's runner answered 'llm busy - no slots available'"),
        ev,
        remedy_fix("More requests arrived at once than Ollama would queue. Before 0.1.34 the queue held 10 and overflow "
            "was a plain HTTP 500 (ollama/ollama#4124); later versions hold OLLAMA_MAX_QUEUE (512) and answer 503. "
            "Upgrade, raise OLLAMA_MAX_QUEUE, and cap the client's concurrency with retry and back-off. If the "
            "burst came while the model was still loading, warm it first. A burst of 500s can also be a model "
            "that fails to load: check the lines around it for a load error.",
            env(ollama_deployment, before=("ollama -v",), OLLAMA_MAX_QUEUE=512, OLLAMA_NUM_PARALLEL=4)),
        confidence=Confidence.MEDIUM)
