"""Pure proposal: what an Ollama host has (its facts) -> each setting llmdoctor would
change, next to the current value, with the reason and the arithmetic.

Inputs are plain values (`HostFacts`), so the rules are tested without a host; the
translation from the fact store lives in `hostfacts.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from llmdoctor.knowledge.capacity import KVShape, ShapeError, kv_bytes_per_token, kv_shape_from_gguf, normalise_cache_type
from llmdoctor.knowledge.ollama import env as ollama_env
from llmdoctor.judge.sizing import (
    DEFAULT_HEADROOM,
    DEFAULT_MAX_PARALLEL,
    Memory,
    Plan,
    PlanError,
    Workload,
    gb,
    make_plan,
)

# server/sched.go load(): these architectures always run with one slot.
PARALLEL_FORCED_TO_ONE = frozenset({
    "mllama", "qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe", "qwen3next", "lfm2", "lfm2moe",
    "nemotron_h", "nemotron_h_moe", "nemotron_h_omni",
})
LONG_KEEP_ALIVE = "24h"  # a working day and the night: the morning's first request finds the model loaded
KEEP_ALIVE_LONG_ENOUGH_S = 3600.0
AUTO_CONTEXT_FLOOR = 8192  # never lowered below this on our own initiative

TUNED = ("OLLAMA_NUM_PARALLEL", "OLLAMA_CONTEXT_LENGTH", "OLLAMA_MAX_QUEUE", "OLLAMA_KV_CACHE_TYPE",
         "OLLAMA_FLASH_ATTENTION", "OLLAMA_KEEP_ALIVE")


class ProposalError(ValueError):
    """The host does not give what a proposal needs; str() says what to supply."""


@dataclass(frozen=True)
class Current:
    """A variable's value as the running server sees it (None = unset) and where that came from."""

    value: str | None
    source: str = "unset"
    from_llmdoctor: bool = False  # set by llmdoctor's own drop-in


@dataclass(frozen=True)
class LoadedModel:
    name: str
    size: int | None = None
    size_vram: int | None = None
    context_length: int | None = None


@dataclass(frozen=True)
class HostFacts:
    version: str | None = None
    env: dict[str, Current] = field(default_factory=dict)
    model: str | None = None  # the model the proposal is for (show was fetched for it)
    model_info: dict | None = None  # /api/show model_info of that model
    loaded: tuple[LoadedModel, ...] = ()
    gpu_total: int | None = None
    gpu_source: str = ""
    model_file_size: int | None = None  # /api/tags size of the model: its weights when not loaded
    logged_weights: int | None = None  # weights of the last load in the log (`model buffer size` lines)
    logged_weights_evidence: str = ""
    logged_context: int | None = None  # per-slot context of the last load (runner ctx-size ÷ parallel)
    longest_prompt: int | None = None
    longest_prompt_evidence: str = ""
    unload_evidence: str = ""  # a line proving unload-then-reload, "" when none


@dataclass(frozen=True)
class Change:
    name: str
    current: str | None
    current_source: str
    proposed: str | None  # None = leave it to the other files / Ollama's default
    reason: str
    arithmetic: str = ""

    @property
    def changed(self) -> bool:
        return _norm(self.current) != _norm(self.proposed)

    @property
    def current_shown(self) -> str:
        """The value in effect: the set value, or the default in brackets."""
        if self.current is not None:
            if self.name == "OLLAMA_CONTEXT_LENGTH" and _norm(self.current) == "0":
                return "0 (automatic)"
            return self.current
        if "(" in self.current_source and self.current_source.endswith(")"):
            return f"{self.current_source.rsplit('(', 1)[1][:-1]} (default)"
        return "unset"


@dataclass(frozen=True)
class Proposal:
    model: str
    plan: Plan
    changes: tuple[Change, ...]
    notes: tuple[str, ...] = ()

    def values(self) -> dict[str, str]:
        """Every value llmdoctor wants set (changed or already as wanted)."""
        return {c.name: c.proposed for c in self.changes if c.proposed is not None}

    def changed(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.changed)

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "plan": self.plan.to_dict(),
            "changes": [
                {"name": c.name, "current": c.current, "current_source": c.current_source,
                 "proposed": c.proposed, "changed": c.changed, "reason": c.reason, "arithmetic": c.arithmetic}
                for c in self.changes
            ],
            "notes": list(self.notes),
        }


