"""KV-cache and concurrency arithmetic (pure functions, no I/O).

Every slot an engine serves holds a KV cache as long as its context. The formula is

    bytes per token = Σ over attention layers  kv_heads × (key_length × b_k + value_length × b_v)

which for the usual uniform model is `2 (K and V) × layers × kv_heads × head_dim × bytes`.
Worked example, the figures the project pins in tests/test_capacity.py:

* Qwen3-8B-like: 36 layers × 8 KV heads × 128 head_dim × 2 bytes (f16) × 2 (K and V)
  = 147,456 B = 144 KiB per token; 8,192 tokens take 1,207,959,552 B ≈ 1.2 GB (1.125 GiB).
* Llama-3-8B: 32 layers → 131,072 B = 128 KiB per token; 8,192 tokens take exactly 1 GiB.
* 6 GiB of free memory hold 5 such 8K conversations (6 / 1.125 = 5.3).
* 20 users, 12 s per answer, one turn every 90 s → 20 × 12 ÷ 90 ≈ 2.7 requests in flight.

Multi-head latent attention (DeepSeek V2/V3, "MLA") caches one latent of
`kv_lora_rank + qk_rope_head_dim` values per layer that serves as both K and V; it is
modelled as one KV head with that key length and no separate value.

Sliding-window layers are *noted* (`KVShape.sliding_window`) but sized like full layers:
the result is an upper bound, which is what a "will it fit" question needs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

# Bytes per cached value (ggml block structs, ggml-common.h: 32 values per block).
CACHE_BYTES_PER_VALUE: dict[str, Fraction] = {
    "f32": Fraction(4),
    "f16": Fraction(2),
    "bf16": Fraction(2),
    "fp8": Fraction(1),  # vLLM fp8 / fp8_e4m3 / fp8_e5m2: per-tensor scales, negligible
    "fp8_e4m3": Fraction(1),
    "fp8_e5m2": Fraction(1),
    "q8_0": Fraction(34, 32),  # f16 scale + 32 int8
    "q5_1": Fraction(24, 32),
    "q5_0": Fraction(22, 32),
    "q4_1": Fraction(20, 32),
    "q4_0": Fraction(18, 32),  # f16 scale + 16 bytes of nibbles
    "iq4_nl": Fraction(18, 32),
}
# Values per quantisation block: a row is stored in whole blocks.
_BLOCK_VALUES = {"q8_0": 32, "q5_1": 32, "q5_0": 32, "q4_1": 32, "q4_0": 32, "iq4_nl": 32}
# Spellings seen in configs and flags for the same thing.
_CACHE_ALIASES = {
    "": "f16", "auto": "f16", "fp16": "f16", "float16": "f16", "half": "f16",
    "fp32": "f32", "float32": "f32", "bfloat16": "bf16", "float8": "fp8",
    "fp8_e4m3fn": "fp8_e4m3",
}
QUANTISED_CACHE_TYPES = frozenset(_BLOCK_VALUES)


class ShapeError(ValueError):
    """A model description lacks what the KV arithmetic needs; str() says what."""


@dataclass(frozen=True)
class KVShape:
    """What the KV cache of one token looks like, layer by layer.

    `kv_heads` has one entry per layer (0 for layers without attention, e.g. recurrent
    layers of hybrid models). For MLA, each attention layer has one "head" with
    `key_length = kv_lora_rank + qk_rope_head_dim` and `value_length = 0`.
    """

    kv_heads: tuple[int, ...]
    key_length: int
    value_length: int
    mla: bool = False
    sliding_window: int | None = None
    context_length: int | None = None  # the model's trained context, when known
    architecture: str | None = None

    @property
    def layers(self) -> int:
        """Layers that hold KV (attention layers)."""
        return sum(1 for h in self.kv_heads if h > 0)

    @property
    def uniform_kv_heads(self) -> int | None:
        heads = {h for h in self.kv_heads if h > 0}
        return heads.pop() if len(heads) == 1 else None

    def formula(self, cache_type: str = "f16") -> str:
        """The arithmetic behind kv_bytes_per_token, as a person would write it."""
        ct = normalise_cache_type(cache_type)
        b = CACHE_BYTES_PER_VALUE[ct]
        bytes_txt = f"{float(b):g} B ({ct})"
        total = f"{kv_bytes_per_token(self, ct):,} B"
        if self.mla:
            return f"{self.layers} layers × 1 latent × {self.key_length} values × {bytes_txt} = {total}"
        heads = self.uniform_kv_heads
        heads_txt = f"{heads} KV heads" if heads is not None else "per-layer KV heads"
        if self.key_length == self.value_length:
            return (f"2 (K,V) × {self.layers} layers × {heads_txt} × {self.key_length} head_dim"
                    f" × {bytes_txt} = {total}")
        return (f"{self.layers} layers × {heads_txt} × ({self.key_length} K + {self.value_length} V)"
                f" × {bytes_txt} = {total}")


def uniform_shape(layers: int, kv_heads: int, head_dim: int, **kw: Any) -> KVShape:
    """The common case: every layer has the same KV heads and K/V head size."""
    if layers <= 0 or kv_heads <= 0 or head_dim <= 0:
        raise ShapeError(f"layers, KV heads and head_dim must be positive (got {layers}, {kv_heads}, {head_dim})")
    return KVShape((kv_heads,) * layers, head_dim, head_dim, **kw)


def normalise_cache_type(cache_type: str | None) -> str:
    ct = (cache_type or "").strip().lower()
    ct = _CACHE_ALIASES.get(ct, ct)
    if ct not in CACHE_BYTES_PER_VALUE:
        raise ShapeError(f"unknown KV cache type {cache_type!r}; known: {', '.join(CACHE_BYTES_PER_VALUE)}")
    return ct


def _row_bytes(values: int, ct: str) -> int:
    """Bytes of one cached row of `values` numbers: whole blocks for quantised types."""
    block = _BLOCK_VALUES.get(ct, 1)
    blocks = -(-values // block)
    return int(blocks * block * CACHE_BYTES_PER_VALUE[ct])


def kv_bytes_per_token(shape: KVShape, cache_type: str = "f16") -> int:
    """KV-cache bytes one token occupies in every attention layer together."""
    ct = normalise_cache_type(cache_type)
    total = 0
    for heads in shape.kv_heads:
        if heads <= 0:
            continue
        total += _row_bytes(heads * shape.key_length, ct)
        if shape.value_length:
            total += _row_bytes(heads * shape.value_length, ct)
    return total


def kv_bytes(shape: KVShape, tokens: int, cache_type: str = "f16") -> int:
    """KV-cache bytes for `tokens` cached tokens (one conversation of that length,
    or the sum over slots)."""
    return kv_bytes_per_token(shape, cache_type) * max(0, int(tokens))


def conversations_fit(free_bytes: int | float, bytes_per_token: int, context: int) -> int:
    """How many whole conversations of `context` tokens fit in `free_bytes`."""
    per_conversation = bytes_per_token * context
    if per_conversation <= 0 or free_bytes <= 0:
        return 0
    return int(free_bytes // per_conversation)


def in_flight(users: float, turn_seconds: float, seconds_between_turns: float) -> float:
    """Average requests in flight (Little's law): users × turn_seconds ÷ seconds_between_turns.

    `seconds_between_turns` is the period from one turn's start to the same user's next
    turn (answer time + reading/typing time). It is clamped to at least `turn_seconds`:
    one user cannot have more than one request running. An agent that never pauses
    has period = turn_seconds and keeps one request in flight all the time.
    """
    if users <= 0 or turn_seconds <= 0:
        return 0.0
    period = max(seconds_between_turns, turn_seconds)
    return users * turn_seconds / period


def slots_for_coverage(users: int, busy_fraction: float, coverage: float = 0.9) -> int:
    """Smallest slot count n such that at least `coverage` of the time no more than n of
    `users` independent users (each busy `busy_fraction` of the time) are in flight.

    This is the "in-flight estimate rounded up with a margin": the binomial quantile.
    20 users busy 12/90 of the time average 2.7 in flight; 5 slots cover 90 %.
    """
    users = int(users)
    if users <= 0 or busy_fraction <= 0:
        return 0
    p = min(1.0, busy_fraction)
    if p >= 1.0:
        return users
    # Each term in log space: comb(users, n) overflows a float past ~1000 users.
    log_all, log_p, log_q = math.lgamma(users + 1), math.log(p), math.log1p(-p)
    cumulative = 0.0
    for n in range(users + 1):
        cumulative += math.exp(log_all - math.lgamma(n + 1) - math.lgamma(users - n + 1)
                               + n * log_p + (users - n) * log_q)
        if cumulative >= coverage - 1e-12:
            return n
    return users


# ---- model descriptions → KVShape ---------------------------------------------------

_HF_LAYERS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_HF_HEADS = ("num_attention_heads", "n_head", "num_heads")
_HF_KV_HEADS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")
_HF_HIDDEN = ("hidden_size", "n_embd", "d_model")
_HF_CONTEXT = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "max_seq_len")
# layer_types entries (transformers ≥ 4.5x) that hold a KV cache; "linear_attention" and
# "mamba" layers keep a fixed-size state instead.
_KV_LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "attention")


MAX_LAYERS = 10_000  # anything larger is garbage, not a model


def _number(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return int(v)


def _first_int(cfg: Mapping[str, Any], keys: Sequence[str]) -> int | None:
    for k in keys:
        v = _number(cfg.get(k))
        if v is not None and v > 0:
            return v
    return None


def _check_layers(layers: int) -> int:
    if layers > MAX_LAYERS:
        raise ShapeError(f"{layers} layers is not a plausible model")
    return layers


def kv_shape_from_hf_config(config: Mapping[str, Any]) -> KVShape:
    """KVShape from a Hugging Face `config.json` (keys as vLLM reads them).

    Multimodal configs nest the language model under `text_config`; its keys win.
    """
    if not isinstance(config, Mapping):
        raise ShapeError("config.json is not a JSON object")
    cfg: dict[str, Any] = dict(config)
    text = config.get("text_config")
    if isinstance(text, Mapping):
        cfg.update(text)
    layers = _first_int(cfg, _HF_LAYERS)
    if layers is None:
        raise ShapeError("config.json has no num_hidden_layers")
    _check_layers(layers)
    heads = _first_int(cfg, _HF_HEADS)
    context = _first_int(cfg, _HF_CONTEXT)
    arch = None
    archs = cfg.get("architectures") or config.get("architectures")
    if isinstance(archs, list) and archs:
        arch = str(archs[0])
    elif isinstance(cfg.get("model_type"), str):
        arch = cfg["model_type"]
    # Qwen2 configs carry sliding_window with use_sliding_window: false.
    window = None if cfg.get("use_sliding_window") is False else _first_int(cfg, ("sliding_window",))

    lora = _first_int(cfg, ("kv_lora_rank",))
    if lora is not None:
        rope = _first_int(cfg, ("qk_rope_head_dim",)) or 0
        return KVShape((1,) * layers, lora + rope, 0, mla=True, sliding_window=window,
                       context_length=context, architecture=arch)

    kv_heads = _first_int(cfg, _HF_KV_HEADS)
    if kv_heads is None:
        # Falcon-7B style configs say multi_query instead of a head count.
        kv_heads = 1 if cfg.get("multi_query") is True else heads
    if kv_heads is None:
        raise ShapeError("config.json has neither KV heads nor num_attention_heads")
    head_dim = _first_int(cfg, ("head_dim", "hidden_size_per_head"))
    if head_dim is None:
        hidden = _first_int(cfg, _HF_HIDDEN)
        if hidden is None or not heads:
            raise ShapeError("config.json has no head_dim and no hidden_size/num_attention_heads to derive it")
        head_dim = hidden // heads
    per_layer = [kv_heads] * layers
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers and all(isinstance(t, str) for t in types):
        per_layer = [kv_heads if t in _KV_LAYER_TYPES else 0 for t in types]
    return KVShape(tuple(per_layer), head_dim, head_dim, sliding_window=window,
                   context_length=context, architecture=arch)


def _gguf_value(meta: Mapping[str, Any], key: str) -> Any:
    v = meta.get(key)
    if isinstance(v, (list, tuple)):
        return [n for n in (_number(x) for x in v) if n is not None]
    return _number(v)


def kv_shape_from_gguf(metadata: Mapping[str, Any]) -> KVShape:
    """KVShape from GGUF metadata or Ollama's `/api/show` `model_info` (same keys).

    `{arch}.attention.head_count_kv` may be a per-layer array (0 = no attention in that
    layer); `key_length`/`value_length` default to `embedding_length / head_count`
    (llama.cpp `n_embd_head_k`); MLA models carry `attention.kv_lora_rank`.
    """
    if not isinstance(metadata, Mapping):
        raise ShapeError("model metadata is not a mapping")
    arch = metadata.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ShapeError("model metadata has no general.architecture")
    p = f"{arch}."
    layers = _gguf_value(metadata, p + "block_count")
    if not isinstance(layers, int) or layers <= 0:
        raise ShapeError(f"model metadata has no {p}block_count")
    _check_layers(layers)
    context = _gguf_value(metadata, p + "context_length")
    context = context if isinstance(context, int) and context > 0 else None
    window = _gguf_value(metadata, p + "attention.sliding_window")
    window = window if isinstance(window, int) and window > 0 else None

    def per_layer(value: Any, name: str) -> list[int]:
        if isinstance(value, int):
            return [value] * layers
        if isinstance(value, list) and len(value) == layers:
            return value
        if isinstance(value, list) and value:
            raise ShapeError(f"{p}{name} has {len(value)} entries for {layers} layers")
        raise ShapeError(f"model metadata has no {p}{name}")

    heads = per_layer(_gguf_value(metadata, p + "attention.head_count"), "attention.head_count")
    raw_kv = _gguf_value(metadata, p + "attention.head_count_kv")
    kv_heads = per_layer(raw_kv, "attention.head_count_kv") if raw_kv not in (None, []) else list(heads)

    lora = _gguf_value(metadata, p + "attention.kv_lora_rank")
    if isinstance(lora, int) and lora > 0:
        rope = _gguf_value(metadata, p + "rope.dimension_count")
        rope = rope if isinstance(rope, int) else 0
        return KVShape(tuple(1 if h > 0 else 0 for h in kv_heads), lora + rope, 0, mla=True,
                       sliding_window=window, context_length=context, architecture=arch)

    key_length = _gguf_value(metadata, p + "attention.key_length")
    value_length = _gguf_value(metadata, p + "attention.value_length")
    if not isinstance(key_length, int) or key_length <= 0 or not isinstance(value_length, int) or value_length <= 0:
        embd = _gguf_value(metadata, p + "embedding_length")
        max_heads = max(heads) if heads else 0
        if not isinstance(embd, int) or embd <= 0 or max_heads <= 0:
            raise ShapeError(f"model metadata has neither {p}attention.key_length nor "
                             f"{p}embedding_length and {p}attention.head_count")
        default = embd // max_heads
        if not isinstance(key_length, int) or key_length <= 0:
            key_length = default
        if not isinstance(value_length, int) or value_length <= 0:
            value_length = default
    return KVShape(tuple(kv_heads), key_length, value_length, sliding_window=window,
                   context_length=context, architecture=arch)


# ---- presentation -------------------------------------------------------------------

def format_bytes(n: float) -> str:
    """Binary units, the way GPU memory is counted: '1.12 GiB', '144 KiB'."""
    n = float(n)
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{n:.0f} B"
