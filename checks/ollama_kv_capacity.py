"""KV_CAPACITY in Ollama: the KV cache the slots need does not fit next to the weights."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel


@check(id="ollama-kv-capacity", cause=Cause.KV_CAPACITY,
       purpose="OLLAMA_NUM_PARALLEL x context x KV bytes per token exceeds the GPU memory left after the weights",
       engines=("ollama",))
def kv_capacity(
    ollama_show: dict,
    ollama_config: OllamaConfig,
    ollama_ps: tuple[LoadedModel, ...] | None = None,
    ollama_log: OllamaLogSummary | None = None,
    gpu: GpuFact | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.knowledge.units import human_bytes as human
    from llmdoctor.judge.ollama_kv import kv_budget

    b = kv_budget(ollama_show, ollama_config, ollama_ps, ollama_log, gpu)
    if b is None or b.free <= 0 or b.need <= b.free:
        return
    slots = max(b.fits, 1)
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"{b.slots} slot(s) x {b.context} tokens need {human(b.need)} of KV cache, but only {human(b.free)} "
        f"is left after the weights: {b.fits} such conversation(s) fit on the GPU",
        b.evidence,
        remedy_fix(f"Match slots and context to the memory: OLLAMA_NUM_PARALLEL={slots} at this context. For more slots, "
            f"cheapest first: a smaller context (OLLAMA_CONTEXT_LENGTH), then OLLAMA_KV_CACHE_TYPE=q8_0 with "
            f"OLLAMA_FLASH_ATTENTION=1 (about half the KV bytes), then more GPU memory. "
            f"Otherwise Ollama moves layers to the CPU.",
            env(ollama_deployment, OLLAMA_NUM_PARALLEL=slots, OLLAMA_FLASH_ATTENTION=1, OLLAMA_KV_CACHE_TYPE="q8_0")),
    )