def _norm(v: str | None) -> str:
    return "" if v is None else ollama_env.strip_value(v)


def _current(facts: HostFacts, name: str) -> Current:
    cur = facts.env.get(name)
    if cur is not None:
        return cur
    default = ollama_env.default(name, facts.version) if name in ollama_env.VARIABLES else ""
    label = f"default of Ollama {facts.version}" if facts.version else "default"
    return Current(None, f"{label} ({default or 'empty'})")


def _effective(facts: HostFacts, name: str) -> str:
    cur = _current(facts, name)
    v = _norm(cur.value)
    return v if v else ollama_env.default(name, facts.version)


def _pick_model(facts: HostFacts) -> LoadedModel | None:
    if facts.model:
        for m in facts.loaded:
            if m.name == facts.model or m.name.split(":")[0] == facts.model:
                return m
        return None
    if facts.loaded:
        return max(facts.loaded, key=lambda m: m.size or 0)
    return None


def make_proposal(
    facts: HostFacts,
    workload: Workload,
    *,
    context: int | None = None,
    max_parallel: int = DEFAULT_MAX_PARALLEL,
    weights: int | None = None,
    gpu_memory: int | None = None,
    headroom: int = DEFAULT_HEADROOM,
) -> Proposal:
    """The bounded configuration for the model this host serves. Raises ProposalError
    (bad or missing input) with a message that says what to give instead."""
    notes: list[str] = []
    if not facts.model_info:
        raise ProposalError("no model to size: none is loaded and none was named (--model NAME), "
                            "or Ollama did not describe it (/api/show)")
    try:
        shape: KVShape = kv_shape_from_gguf(facts.model_info)
    except ShapeError as e:
        raise ProposalError(f"cannot size the KV cache of {facts.model or 'the model'}: {e}") from None
    loaded = _pick_model(facts)
    name = facts.model or (loaded.name if loaded else "the model")

    # What the server runs with now.
    raw_parallel = _current(facts, "OLLAMA_NUM_PARALLEL")
    cur_parallel, _ = ollama_env.effective_parallel(raw_parallel.value, facts.version)
    cur_cache_cur = _current(facts, "OLLAMA_KV_CACHE_TYPE")
    try:
        cur_cache = normalise_cache_type(_norm(cur_cache_cur.value) or "f16")
    except ShapeError:
        cur_cache = "f16"
        notes.append(f"OLLAMA_KV_CACHE_TYPE={cur_cache_cur.value!r} is not a cache type Ollama uses; it runs f16.")
    cur_ctx = loaded.context_length if loaded and loaded.context_length else None
    env_ctx = _norm(_current(facts, "OLLAMA_CONTEXT_LENGTH").value)
    if cur_ctx is None and facts.logged_context:
        cur_ctx = facts.logged_context
    if cur_ctx is None and env_ctx.isdecimal() and int(env_ctx) > 0:
        cur_ctx = int(env_ctx)

    # Memory.
    total = gpu_memory if gpu_memory is not None else facts.gpu_total
    if not total:
        raise ProposalError("no GPU memory figure: NVML found no GPU; give --gpu-memory (e.g. 24GB)")
    total_source = "--gpu-memory" if gpu_memory is not None else (facts.gpu_source or "NVML")
    if cur_ctx is None:
        tier = ollama_env.at_least(facts.version, "0.15.5")
        cur_ctx = ollama_env.context_tier(total) if tier or tier is None else int(
            ollama_env.default("OLLAMA_CONTEXT_LENGTH", facts.version) or 4096)
    if shape.context_length:
        cur_ctx = min(cur_ctx, shape.context_length)
    weights_txt = "--weights"
    if weights is None and (loaded is None or not loaded.size) and facts.model_file_size:
        weights = facts.model_file_size
        weights_txt = f"model file {gb(weights)} (/api/tags; not loaded now)"
    elif weights is None and (loaded is None or not loaded.size) and facts.logged_weights:
        weights = facts.logged_weights
        weights_txt = f"{gb(weights)} of model buffers at the last load ({facts.logged_weights_evidence or 'log'})"
    elif weights is None:
        if loaded is None or not loaded.size:
            raise ProposalError(f"{name} is not loaded, so the memory its weights take is unknown; "
                                f"load it once (ollama run {name} '') or give --weights")
        slots_now = cur_parallel or 1
        kv_now = slots_now * cur_ctx * kv_bytes_per_token(shape, cur_cache)
        weights = max(0, loaded.size - kv_now)
        weights_txt = (f"/api/ps size {gb(loaded.size)} − current KV {slots_now} × {cur_ctx:,} × "
                       f"{kv_bytes_per_token(shape, cur_cache):,} B = {gb(weights)}")
    if weights_txt != "--weights":
        others = [m for m in facts.loaded if m is not loaded and m.size]
        if others:
            extra = sum(m.size or 0 for m in others)
            weights += extra
            weights_txt += f" + {gb(extra)} of other loaded models ({', '.join(m.name for m in others)})"
    overhead = _norm(_current(facts, "OLLAMA_GPU_OVERHEAD").value)
    if overhead.isdecimal() and int(overhead) > 0:
        headroom += int(overhead)
        notes.append(f"OLLAMA_GPU_OVERHEAD={overhead} is added to the headroom.")
    memory = Memory(total, weights, headroom, source=f"GPU {total_source}; weights {weights_txt}")

    # The cache type to start from: the operator's choice stands; llmdoctor's own is re-decided.
    base_cache = "f16" if cur_cache_cur.from_llmdoctor else cur_cache
    cache_fixed = not cur_cache_cur.from_llmdoctor and cur_cache != "f16"
    quant_ok, quant_why = _quantised_cache_supported(facts.version)

    # Context: a deliberate value stays; an automatic one may come down to fit the slots.
    if context is not None and shape.context_length and context > shape.context_length:
        raise ProposalError(f"--context {context:,} is larger than {name}'s trained context "
                            f"{shape.context_length:,}")
    ctx_src = _current(facts, "OLLAMA_CONTEXT_LENGTH")
    deliberate = context is not None or (bool(env_ctx) and env_ctx != "0" and not ctx_src.from_llmdoctor)
    lowest = None if deliberate else min(cur_ctx, AUTO_CONTEXT_FLOOR)
    try:
        plan = make_plan(shape, memory, workload, context if context is not None else cur_ctx, base_cache,
                         cache_type_fixed=cache_fixed, quantised_cache_ok=quant_ok,
                         quantised_cache_why_not=quant_why, max_parallel=max_parallel,
                         min_context=facts.longest_prompt or 0, lowest_context=lowest)
    except PlanError as e:
        raise ProposalError(str(e)) from None
    rec = plan.recommended

    changes: list[Change] = []
    arch = shape.architecture or ""
    if arch in PARALLEL_FORCED_TO_ONE:
        notes.append(f"Ollama runs {arch} models with one slot whatever OLLAMA_NUM_PARALLEL says; "
                     f"more slots need another model or engine.")
        parallel = 1
    else:
        parallel = rec.parallel
    sizing = " ".join(s for s in plan.steps if s.startswith(("Demand", "Slots wanted", "Conversations", "KV budget")))
    changes.append(Change(
        "OLLAMA_NUM_PARALLEL", raw_parallel.value, raw_parallel.source, str(parallel),
        _parallel_reason(plan, parallel, cur_parallel), sizing))
    changes.append(Change(
        "OLLAMA_CONTEXT_LENGTH", ctx_src.value, ctx_src.source, str(rec.context_length),
        _context_reason(plan, facts, cur_ctx, shape),
        f"{rec.context_length:,} tokens × {kv_bytes_per_token(shape, rec.kv_cache_type):,} B = "
        f"{gb(rec.context_length * kv_bytes_per_token(shape, rec.kv_cache_type))} per slot"))
    q = _current(facts, "OLLAMA_MAX_QUEUE")
    changes.append(Change(
        "OLLAMA_MAX_QUEUE", q.value, q.source, str(rec.max_queue),
        "A short queue makes overload fail fast with a 503 the application can retry, instead of "
        "requests waiting minutes behind a model load (requests to a loaded model wait on the slots).",
        f"4 × {parallel} slots = {rec.max_queue}"))
    fa = _current(facts, "OLLAMA_FLASH_ATTENTION")
    per_token = f"{kv_bytes_per_token(shape, 'f16'):,} B → {kv_bytes_per_token(shape, rec.kv_cache_type):,} B per token"
    if rec.kv_cache_type != base_cache:
        changes.append(Change(
            "OLLAMA_KV_CACHE_TYPE", cur_cache_cur.value, cur_cache_cur.source, rec.kv_cache_type,
            f"A {rec.kv_cache_type} KV cache is what makes {parallel} slots fit "
            f"(q8_0: 34 bytes per 32 values instead of 64; the quality loss is negligible).", per_token))
        changes.append(Change(
            "OLLAMA_FLASH_ATTENTION", fa.value, fa.source, "1",
            "A quantised KV cache needs flash attention: without it Ollama falls back to f16, "
            "and llama-server refuses a quantised V cache."))
    else:
        for cur, var in ((cur_cache_cur, "OLLAMA_KV_CACHE_TYPE"), (fa, "OLLAMA_FLASH_ATTENTION")):
            if cur.from_llmdoctor:
                changes.append(Change(var, cur.value, cur.source, None,
                                      "llmdoctor set it earlier for a quantised KV cache; f16 fits now."))
    ka = _current(facts, "OLLAMA_KEEP_ALIVE")
    ka_s = ollama_env.keep_alive_seconds(_effective(facts, "OLLAMA_KEEP_ALIVE"))
    if facts.unload_evidence and (ka_s is not None and ka_s < KEEP_ALIVE_LONG_ENOUGH_S):
        changes.append(Change(
            "OLLAMA_KEEP_ALIVE", ka.value, ka.source, LONG_KEEP_ALIVE,
            f"The model was unloaded and loaded again (evidence: {facts.unload_evidence}); each reload "
            f"costs the next user the load time. Keep it loaded for {LONG_KEEP_ALIVE}.",
            f"now {ollama_env.format_seconds(ka_s)}"))
    elif ka.from_llmdoctor:
        changes.append(Change("OLLAMA_KEEP_ALIVE", ka.value, ka.source, ka.value,
                              "Set earlier by llmdoctor after unloads; kept."))
    notes.extend(plan.warnings)
    return Proposal(name, plan, tuple(changes), tuple(notes))


