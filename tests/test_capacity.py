"""KV arithmetic: the seeds' figures, every model-description spelling, and garbage."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.knowledge.capacity import (
    CACHE_BYTES_PER_VALUE,
    KVShape,
    ShapeError,
    conversations_fit,
    format_bytes,
    in_flight,
    kv_bytes,
    kv_bytes_per_token,
    kv_shape_from_gguf,
    kv_shape_from_hf_config,
    slots_for_coverage,
    uniform_shape,
)

FIX = Path(__file__).parent / "fixtures" / "tune"
GiB = 2**30


def load(name):
    return json.loads((FIX / name).read_text())


# ---- the seeds' figures -------------------------------------------------------------

def test_seed_36_layers_is_147456_bytes_per_token():
    # 36 layers × 8 KV heads × 128 head_dim × 2 bytes (f16) × 2 (K and V)
    shape = uniform_shape(36, 8, 128)
    assert kv_bytes_per_token(shape) == 36 * 8 * 128 * 2 * 2 == 147_456 == 144 * 1024


def test_seed_8k_conversation_is_about_1_2_gb():
    b = kv_bytes(uniform_shape(36, 8, 128), 8192, "f16")
    assert b == 1_207_959_552  # 1.21 GB, 1.125 GiB
    assert round(b / 1e9, 1) == 1.2


def test_seed_five_conversations_in_the_6_gb_left():
    per_token = kv_bytes_per_token(uniform_shape(36, 8, 128))
    assert conversations_fit(6 * GiB, per_token, 8192) == 5  # 6 / 1.125 = 5.3
    # Read as decimal, 6 GB holds 4.97 conversations: "about five", not five whole ones.
    assert 4.9 < 6e9 / (per_token * 8192) < 5.0


def test_seed_32_layers_is_131072_bytes_per_token():
    assert kv_bytes_per_token(uniform_shape(32, 8, 128)) == 131_072
    assert kv_bytes(uniform_shape(32, 8, 128), 8192) == GiB  # FACTS §7


def test_seed_in_flight_20_users():
    assert in_flight(20, 12, 90) == pytest.approx(2.6667, abs=1e-3)
    assert round(in_flight(20, 12, 90), 1) == 2.7


def test_in_flight_is_bounded_by_one_per_user():
    # An agent that never pauses keeps exactly one request in flight.
    assert in_flight(5, 30, 0) == 5
    assert in_flight(5, 30, 30) == 5
    assert in_flight(0, 30, 60) == 0


def test_slots_for_coverage_rounds_the_estimate_up():
    assert slots_for_coverage(20, 12 / 90) == 5  # average 2.7, 90 % of moments ≤ 5
    assert slots_for_coverage(20, 12 / 90, coverage=0.5) in (2, 3)
    assert slots_for_coverage(8, 1.0) == 8
    assert slots_for_coverage(0, 0.5) == 0


def test_slots_for_coverage_of_thousands_of_users():
    """`--users 5000` is a real company: the binomial terms must not overflow a float."""
    mean, sd = 5000 * 0.1, (5000 * 0.1 * 0.9) ** 0.5
    assert mean < slots_for_coverage(5000, 0.1) < mean + 3 * sd
    assert slots_for_coverage(100_000, 0.01, coverage=0.5) in (999, 1000, 1001)


# ---- cache types ----------------------------------------------------------------------

def test_cache_types_follow_ggml_blocks():
    s = uniform_shape(32, 8, 128)
    assert kv_bytes_per_token(s, "q8_0") == 131_072 * 34 // 64  # 34 B per 32 values
    assert kv_bytes_per_token(s, "q4_0") == 131_072 * 18 // 64
    assert kv_bytes_per_token(s, "f32") == 2 * 131_072
    assert kv_bytes_per_token(s, "bf16") == kv_bytes_per_token(s, "f16")
    assert kv_bytes_per_token(s, "fp8") == 131_072 // 2
    for ct in ("q4_1", "q5_0", "q5_1", "iq4_nl"):
        assert kv_bytes_per_token(s, ct) < kv_bytes_per_token(s, "q8_0")
    assert CACHE_BYTES_PER_VALUE["q8_0"] == 34 / 32


def test_cache_type_spellings_and_unknown():
    s = uniform_shape(2, 1, 32)
    assert kv_bytes_per_token(s, "") == kv_bytes_per_token(s, "F16") == kv_bytes_per_token(s, "float16")
    with pytest.raises(ShapeError, match="unknown KV cache type"):
        kv_bytes_per_token(s, "q3_k")


def test_quantised_rows_are_whole_blocks():
    s = KVShape((1,), 40, 40)  # 40 values → 2 blocks of 32
    assert kv_bytes_per_token(s, "q8_0") == 2 * (2 * 34)


# ---- Hugging Face config.json ----------------------------------------------------------

def test_hf_qwen3_8b():
    s = kv_shape_from_hf_config(load("qwen3-8b.config.json"))
    assert kv_bytes_per_token(s) == 147_456
    assert s.context_length == 40960 and s.sliding_window is None
    assert s.architecture == "Qwen3ForCausalLM"


def test_hf_llama3_head_dim_from_hidden_size():
    s = kv_shape_from_hf_config(load("llama3-8b.config.json"))
    assert (s.layers, s.key_length, s.uniform_kv_heads) == (32, 128, 8)
    assert kv_bytes_per_token(s) == 131_072


def test_hf_deepseek_mla():
    s = kv_shape_from_hf_config(load("deepseek-v3.config.excerpt.json"))
    assert s.mla and s.key_length == 512 + 64 and s.value_length == 0
    assert kv_bytes_per_token(s) == 61 * 576 * 2
    assert "latent" in s.formula()


@pytest.mark.parametrize("key", ["n_head_kv", "num_kv_heads", "num_key_value_heads",
                                 "multi_query_group_num", "num_attention_groups"])
def test_hf_every_kv_head_spelling(key):
    cfg = {"num_hidden_layers": 4, "num_attention_heads": 16, "hidden_size": 1024, key: 2}
    assert kv_shape_from_hf_config(cfg).kv_heads == (2,) * 4


def test_hf_mha_and_falcon_multi_query():
    assert kv_shape_from_hf_config({"num_hidden_layers": 2, "num_attention_heads": 16,
                                    "hidden_size": 1024}).kv_heads == (16, 16)
    falcon = {"n_layer": 32, "n_head": 71, "hidden_size": 4544, "multi_query": True}
    s = kv_shape_from_hf_config(falcon)
    assert s.kv_heads == (1,) * 32 and s.key_length == 64


def test_hf_head_dim_fallbacks():
    base = {"num_hidden_layers": 1, "num_attention_heads": 8, "num_key_value_heads": 8, "hidden_size": 1024}
    assert kv_shape_from_hf_config(base).key_length == 128
    assert kv_shape_from_hf_config({**base, "head_dim": 0, "hidden_size_per_head": 96}).key_length == 96
    assert kv_shape_from_hf_config({**base, "head_dim": 256}).key_length == 256


def test_hf_text_config_nesting_and_sliding_window():
    cfg = {"architectures": ["Gemma3ForConditionalGeneration"],
           "vision_config": {"num_hidden_layers": 27, "num_attention_heads": 16, "hidden_size": 1152},
           "text_config": {"num_hidden_layers": 34, "num_attention_heads": 8, "num_key_value_heads": 4,
                           "head_dim": 256, "hidden_size": 2560, "sliding_window": 1024,
                           "max_position_embeddings": 131072}}
    s = kv_shape_from_hf_config(cfg)
    assert (s.layers, s.uniform_kv_heads, s.key_length) == (34, 4, 256)
    assert s.sliding_window == 1024 and s.context_length == 131072


def test_hf_layer_types_skip_linear_attention():
    cfg = {"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
           "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"]}
    s = kv_shape_from_hf_config(cfg)
    assert s.layers == 1 and kv_bytes_per_token(s) == 2 * 2 * 256 * 2


def test_hf_qwen2_sliding_window_disabled():
    cfg = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256,
           "sliding_window": 131072, "use_sliding_window": False}
    assert kv_shape_from_hf_config(cfg).sliding_window is None


def test_hf_missing_keys_say_what():
    with pytest.raises(ShapeError, match="num_hidden_layers"):
        kv_shape_from_hf_config({"hidden_size": 4096})
    with pytest.raises(ShapeError, match="head_dim"):
        kv_shape_from_hf_config({"num_hidden_layers": 2, "num_key_value_heads": 2})


# ---- GGUF metadata / Ollama model_info ------------------------------------------------------

def test_ollama_model_info_llama3():
    s = kv_shape_from_gguf(load("api_show_llama3.json")["model_info"])
    assert kv_bytes_per_token(s) == 131_072
    assert s.context_length == 8192 and s.architecture == "llama"


def test_gguf_qwen3_with_key_length():
    meta = {"general.architecture": "qwen3", "qwen3.block_count": 36, "qwen3.attention.head_count": 32,
            "qwen3.attention.head_count_kv": 8, "qwen3.attention.key_length": 128,
            "qwen3.attention.value_length": 128, "qwen3.embedding_length": 4096, "qwen3.context_length": 40960}
    assert kv_bytes_per_token(kv_shape_from_gguf(meta)) == 147_456


def test_gguf_per_layer_head_count_kv_array():
    meta = {"general.architecture": "x", "x.block_count": 4, "x.attention.head_count": 8,
            "x.embedding_length": 512, "x.attention.head_count_kv": [0, 2, 0, 4]}
    s = kv_shape_from_gguf(meta)
    assert s.layers == 2 and s.uniform_kv_heads is None
    assert kv_bytes_per_token(s) == (2 + 4) * 64 * 2 * 2
    assert "per-layer" in s.formula()


def test_gguf_different_key_and_value_length():
    meta = {"general.architecture": "x", "x.block_count": 2, "x.attention.head_count": 4,
            "x.attention.head_count_kv": 1, "x.attention.key_length": 16, "x.attention.value_length": 8}
    assert kv_bytes_per_token(kv_shape_from_gguf(meta)) == 2 * 1 * (16 * 2 + 8 * 2)


def test_gguf_mla_deepseek2():
    meta = {"general.architecture": "deepseek2", "deepseek2.block_count": 61,
            "deepseek2.attention.head_count": 128, "deepseek2.attention.head_count_kv": 128,
            "deepseek2.attention.kv_lora_rank": 512, "deepseek2.rope.dimension_count": 64,
            "deepseek2.embedding_length": 7168, "deepseek2.context_length": 163840}
    s = kv_shape_from_gguf(meta)
    assert s.mla and kv_bytes_per_token(s) == 61 * 576 * 2


def test_gguf_sliding_window_is_noted():
    meta = {"general.architecture": "gemma3", "gemma3.block_count": 34, "gemma3.attention.head_count": 8,
            "gemma3.attention.head_count_kv": 4, "gemma3.attention.key_length": 256,
            "gemma3.attention.value_length": 256, "gemma3.attention.sliding_window": 1024}
    s = kv_shape_from_gguf(meta)
    assert s.sliding_window == 1024
    assert kv_bytes_per_token(s) == 34 * 4 * 256 * 2 * 2  # upper bound: full size


def test_gguf_missing_keys_say_what():
    with pytest.raises(ShapeError, match="general.architecture"):
        kv_shape_from_gguf({})
    with pytest.raises(ShapeError, match="block_count"):
        kv_shape_from_gguf({"general.architecture": "llama"})
    with pytest.raises(ShapeError, match="head_count"):
        kv_shape_from_gguf({"general.architecture": "llama", "llama.block_count": 2})
    with pytest.raises(ShapeError, match="entries for"):
        kv_shape_from_gguf({"general.architecture": "l", "l.block_count": 3,
                            "l.attention.head_count": [1, 2], "l.embedding_length": 64})


# ---- garbage ------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)
_keys = st.sampled_from(["num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
                         "hidden_size", "kv_lora_rank", "layer_types", "text_config", "sliding_window"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_keys | st.text(max_size=6), _json, max_size=8))
def test_hf_garbage_never_tracebacks(cfg):
    try:
        s = kv_shape_from_hf_config(cfg)
    except ShapeError:
        return
    assert kv_bytes_per_token(s) >= 0


_gkeys = st.sampled_from(["general.architecture", "a.block_count", "a.attention.head_count",
                          "a.attention.head_count_kv", "a.attention.key_length", "a.embedding_length",
                          "a.attention.kv_lora_rank", "a.context_length"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_gkeys, _json | st.just("a"), max_size=8))
def test_gguf_garbage_never_tracebacks(meta):
    try:
        s = kv_shape_from_gguf(meta)
    except ShapeError:
        return
    assert kv_bytes_per_token(s, "q4_0") >= 0


def test_format_bytes():
    assert format_bytes(147_456) == "144 KiB"
    assert format_bytes(1_207_959_552) == "1.12 GiB"
    assert format_bytes(12) == "12 B"
