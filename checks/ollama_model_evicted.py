"""Ollama's scheduler unloaded a loaded model to make room for another (or for new load options)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import OLLAMA_EVICT_CPU_FREE_BYTES
from llmdoctor.judge.fixes import PIN_OLLAMA_OPTIONS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


UPGRADE = ("ollama -v", "curl -fsSL https://ollama.com/install.sh | sh  # upgrade in place")


@check(id="ollama-model-evicted", cause=Cause.MODEL_UNLOAD,
       purpose="Ollama's scheduler unloaded a loaded model to make room for another (or for new load options)",
       engines=("ollama",))
def model_evicted(
    ollama_log: OllamaLogSummary,
    ollama_config: OllamaConfig | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.judge.ollama import evs, unloads_beside_loads
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.knowledge.units import human_bytes as human

    e = ollama_log.evictions
    # `msg=reloading` (DEBUG, server/sched.go:151 @ v0.9.6 to :257 @ v0.33.0-rc2): needsReload found the
    # request's runner options (num_ctx per slot, num_gpu, num_thread, use_mmap ...), adapters or
    # projectors differ from the loaded runner's, so the same model is unloaded and loaded again
    reloads = ollama_log.option_reloads
    if not e.count and not reloads.count:
        yield from _unload_beside_load(unloads_beside_loads(ollama_log))
        return
    ev = evs(e.examples[:3]) + evs(reloads.examples[:2])
    text = " ".join(x.line for x in e.examples)
    free = ollama_log.system_free_bytes
    cpu_only = '"loaded layers"=0' in text or "loaded layers=0" in text
    if ollama_log.system_memory is not None:
        ev.append(Evidence(ollama_log.system_memory.source, ollama_log.system_memory.line))
    reset = bool(reloads.count) or "expire immediately" in text
    if cpu_only and free and free > OLLAMA_EVICT_CPU_FREE_BYTES:
        why = (f"This happened with {human(free)} of RAM free and no layer on a GPU: before Ollama 0.13.1 the scheduler evicted "
               f"on CPU-only hosts whenever a model could not go to VRAM (ollama/ollama#13227, fixed by #13242). "
               f"Upgrade Ollama.")
    elif reset:
        why = ("A request arrived whose load options differ from the loaded runner's (num_ctx, use_mlock, num_gpu, "
               "num_thread...), so the model was expired and loaded again. Make every client send the same options "
               "or none, and pin the context on the server (OLLAMA_CONTEXT_LENGTH or PARAMETER num_ctx).")
    else:
        why = ("Another model did not fit next to it, or OLLAMA_MAX_LOADED_MODELS was reached. Use fewer or smaller "
               "models, lower OLLAMA_NUM_PARALLEL or the context (the KV cache grows with both), or raise "
               "OLLAMA_MAX_LOADED_MODELS if memory allows.")
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        (f"Ollama unloaded a loaded model to make room {e.count} time(s): the next request for it waits for a reload"
         if e.count and not reloads.count else
         f"Ollama reloaded a loaded model {reloads.count} time(s) for a request with other load options: each "
         f"request waits for the reload"),
        ev, Fix(why, UPGRADE) if cpu_only and free and free > OLLAMA_EVICT_CPU_FREE_BYTES else Fix(why, PIN_OLLAMA_OPTIONS) if reset
        else remedy_fix(why, env(ollama_deployment, OLLAMA_MAX_LOADED_MODELS=2)))


def _unload_beside_load(pairs):
    """Without the scheduler's DEBUG lines, an unload (its VRAM-recovery warning) seconds from a load."""
    if not pairs:
        return
    from llmdoctor.model import Confidence

    first = pairs[0]
    started = next((x for x in first.load.examples if "started in" in x.line), None) or \
        (first.load.examples[0] if first.load.examples else None)
    ev = [Evidence(first.unload.source, first.unload.line)]
    if started is not None:
        ev.append(Evidence(started.source, f"{started.line}  [{abs(first.gap_s):.1f} s "
                                           f"{'after' if first.gap_s >= 0 else 'before'} that unload began]"))
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Ollama unloaded a model and loaded a runner within seconds of it ({len(pairs)} time(s)): the model a "
        f"request needed was swapped out or loaded again, and the request waited for the load",
        ev,
        Fix("An unload next to a load means the runner a request needed was not the one in memory: another model "
            "(the two take turns), the same model with other load options (num_ctx, num_gpu, use_mlock...), or a "
            "client's keep_alive 0 unloading it after each request. Make every client send the same options or none, "
            "pin the context and keep-alive on the server (OLLAMA_CONTEXT_LENGTH, OLLAMA_KEEP_ALIVE), and keep both "
            "models loaded (OLLAMA_MAX_LOADED_MODELS) when two alternate and memory allows. OLLAMA_DEBUG=1 names the "
            "reason (`msg=reloading`, `resetting model to expire immediately`).", PIN_OLLAMA_OPTIONS),
        confidence=Confidence.MEDIUM)