def _quantised_cache_supported(version: str | None) -> tuple[bool, str]:
    ok = ollama_env.exists("OLLAMA_KV_CACHE_TYPE", version)
    if ok is None:
        return False, "the Ollama version is unknown, and OLLAMA_KV_CACHE_TYPE exists only since v0.5.0"
    if not ok:
        return False, f"Ollama {version} predates OLLAMA_KV_CACHE_TYPE (v0.5.0)"
    return True, ""


def _parallel_reason(plan: Plan, parallel: int, current: int | None) -> str:
    r = plan.recommended
    now = "auto" if current is None else str(current)
    if plan.wanted_parallel is None:
        why = f"No workload given: the most slots that fit ({plan.conversations_fit} at {r.context_length:,} tokens)."
    elif parallel >= (plan.wanted_parallel or 0):
        why = f"{parallel} slots carry the demand ({plan.in_flight:.1f} in flight on average) and fit in memory."
    else:
        why = f"Bounded by memory: {parallel} slots fit, {plan.wanted_parallel} are wanted; the rest queue."
    return f"{why} Each slot holds its own KV cache, so more than fit would push layers to the CPU (now {now})."


def _context_reason(plan: Plan, facts: HostFacts, cur_ctx: int, shape: KVShape) -> str:
    r = plan.recommended
    parts = [f"Pinned server-side so every client gets {r.context_length:,} tokens and no client's "
             f"num_ctx makes Ollama reload the model."]
    if facts.longest_prompt:
        parts.append(f"Never below the longest prompt seen ({facts.longest_prompt:,} tokens"
                     + (f": {facts.longest_prompt_evidence}" if facts.longest_prompt_evidence else "") + ").")
    if shape.context_length:
        parts.append(f"Never above the trained context ({shape.context_length:,}).")
    if r.context_length < cur_ctx:
        parts.append(f"Lowered from {cur_ctx:,} so the slots fit.")
    return " ".join(parts)
