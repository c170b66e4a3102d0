"""Ollama loaded a model again shortly after serving requests, well within the keep-alive."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import OLLAMA_EARLY_RELOAD_MAX_S, OLLAMA_KEEP_FOREVER_S
from llmdoctor.judge.fixes import PIN_OLLAMA_OPTIONS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-reload-while-active", cause=Cause.MODEL_UNLOAD,
       purpose="Ollama loaded a model again shortly after serving requests, well within the keep-alive",
       engines=("ollama",))
def reload_while_active(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None):
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import added_loads, config_evidence, counted_evictions, keep_alive_seconds

    keep = keep_alive_seconds(ollama_config)
    added = added_loads(ollama_log)  # another model loaded next to the others: nothing was reloaded
    early = [ld for ld in ollama_log.loads if ld.idle_before_s is not None
             and ld.idle_before_s < min(keep, OLLAMA_EARLY_RELOAD_MAX_S) and ld.examples and ld not in added]
    if not early or ollama_log.evictions.count or ollama_log.option_reloads.count or counted_evictions(ollama_log, keep):
        return  # (an eviction is reported with its own reason: ollama-model-evicted, ollama-evicted-by-count)
    ld = early[-1]
    ev = [Evidence(ld.examples[0].source, f"{ld.examples[0].line}  [{format_seconds(ld.idle_before_s)} after the "
                                          f"last request finished]")]
    if ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE"):
        ev.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    forever = keep >= OLLAMA_KEEP_FOREVER_S
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Ollama loaded a model {format_seconds(ld.idle_before_s)} after serving a request, inside its keep-alive "
        f"({'forever' if forever else format_seconds(keep)}): not an idle unload",
        ev,
        Fix("A load this soon after traffic means a request needed a different runner: either another model "
            "(the two take turns in memory), or the same model with different load options - num_ctx, use_mlock, "
            "num_gpu, num_thread - which Ollama can only apply by loading it again. Make every client send the "
            "same options or none, pin the context on the server (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in "
            "a Modelfile), and if two models alternate, keep both loaded (OLLAMA_MAX_LOADED_MODELS) when memory "
            "allows. The runner command lines in the log show which option changed.", PIN_OLLAMA_OPTIONS),
        confidence=Confidence.MEDIUM)
