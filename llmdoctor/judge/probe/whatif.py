"""What-if: the headroom a saved sweep's server would have with another setting (pure).

`plan --what-if OLLAMA_NUM_PARALLEL=4 --from sweep.json`: the model fitted to the sweep
(knowledge/probe/service.py) with the setting changed, judged with the original's backtest
(its error is the band), and the KV arithmetic of `plan` (knowledge/capacity.py) where the
model's shape and the GPU's memory are given:
- slots (OLLAMA_NUM_PARALLEL, llama-server -np, vLLM --max-num-seqs, SGLang
  --max-running-requests): more requests batched; the decode step at a batch larger than
  the sweep saw is the fitted line extended (said so);
- context (OLLAMA_CONTEXT_LENGTH, -c, --max-model-len, --context-length): llama-server splits
  -c across its slots, so more slots leave each less; Ollama allocates NUM_PARALLEL times the
  context; vLLM and SGLang share one pool;
- KV cache type (OLLAMA_KV_CACHE_TYPE, --cache-type-k, --kv-cache-dtype): memory only (the
  decode speed is taken as unchanged, said so).
When the KV no longer fits: Ollama puts layers on the CPU (CPU_SPILL: the decode speed the
sweep measured on the GPU no longer holds, so no number), llama-server fails to allocate
(no number), vLLM and SGLang run fewer sequences at once (the model's `kv_seqs`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from llmdoctor.judge.probe.headroom import Headroom, Targets, backtest, judge_headroom
from llmdoctor.knowledge.probe.service import FitError, ServiceModel
from llmdoctor.knowledge.probe.sweep import SweepResult

SLOTS, CONTEXT, CACHE_TYPE = "slots", "context", "cache type"
KEYS = {
    SLOTS: ("OLLAMA_NUM_PARALLEL", "-np", "--parallel", "--n-parallel", "--max-num-seqs", "--max-running-requests"),
    CONTEXT: ("OLLAMA_CONTEXT_LENGTH", "-c", "--ctx-size", "--max-model-len", "--context-length", "num_ctx"),
    CACHE_TYPE: ("OLLAMA_KV_CACHE_TYPE", "-ctk", "--cache-type-k", "--kv-cache-dtype"),
}
MAX_SLOTS = 1024
# Whose setting each name is (a name of another engine is read as the same kind, and said so).
ENGINE_OF = {"OLLAMA_NUM_PARALLEL": "ollama", "OLLAMA_CONTEXT_LENGTH": "ollama", "OLLAMA_KV_CACHE_TYPE": "ollama",
             "num_ctx": "ollama", "-np": "llamacpp", "--parallel": "llamacpp", "--n-parallel": "llamacpp",
             "-c": "llamacpp", "--ctx-size": "llamacpp", "-ctk": "llamacpp", "--cache-type-k": "llamacpp",
             "--max-num-seqs": "vllm", "--max-model-len": "vllm", "--max-running-requests": "sglang",
             "--context-length": "sglang", "--kv-cache-dtype": "vllm"}


@dataclass(frozen=True)
class Setting:
    key: str        # as the user wrote it
    kind: str       # SLOTS | CONTEXT | CACHE_TYPE
    value: Any      # int, or the cache type's name

    def describe(self) -> str:
        return f"{self.key}={self.value}"


def parse_setting(text: str) -> Setting:
    """`OLLAMA_NUM_PARALLEL=4`, `-np 4`, `--max-num-seqs=8`, `--kv-cache-dtype fp8`. ValueError
    names the settings known."""
    raw = str(text).strip()
    key, sep, value = raw.partition("=")
    if not sep:
        key, _, value = raw.partition(" ")
    key, value = key.strip(), value.strip()
    kind = next((k for k, names in KEYS.items() if key in names), None)
    if kind is None or not value:
        known = ", ".join(n for names in KEYS.values() for n in names)
        raise ValueError(f"--what-if {raw!r}: give SETTING=VALUE, one of {known}")
    if kind == CACHE_TYPE:
        from llmdoctor.knowledge.capacity import ShapeError, normalise_cache_type

        try:
            return Setting(key, kind, normalise_cache_type(value))
        except ShapeError as e:
            raise ValueError(f"--what-if {raw!r}: {e}") from None
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"--what-if {raw!r}: {key} takes a whole number") from None
    if not 1 <= n <= (MAX_SLOTS if kind == SLOTS else 10_000_000):
        raise ValueError(f"--what-if {raw!r}: out of range")
    return Setting(key, kind, n)


@dataclass(frozen=True)
class KvArith:
    """What `plan` knows of the model and the GPU, for the KV check (any part may be missing)."""

    bytes_per_token: dict[str, int]     # cache type -> KV bytes per token
    budget_bytes: int | None            # GPU memory left for the KV cache
    context: int                        # the context per conversation now (plan's --context)
    cache_type: str = "f16"             # the cache type now


@dataclass(frozen=True)
class WhatIf:
    settings: tuple[Setting, ...]
    engine: str
    before: Headroom
    after: Headroom | None              # None: not predicted (why says)
    slots_before: int | None
    slots_after: int | None
    why: str = ""
    notes: tuple[str, ...] = field(default=())
    ends: tuple[ServiceModel, ...] = ()  # one-slot sweep: the models at no batching and at free batching

    def to_dict(self) -> dict[str, Any]:
        return {"settings": [{"key": s.key, "kind": s.kind, "value": s.value} for s in self.settings],
                "engine": self.engine, "slots_before": self.slots_before, "slots_after": self.slots_after,
                "before": self.before.to_dict(), "after": self.after.to_dict() if self.after else None,
                "why": self.why, "notes": list(self.notes), "ends": [m.to_dict() for m in self.ends]}


def _kv_effect(engine: str, m: ServiceModel, slots: int, ctx_now: int, ctx: int, kv: KvArith | None,
               ct: str, notes: list[str]) -> tuple[int | None, str]:
    """(kv_seqs for the model, why no prediction) from the KV arithmetic; notes get the figures."""
    need = m.prompt_tokens + m.output_tokens
    if engine == "llamacpp" and ctx // slots < need:
        return None, (f"-c {ctx} split across {slots} slots leaves {ctx // slots} tokens a slot, fewer than the "
                      f"{need} a request of the sweep used: requests would be cut (context shift) or refused")
    if kv is None or ct not in kv.bytes_per_token:
        notes.append("KV memory not checked: give the model (--gguf, --hf-config or -m) and --gpu-memory/--weights "
                     "to check that the new setting still fits the GPU")
        return None, ""
    bpt = kv.bytes_per_token[ct]
    if engine in ("vllm", "sglang"):
        if kv.budget_bytes is None:
            return None, ""
        seqs = max(1, kv.budget_bytes // max(1, bpt * need))
        notes.append(f"the KV pool holds {seqs} requests of {need} tokens at {ct}")
        return (seqs if seqs < slots else None), ""
    total = slots * ctx if engine == "ollama" else ctx
    need_b = total * bpt
    from llmdoctor.judge.sizing import gb

    if kv.budget_bytes is None:
        notes.append(f"the KV cache would take {gb(need_b)} ({total} tokens at {ct}); GPU memory not known")
        return None, ""
    notes.append(f"the KV cache would take {gb(need_b)} ({total} tokens at {ct}) of the {gb(kv.budget_bytes)} "
                 f"left for it")
    if need_b <= kv.budget_bytes:
        return None, ""
    if engine == "ollama":
        return None, ("it does not fit the GPU: Ollama would put layers on the CPU (CPU_SPILL), and every token "
                      "would then decode at a speed the sweep did not measure")
    return None, "it does not fit the GPU: the server would fail to allocate its KV cache"


def what_if(result: SweepResult, settings: tuple[Setting, ...], targets: Targets,
            kv: KvArith | None = None) -> WhatIf:
    before = judge_headroom(result, targets)
    if before.model is None:
        return WhatIf(settings, result.engine, before, None, None, None, before.why)
    m = before.model
    slots_now = m.slots
    slots, ctx, ct = slots_now, kv.context if kv else None, kv.cache_type if kv else "f16"
    for s in settings:
        if s.kind == SLOTS:
            slots = s.value
        elif s.kind == CONTEXT:
            ctx = s.value
        else:
            ct = s.value
    notes: list[str] = [f"{s.key} is {ENGINE_OF[s.key]}'s setting; read as this {result.engine} server's {s.kind}"
                        for s in settings if result.engine and ENGINE_OF.get(s.key) not in (None, result.engine)
                        and not (s.key == "--kv-cache-dtype" and result.engine == "sglang")]
    if slots is None:
        return WhatIf(settings, result.engine, before, None, None, None,
                      "the sweep saw no slot limit and no slot setting was given")
    ctx_now = kv.context if kv else (ctx or 0)
    kv_seqs, why = _kv_effect(result.engine, m, slots, ctx_now, ctx or ctx_now or 10 ** 9, kv, ct, notes)
    if any(s.kind == CACHE_TYPE for s in settings):
        notes.append("a KV cache type changes memory, not the decode speed the sweep measured (taken as unchanged)")
    if 1 < m.max_batch_measured < slots and slots != slots_now:
        notes.append(f"{slots} slots batch more than the {m.max_batch_measured} streams the sweep measured: the decode "
                     f"step beyond is the fitted line extended")
    if why:
        return WhatIf(settings, result.engine, before, None, slots_now, slots, why, tuple(notes))
    new = replace(m, slots=slots, kv_seqs=kv_seqs,
                  slots_source=", ".join(s.describe() for s in settings if s.kind == SLOTS) or m.slots_source)
    try:
        bt = before.backtest or backtest(result, m.slots)
    except FitError:
        bt = None
    ends: tuple[ServiceModel, ...] = ()
    if m.max_batch_measured <= 1 < min(slots, new.capacity):
        after, ends = _unknown_slope(result, targets, new, bt, notes)
    else:
        after = judge_headroom(result, targets, model=new, bt=bt, notes=tuple(notes))
    return WhatIf(settings, result.engine, before, after, slots_now, slots, after.why, tuple(notes), ends)


def _unknown_slope(result: SweepResult, targets: Targets, new: ServiceModel, bt,
                   notes: list[str]) -> tuple[Headroom, tuple[ServiceModel, ServiceModel]]:
    """The sweep never batched (one slot): how the decode step grows with the batch is unknown.
    The prediction is made at both ends (free batching: a GPU's memory-bound decode; none at all:
    a CPU's compute-bound decode, a batch of b taking b steps) and in the middle; the range spans
    both ends."""
    step = new.step_s(1)
    free = replace(new, decode_s=step, decode_s_per_seq=0.0)
    serial = replace(new, decode_s=0.0, decode_s_per_seq=step)
    mid = replace(new, decode_s=step / 2, decode_s_per_seq=step / 2)
    notes.append("the sweep never batched (one slot), so how a decode step grows with the batch is unknown: "
                 "the value takes a step of b streams as (1 + b)/2 single steps; the range spans free batching "
                 "(a GPU's memory-bound decode) to none at all (a CPU's, where b streams take b steps)")
    h = judge_headroom(result, targets, model=mid, bt=bt, notes=tuple(notes))
    if not h.trusted:
        return h, (serial, free)
    lo, hi = (judge_headroom(result, targets, model=serial, bt=bt), judge_headroom(result, targets, model=free, bt=bt))
    return replace(h, users=replace(h.users, low=min(h.users.low, lo.users.low), high=max(h.users.high, hi.users.high),
                                    at_least=h.users.at_least or hi.users.at_least),
                   rate_rps=replace(h.rate_rps, low=min(h.rate_rps.low, lo.rate_rps.low),
                                    high=max(h.rate_rps.high, hi.rate_rps.high))), (serial, free)
