"""OLLAMA_MAX_QUEUE lets far more requests wait than the slots can drain."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import OLLAMA_DEEP_QUEUE_OBSERVED_PER_SLOT, OLLAMA_DEEP_QUEUE_PER_SLOT

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
from llmdoctor.judge.fixes import OLLAMA_UNBOUNDED_QUEUE


@check(id="ollama-deep-queue", cause=Cause.QUEUE_FULL,
       purpose="OLLAMA_MAX_QUEUE lets far more requests wait than the slots can drain",
       engines=("ollama",))
def deep_queue(
    ollama_config: OllamaConfig,
    ollama_log: OllamaLogSummary | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.judge.ollama import config_evidence, slots
    from llmdoctor.judge.fixes import env, remedy_fix

    s = slots(ollama_config, ollama_log)
    raw = ollama_config.get("OLLAMA_MAX_QUEUE")
    if s is None or not s.count or not raw or not raw.isdecimal():
        return
    depth = int(raw)
    peak = ollama_log.requests.peak_in_flight if ollama_log is not None else 0
    chosen = "OLLAMA_MAX_QUEUE" in ollama_config.assigned
    observed = peak > OLLAMA_DEEP_QUEUE_OBSERVED_PER_SLOT * s.count
    if depth < OLLAMA_DEEP_QUEUE_PER_SLOT * s.count or not (chosen or observed):
        return
    evidence = [config_evidence(ollama_config, "OLLAMA_MAX_QUEUE")] + list(s.evidence)
    if observed:
        evidence.append(Evidence("ollama access log", f"up to {peak} requests in flight at once for {s.count} slot(s)"))
    short = max(4 * s.count, 8)
    yield Finding(
        Cause.QUEUE_FULL, Severity.WARNING,
        f"Up to {depth} requests may wait for {s.count} slot(s): {depth // s.count} per slot, far more than can "
        f"be served before clients time out",
        evidence,
        remedy_fix(f"Fail fast instead of queueing for minutes: set OLLAMA_MAX_QUEUE to a few requests per slot "
            f"(e.g. {short}), give clients a timeout and retry with back-off, and cap concurrency in the proxy "
            f"in front of Ollama. " + OLLAMA_UNBOUNDED_QUEUE, env(ollama_deployment, OLLAMA_MAX_QUEUE=short)),
        confidence=Confidence.MEDIUM,
    )
