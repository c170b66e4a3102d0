"""KV-cache budget of an Ollama model: slots x context x bytes per token against the GPU
memory left after the weights. Pure; the arithmetic is llmdoctor.knowledge.capacity's."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llmdoctor.knowledge.units import human_bytes as human
from llmdoctor.model import Evidence
from llmdoctor.judge.ollama import gpu_total_bytes, last_load_with, slots

MIB = 2**20


@dataclass(frozen=True)
class KVBudget:
    slots: int
    context: int  # tokens per slot
    bytes_per_token: int
    cache_type: str
    formula: str
    need: int  # KV bytes for all slots
    gpu_total: int
    weights: int
    fits: int  # whole conversations of `context` that fit next to the weights
    evidence: tuple[Evidence, ...]

    @property
    def free(self) -> int:
        return self.gpu_total - self.weights


def kv_budget(show: dict, config, ps=None, log=None, gpu: Any = None) -> KVBudget | None:
    """None when any input is missing (the check then says nothing)."""
    from llmdoctor.knowledge import capacity
    info = (show or {}).get("model_info")
    if not isinstance(info, dict):
        return None
    try:
        shape = capacity.kv_shape_from_gguf(info)
        cache_type = capacity.normalise_cache_type((config.get("OLLAMA_KV_CACHE_TYPE") or "f16") if config else "f16")
        bpt = capacity.kv_bytes_per_token(shape, cache_type)
        formula = shape.formula(cache_type)
    except (ValueError, KeyError):
        return None
    s = slots(config, log)
    if s is None or not s.count:
        return None
    model = (ps or (None,))[0]
    evidence = list(s.evidence)
    context = None
    if model is not None and model.context_length:
        context = model.context_length
        evidence.append(Evidence(model.source, model.line))
    if context is None:
        load = last_load_with(log, "ctx_size")
        if load is not None and load.ctx_size:
            context = load.ctx_size // (load.parallel or s.count)
    if context is None and config is not None and (config.get("OLLAMA_CONTEXT_LENGTH") or "0").isdecimal():
        context = int(config.get("OLLAMA_CONTEXT_LENGTH") or 0) or (log.vram_default_ctx if log else None)
    if not context:
        return None
    total = gpu_total_bytes(gpu)
    if not total and log is not None:
        total = next((st.gpu_total_bytes for st in reversed(log.startups) if st.gpu_total_bytes), 0)
        if total:
            ex = next(st.examples[0] for st in reversed(log.startups) if st.gpu_total_bytes)
            evidence.append(Evidence(ex.source, ex.line))
    if not total:
        return None
    need = s.count * context * bpt
    load = last_load_with(log, "started_at")
    if load is not None and load.model_buffer_mib:
        weights = int(load.model_buffer_mib * MIB)
    elif model is not None and model.size:
        weights = max(model.size - need, 0)
    else:
        return None
    fits = capacity.conversations_fit(total - weights, bpt, context)
    evidence.append(Evidence("arithmetic", f"KV per token: {formula}; {s.count} slot(s) x {context} tokens = "
                             f"{human(need)}; GPU {human(total)} - weights {human(weights)} = {human(total - weights)} free"))
    return KVBudget(s.count, context, bpt, cache_type, formula, need, total, weights, fits, tuple(evidence))
