"""QUEUE_FULL in Ollama: it answered 503 "server busy ... maximum pending requests exceeded"."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
from llmdoctor.judge.fixes import OLLAMA_UNBOUNDED_QUEUE


@check(id="ollama-queue-full", cause=Cause.QUEUE_FULL,
       purpose='Ollama answered 503 "server busy ... maximum pending requests exceeded"', engines=("ollama",))
def queue_full(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    n503, text = ollama_log.status_503, ollama_log.max_pending
    if not (n503.count or text.count):
        return
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import env, remedy_fix

    yield Finding(
        Cause.QUEUE_FULL, Severity.CRITICAL,
        f"Ollama rejected requests: queue full ({n503.count} HTTP 503 in the access log, "
        f"{text.count} 'maximum pending requests exceeded' messages)",
        evs(text.examples[:3]) + evs(n503.examples[:3]),
        remedy_fix("More requests waited for a model (re)load than OLLAMA_MAX_QUEUE allows. Keep the model loaded "
            "(OLLAMA_KEEP_ALIVE=-1, one num_ctx for all clients) so requests are not stuck behind loads, add "
            "slots, and make clients back off on 503. " + OLLAMA_UNBOUNDED_QUEUE,
            env(ollama_deployment, OLLAMA_KEEP_ALIVE="-1", OLLAMA_NUM_PARALLEL=4)),
    )
