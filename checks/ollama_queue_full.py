"""QUEUE_FULL in Ollama: 503 "maximum pending requests exceeded", and a queue far deeper than the slots drain."""
from llmdoctor.checks import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

UNBOUNDED = ("Requests for a model that is already loaded skip this queue and wait without any bound "
             "(ollama/ollama#7758), so a 503 means requests piled up behind a model load.")


@check(id="ollama-queue-full", cause=Cause.QUEUE_FULL,
       purpose='Ollama answered 503 "server busy ... maximum pending requests exceeded"')
def queue_full(ollama_log):
    n503, text = ollama_log.status_503, ollama_log.max_pending
    if not (n503.count or text.count):
        return
    from llmdoctor.engines.ollama_figures import dropin, dropin_commands, evs

    yield Finding(
        Cause.QUEUE_FULL, Severity.CRITICAL,
        f"Ollama rejected requests: queue full ({n503.count} HTTP 503 in the access log, "
        f"{text.count} 'maximum pending requests exceeded' messages)",
        evs(text.examples[:3]) + evs(n503.examples[:3]),
        Fix("More requests waited for a model (re)load than OLLAMA_MAX_QUEUE allows. Keep the model loaded "
            "(OLLAMA_KEEP_ALIVE=-1, one num_ctx for all clients) so requests are not stuck behind loads, add "
            "slots, and make clients back off on 503. " + UNBOUNDED,
            dropin_commands(), dropin(OLLAMA_KEEP_ALIVE="-1", OLLAMA_NUM_PARALLEL=4)),
    )


@check(id="ollama-deep-queue", cause=Cause.QUEUE_FULL,
       purpose="OLLAMA_MAX_QUEUE lets far more requests wait than the slots can drain")
def deep_queue(ollama_config, ollama_log=None):
    from llmdoctor.engines.ollama_figures import config_evidence, dropin, dropin_commands, slots

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
            f"in front of Ollama. " + UNBOUNDED, dropin_commands(), dropin(OLLAMA_MAX_QUEUE=short)),
        confidence="medium",
    )
