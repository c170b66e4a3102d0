"""Pure sizing: model shape + memory + workload -> slots, context, KV cache type, queue.

The rule: size slots from memory, not from user counts (a user who is reading or typing
holds no slot).

    KV budget   = usable GPU memory - weights - headroom
    per slot    = context × KV bytes per token
    fits        = floor(KV budget / per slot)
    wanted      = the in-flight estimate rounded up to cover 90 % of moments
    parallel    = min(wanted, fits, max_parallel), at least 1

`headroom` covers what is neither weights nor KV: the CUDA context (~0.3-0.5 GiB),
llama.cpp's compute and output buffers (~0.5-1 GiB for 8K contexts on 8B models) and
a margin against fragmentation. 1.5 GiB by default: a 24 GB card holding 16 GB of
weights then leaves about 6 GB (6.4 GB) of KV budget - five 8K conversations at
144 KiB per token, read as GB or as GiB.

A quantised cache (q8_0, which needs flash attention) is proposed only when it is what
makes the wanted slots fit; a smaller context only when the caller allows it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from llmdoctor.knowledge.capacity import (
    KVShape,
    conversations_fit,
    format_bytes,
    in_flight,
    kv_bytes_per_token,
    normalise_cache_type,
    slots_for_coverage,
)

GiB = 2**30
DEFAULT_HEADROOM = 3 * GiB // 2
DEFAULT_CONTEXT = 8192
DEFAULT_MAX_PARALLEL = 16
COVERAGE = 0.9  # slots cover the in-flight count 90 % of the time
QUEUE_PER_SLOT = 4  # OLLAMA_MAX_QUEUE = 4 × slots: overload fails fast with a 503


class PlanError(ValueError):
    """Input the arithmetic cannot work with (shown to the user, exit code 3)."""


@dataclass(frozen=True)
class Workload:
    """Who sends requests. Either users/turn/think or a fixed concurrency.

    `think_seconds` is the pause between receiving an answer and sending the next
    request (reading and typing; 0 for an agent). One user's turns then start every
    `turn_seconds + think_seconds`, and by Little's law
    in flight = users × turn_seconds ÷ (turn_seconds + think_seconds).
    `seconds_between_turns` states that period directly (start to start), for example
    20 users × 12 s ÷ 90 s ≈ 2.7 in flight.
    """

    users: int | None = None
    turn_seconds: float | None = None
    think_seconds: float | None = None
    seconds_between_turns: float | None = None
    concurrent: int | None = None

    @property
    def given(self) -> bool:
        return self.concurrent is not None or self.users is not None

    def period(self) -> float | None:
        if self.seconds_between_turns is not None:
            return self.seconds_between_turns
        if self.turn_seconds is None:
            return None
        return self.turn_seconds + (self.think_seconds or 0.0)

    def in_flight(self) -> float | None:
        if self.concurrent is not None:
            return float(self.concurrent)
        if self.users is None or self.turn_seconds is None:
            return None
        return in_flight(self.users, self.turn_seconds, self.period() or self.turn_seconds)

    def wanted_slots(self) -> int | None:
        if self.concurrent is not None:
            return max(1, self.concurrent)
        if self.users is None or self.turn_seconds is None:
            return None
        period = max(self.period() or self.turn_seconds, self.turn_seconds)
        return max(1, slots_for_coverage(self.users, self.turn_seconds / period, COVERAGE))

    def describe(self) -> str:
        if self.concurrent is not None:
            return f"{self.concurrent} concurrent requests (given)"
        if self.users is None or self.turn_seconds is None:
            return "no workload given"
        period = self.period() or self.turn_seconds
        how = (f"({self.turn_seconds:g} s answer + {self.think_seconds:g} s pause) per turn"
               if self.seconds_between_turns is None and self.think_seconds is not None
               else f"{period:g} s between turns")
        return f"{self.users} users × {self.turn_seconds:g} s per answer ÷ {how} = {self.in_flight():.1f} in flight"


@dataclass(frozen=True)
class Memory:
    total: int  # usable GPU memory, bytes (all GPUs together)
    weights: int  # bytes the model weights (and other loaded models) take
    headroom: int = DEFAULT_HEADROOM
    source: str = "given"

    @property
    def kv_budget(self) -> int:
        return self.total - self.weights - self.headroom


@dataclass(frozen=True)
class Recommendation:
    parallel: int
    context_length: int
    kv_cache_type: str
    max_queue: int
    flash_attention: bool = False


@dataclass(frozen=True)
class Plan:
    shape: KVShape
    memory: Memory
    workload: Workload
    cache_type: str  # the cache type the figures below are for (as asked)
    context: int
    kv_bytes_per_token: int
    kv_bytes_per_conversation: int
    conversations_fit: int
    in_flight: float | None
    wanted_parallel: int | None
    recommended: Recommendation
    steps: tuple[str, ...]  # the arithmetic, in order, as sentences
    warnings: tuple[str, ...] = ()
    fits_wanted: bool = True

    @property
    def kv_bytes_recommended(self) -> int:
        r = self.recommended
        return r.parallel * r.context_length * kv_bytes_per_token(self.shape, r.kv_cache_type)

    def to_dict(self) -> dict:
        r = self.recommended
        return {
            "model": {
                "architecture": self.shape.architecture,
                "layers": self.shape.layers,
                "kv_heads": self.shape.uniform_kv_heads if self.shape.uniform_kv_heads is not None else list(self.shape.kv_heads),
                "key_length": self.shape.key_length,
                "value_length": self.shape.value_length,
                "mla": self.shape.mla,
                "sliding_window": self.shape.sliding_window,
                "trained_context": self.shape.context_length,
            },
            "cache_type": self.cache_type,
            "context": self.context,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_bytes_per_conversation": self.kv_bytes_per_conversation,
            "memory": {
                "total_bytes": self.memory.total,
                "weights_bytes": self.memory.weights,
                "headroom_bytes": self.memory.headroom,
                "kv_budget_bytes": self.memory.kv_budget,
                "source": self.memory.source,
            },
            "conversations_fit": self.conversations_fit,
            "in_flight": None if self.in_flight is None else round(self.in_flight, 3),
            "wanted_parallel": self.wanted_parallel,
            "fits_wanted": self.fits_wanted,
            "recommended": {
                "parallel": r.parallel,
                "context_length": r.context_length,
                "kv_cache_type": r.kv_cache_type,
                "flash_attention": r.flash_attention,
                "max_queue": r.max_queue,
                "kv_bytes": self.kv_bytes_recommended,
            },
            "steps": list(self.steps),
            "warnings": list(self.warnings),
        }


def gb(n: float) -> str:
    """Decimal gigabytes, the unit of GPU spec sheets and of `ollama ps`."""
    return f"{n / 1e9:.3g} GB"


def _ctx_ladder(start: int, floor: int) -> list[int]:
    """start, then halving down to (and including) floor."""
    out = [start]
    c = start
    while c // 2 >= floor:
        c //= 2
        out.append(c)
    if out[-1] > floor:
        out.append(floor)
    return out


def make_plan(
    shape: KVShape,
    memory: Memory,
    workload: Workload,
    context: int | None = None,
    cache_type: str = "f16",
    *,
    cache_type_fixed: bool = False,
    quantised_cache_ok: bool = True,
    quantised_cache_why_not: str = "",
    max_parallel: int = DEFAULT_MAX_PARALLEL,
    min_context: int = 0,
    lowest_context: int | None = None,
) -> Plan:
    """Size one model's slots. `min_context`: never go below (e.g. the longest prompt
    seen). `lowest_context`: how far the context may be lowered to make slots fit
    (None = not at all). Raises PlanError on input that makes no sense."""
    cache_type = normalise_cache_type(cache_type)
    if memory.total <= 0:
        raise PlanError("GPU memory must be positive")
    if memory.weights < 0:
        raise PlanError("weights must not be negative")
    if max_parallel < 1:
        raise PlanError("--max-parallel must be at least 1")
    trained = shape.context_length
    steps: list[str] = []
    warnings: list[str] = []

    if context is None:
        context = DEFAULT_CONTEXT if trained is None else min(DEFAULT_CONTEXT, trained)
        steps.append(f"Context: {context:,} tokens (default; give --context to change it).")
    if context <= 0:
        raise PlanError("context must be a positive number of tokens")
    if trained is not None and context > trained:
        raise PlanError(f"context {context:,} is larger than the model's trained context {trained:,}")
    if min_context > context:
        raised = _round_context(min_context)
        if trained is not None:
            raised = min(raised, trained)
        steps.append(f"Context raised from {context:,} to {raised:,}: a prompt of {min_context:,} tokens was seen,"
                     f" and a smaller context truncates it.")
        context = raised

    bpt = kv_bytes_per_token(shape, cache_type)
    per_conv = bpt * context
    budget = memory.kv_budget
    fit = conversations_fit(budget, bpt, context)
    steps.append(f"KV per token: {shape.formula(cache_type)} ({format_bytes(bpt)}).")
    steps.append(f"KV per conversation: {bpt:,} B × {context:,} tokens = {per_conv:,} B ({gb(per_conv)}).")
    steps.append(
        f"KV budget: {gb(memory.total)} GPU − {gb(memory.weights)} weights"
        f" − {gb(memory.headroom)} headroom = {gb(budget)}"
        + (" (nothing left: the weights alone do not fit)" if budget <= 0 else "") + ".")
    steps.append(f"Conversations that fit: {gb(max(budget, 0))} ÷ {gb(per_conv)} = {fit}.")

    flow = workload.in_flight()
    wanted = workload.wanted_slots()
    if wanted is not None:
        steps.append(f"Demand: {workload.describe()}.")
        if workload.concurrent is None:
            steps.append(f"Slots wanted: {wanted} (covers the number in flight {int(COVERAGE * 100)} % of the time).")
        if wanted > max_parallel:
            warnings.append(f"{wanted} slots wanted, bounded to {max_parallel} (--max-parallel); the rest queue.")
            wanted = max_parallel
    target = wanted if wanted is not None else max_parallel
    if wanted is None:
        steps.append(f"No workload given: sized from memory alone (at most {max_parallel} slots).")

    rec_ctx, rec_cache, rec_fit = context, cache_type, fit
    # Without a workload, "wanted" is whatever fits: search only when not even one does.
    fits_wanted = fit >= (target if wanted is not None else 1)
    if not fits_wanted:
        found = _search(shape, budget, target, context, cache_type, cache_type_fixed,
                        quantised_cache_ok, max(min_context, lowest_context or context), lowest_context is not None)
        if found is not None:
            rec_ctx, rec_cache, rec_fit = found
            fits_wanted = True
            what = []
            if rec_cache != cache_type:
                what.append(f"KV cache {rec_cache} (with flash attention)")
            if rec_ctx != context:
                what.append(f"context {rec_ctx:,}")
            steps.append(f"{target} slots do not fit at {context:,} tokens in {cache_type};"
                         f" with {' and '.join(what)} {rec_fit} fit"
                         f" ({gb(kv_bytes_per_token(shape, rec_cache) * rec_ctx)} each).")
        else:
            if not quantised_cache_ok and quantised_cache_why_not and cache_type not in ("q8_0", "q4_0"):
                steps.append(f"A q8_0 KV cache is not proposed: {quantised_cache_why_not}.")
            # Nothing fits them all: take the option that fits the most, so that more demand
            # never gets fewer slots than less demand did.
            best = _search(shape, budget, None, context, cache_type, cache_type_fixed, quantised_cache_ok,
                           max(min_context, lowest_context or context), lowest_context is not None)
            if best is not None and best[2] > rec_fit:
                rec_ctx, rec_cache, rec_fit = best
                steps.append(f"{target} slots do not fit in any option; the most that do: {rec_fit}"
                             f" with KV cache {rec_cache} at {rec_ctx:,} tokens.")
            if wanted is None and rec_fit >= 1:
                fits_wanted = True  # without a workload, one conversation that fits is all that was asked

    if wanted is None:
        parallel = max(1, min(rec_fit, max_parallel))
    else:
        parallel = max(1, min(wanted, rec_fit))
    if memory.weights + memory.headroom >= memory.total:
        warnings.append(
            f"The weights do not fit: {gb(memory.weights)} of weights plus {gb(memory.headroom)} headroom"
            f" exceed {gb(memory.total)} of GPU memory, so layers run on the CPU before any KV cache is"
            f" counted. Use a smaller quantisation or model, or more GPU memory.")
    elif rec_fit < 1:
        warnings.append(
            f"Not even one {rec_ctx:,}-token conversation fits in the KV budget ({gb(max(budget, 0))}):"
            f" the cache spills to CPU. Use a smaller context, a smaller quantisation, or a bigger GPU.")
    elif wanted is not None and parallel < wanted:
        quantise = "" if rec_cache in ("q8_0", "q4_0", "fp8") or cache_type_fixed else " a q8_0 KV cache,"
        warnings.append(f"Only {parallel} of the {wanted} wanted slots fit; the other requests queue."
                        f" More room, cheapest first: a smaller context,{quantise} a smaller quantisation, or more GPU memory.")
    max_queue = QUEUE_PER_SLOT * parallel
    steps.append(f"Slots: {parallel}" + (f" (wanted {wanted}, {rec_fit} fit)" if wanted is not None else f" ({rec_fit} fit)") + ".")
    steps.append(f"Queue: {QUEUE_PER_SLOT} × {parallel} slots = {max_queue} waiting requests; beyond that a 503"
                 f" the application can retry (Ollama applies it to requests waiting for a model load).")
    rec = Recommendation(parallel, rec_ctx, rec_cache, max_queue, flash_attention=rec_cache != cache_type and rec_cache in ("q8_0", "q4_0"))
    return Plan(shape, memory, workload, cache_type, context, bpt, per_conv, fit, flow,
                wanted, rec, tuple(steps), tuple(warnings), fits_wanted=fits_wanted and rec_fit >= 1)


def _search(shape: KVShape, budget: int, target: int | None, context: int, cache_type: str, cache_type_fixed: bool,
            quantised_ok: bool, floor: int, may_lower: bool) -> tuple[int, str, int] | None:
    """The first (context, cache type) that fits `target` slots: q8_0 at the same
    context first, then smaller contexts (f16, then q8_0). With target None: the option
    that fits the most slots (the first such, in the same order)."""
    caches = [cache_type]
    if not cache_type_fixed and quantised_ok and cache_type in ("f16", "bf16", "f32"):
        caches.append("q8_0")
    contexts = _ctx_ladder(context, floor) if may_lower and floor < context else [context]
    best = None
    for ctx in contexts:
        for ct in caches:
            if ctx == context and ct == cache_type:
                continue
            fit = conversations_fit(budget, kv_bytes_per_token(shape, ct), ctx)
            if target is not None and fit >= target:
                return ctx, ct, fit
            if target is None and (best is None or fit > best[2]):
                best = (ctx, ct, fit)
    return best


def _round_context(tokens: int) -> int:
    """Room for a prompt of `tokens` plus an answer: +10 %, up to a multiple of 1024."""
    return int(math.ceil(tokens * 1.1 / 1024) * 1024)
