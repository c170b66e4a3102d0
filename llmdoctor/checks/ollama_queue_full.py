"""QUEUE_FULL in Ollama: 503 "maximum pending requests exceeded", and a queue far deeper than the slots drain."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

UNBOUNDED = ("Requests for a model that is already loaded skip this queue and wait without any bound "
             "(ollama/ollama#7758), so a 503 means requests piled up behind a model load.")


@check(id="ollama-queue-full", cause=Cause.QUEUE_FULL,
       purpose='Ollama answered 503 "server busy ... maximum pending requests exceeded"', engines=("ollama",))
def queue_full(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    n503, text = ollama_log.status_503, ollama_log.max_pending
    if not (n503.count or text.count):
        return
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import settings_fix

    yield Finding(
        Cause.QUEUE_FULL, Severity.CRITICAL,
        f"Ollama rejected requests: queue full ({n503.count} HTTP 503 in the access log, "
        f"{text.count} 'maximum pending requests exceeded' messages)",
        evs(text.examples[:3]) + evs(n503.examples[:3]),
        Fix("More requests waited for a model (re)load than OLLAMA_MAX_QUEUE allows. Keep the model loaded "
            "(OLLAMA_KEEP_ALIVE=-1, one num_ctx for all clients) so requests are not stuck behind loads, add "
            "slots, and make clients back off on 503. " + UNBOUNDED,
            *settings_fix(ollama_deployment, OLLAMA_KEEP_ALIVE="-1", OLLAMA_NUM_PARALLEL=4)),
    )


@check(id="ollama-deep-queue", cause=Cause.QUEUE_FULL,
       purpose="OLLAMA_MAX_QUEUE lets far more requests wait than the slots can drain",
       engines=("ollama",))
def deep_queue(
    ollama_config: OllamaConfig,
    ollama_log: OllamaLogSummary | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.judge.ollama import config_evidence, slots
    from llmdoctor.judge.fixes import settings_fix

    s = slots(ollama_config, ollama_log)
    raw = ollama_config.get("OLLAMA_MAX_QUEUE")
    if s is None or not s.count or not raw or not raw.isdecimal():
        return
    depth = int(raw)
    peak = ollama_log.requests.peak_in_flight if ollama_log is not None else 0
    chosen = "OLLAMA_MAX_QUEUE" in ollama_config.assigned
    observed = peak > 2 * s.count
    if depth < 32 * s.count or not (chosen or observed):
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
        Fix(f"Fail fast instead of queueing for minutes: set OLLAMA_MAX_QUEUE to a few requests per slot "
            f"(e.g. {short}), give clients a timeout and retry with back-off, and cap concurrency in the proxy "
            f"in front of Ollama. " + UNBOUNDED, *settings_fix(ollama_deployment, OLLAMA_MAX_QUEUE=short)),
        confidence=Confidence.MEDIUM,
    )


BURST = 5  # fast 5xx answers within one second that look like a queue turning requests away


@check(id="ollama-rejected-burst", cause=Cause.QUEUE_FULL,
       purpose="A same-second burst of fast HTTP 500s (queue full in Ollama <= 0.1.33), or 'llm busy - no slots available'",
       engines=("ollama",))
def rejected_burst(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import plus_commands, settings_fix

    if ollama_log.status_503.count or ollama_log.max_pending.count:
        return  # ollama-queue-full says it with the server's own words
    size, busy = ollama_log.fast_error_burst_size, ollama_log.busy
    if size < BURST and not busy.count:
        return
    ev = evs(ollama_log.fast_error_burst[:3]) if size >= BURST else []
    if size >= BURST:
        ev.append(Evidence("ollama access log", f"{size} inference requests answered 5xx within the same second, "
                                                f"each in under a second: turned away before reaching the model"))
    ev += evs(busy.examples[:2])
    yield Finding(
        Cause.QUEUE_FULL, Severity.WARNING,
        (f"Ollama turned away a burst of {size} requests in one second" if size >= BURST else
         "Ollama's runner answered 'llm busy - no slots available'"),
        ev,
        Fix("More requests arrived at once than Ollama would queue. Before 0.1.34 the queue held 10 and overflow "
            "was a plain HTTP 500 (ollama/ollama#4124); later versions hold OLLAMA_MAX_QUEUE (512) and answer 503. "
            "Upgrade, raise OLLAMA_MAX_QUEUE, and cap the client's concurrency with retry and back-off. If the "
            "burst came while the model was still loading, warm it first. A burst of 500s can also be a model "
            "that fails to load: check the lines around it for a load error.",
            *plus_commands(settings_fix(ollama_deployment, OLLAMA_MAX_QUEUE=512, OLLAMA_NUM_PARALLEL=4), ("ollama -v",))),
        confidence=Confidence.MEDIUM)
