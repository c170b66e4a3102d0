"""`llmdoctor plan` and the pure sizing behind it: the seeds' figures, pinned."""
from __future__ import annotations

import json

import pytest

from llmdoctor.knowledge.capacity import uniform_shape
from llmdoctor.parsing import parse_size
from llmdoctor.judge.sizing import DEFAULT_HEADROOM, Memory, PlanError, Workload, make_plan

from .conftest import FIX

QWEN = uniform_shape(36, 8, 128, context_length=40960)
SEED = Workload(users=20, turn_seconds=12, seconds_between_turns=90)


@pytest.mark.parametrize("gpu,weights", [("24GB", "16GB"), ("24GiB", "16GiB")])
def test_seed_24gb_card_16gb_weights_five_8k_conversations(gpu, weights):
    p = make_plan(QWEN, Memory(parse_size(gpu), parse_size(weights)), SEED, 8192)
    assert p.kv_bytes_per_token == 147_456
    assert p.kv_bytes_per_conversation == 1_207_959_552
    assert 5.9e9 < p.memory.kv_budget < 7.0e9  # "about 6 GB left"
    assert p.conversations_fit == 5
    assert round(p.in_flight, 1) == 2.7
    r = p.recommended
    assert (r.parallel, r.context_length, r.kv_cache_type, r.max_queue) == (5, 8192, "f16", 20)
    assert p.fits_wanted and not p.warnings


def test_think_seconds_is_the_pause_after_an_answer():
    # 12 s answer + 78 s reading and typing = one turn every 90 s.
    w = Workload(users=20, turn_seconds=12, think_seconds=78)
    assert round(w.in_flight(), 1) == 2.7
    assert w.wanted_slots() == 5
    agents = Workload(users=6, turn_seconds=20, think_seconds=0)
    assert agents.in_flight() == 6 and agents.wanted_slots() == 6


def test_quantised_cache_only_when_it_makes_the_slots_fit():
    mem = Memory(parse_size("24GiB"), parse_size("16GiB"))
    p = make_plan(QWEN, mem, Workload(concurrent=8), 8192)
    assert p.recommended.kv_cache_type == "q8_0" and p.recommended.flash_attention
    assert p.recommended.parallel == 8
    # Enough room in f16: stays f16.
    assert make_plan(QWEN, mem, Workload(concurrent=4), 8192).recommended.kv_cache_type == "f16"
    # Too many even for q8_0: the most that fit (q8_0), never fewer than for less demand; and says so.
    p = make_plan(QWEN, mem, Workload(concurrent=16), 8192)
    assert p.recommended.kv_cache_type == "q8_0" and p.recommended.parallel == p.conversations_fit * 2 > 8
    assert not p.fits_wanted and f"Only {p.recommended.parallel} of the 16" in p.warnings[0]
    # Not allowed (old Ollama) or the type was given: never switched.
    assert make_plan(QWEN, mem, Workload(concurrent=8), 8192, quantised_cache_ok=False).recommended.kv_cache_type == "f16"
    assert make_plan(QWEN, mem, Workload(concurrent=8), 8192, "f16", cache_type_fixed=True).recommended.kv_cache_type == "f16"


def test_bounds_and_context_rules():
    mem = Memory(parse_size("80GB"), parse_size("16GB"))
    p = make_plan(QWEN, mem, Workload(concurrent=40), 4096)
    assert p.recommended.parallel == 16 and "bounded to 16" in p.warnings[0]
    assert make_plan(QWEN, mem, Workload(concurrent=40), 4096, max_parallel=32).recommended.parallel == 32
    with pytest.raises(PlanError, match="larger than the model's trained context 40,960"):
        make_plan(QWEN, mem, SEED, 65536)
    raised = make_plan(QWEN, mem, SEED, 4096, min_context=5065)
    assert raised.recommended.context_length == 6144  # 5065 + 10 %, up to a multiple of 1024
    assert make_plan(QWEN, mem, Workload(), 8192).recommended.parallel == 16  # memory alone


def test_context_comes_down_only_when_allowed():
    mem = Memory(parse_size("24GiB"), parse_size("16GiB"))
    kept = make_plan(QWEN, mem, Workload(concurrent=4), 32768, quantised_cache_ok=False)
    assert kept.recommended.context_length == 32768 and kept.recommended.parallel == 1
    lowered = make_plan(QWEN, mem, Workload(concurrent=4), 32768, quantised_cache_ok=False, lowest_context=8192)
    assert lowered.recommended.context_length == 8192 and lowered.recommended.parallel == 4


def test_nothing_fits():
    p = make_plan(QWEN, Memory(parse_size("16GB"), parse_size("16GB")), SEED, 8192)
    assert p.conversations_fit == 0 and p.recommended.parallel == 1
    assert "The weights do not fit" in p.warnings[0] and "spills" not in " ".join(p.warnings)
    p = make_plan(QWEN, Memory(parse_size("18GB"), parse_size("16GB")), SEED, 32768)
    assert p.conversations_fit == 0 and "spills to CPU" in p.warnings[0]  # the weights fit, the cache does not


def test_more_demand_takes_the_cheaper_cache_instead_of_fewer_slots():
    """--concurrent 8 got 8 slots in q8_0; --concurrent 20 got 5 in f16 although q8_0 fits 11."""
    memory = Memory(parse_size("24GB"), parse_size("16GB"))
    eight = make_plan(QWEN, memory, Workload(concurrent=8), 8192).recommended
    twenty = make_plan(QWEN, memory, Workload(concurrent=20), 8192)
    assert twenty.recommended.parallel >= eight.parallel
    assert twenty.recommended.kv_cache_type == "q8_0" and not twenty.fits_wanted
    assert "q8_0 KV cache," not in " ".join(twenty.warnings)  # it is already proposed


# ---- the command ------------------------------------------------------------------------------

SEED_ARGS = ("--gpu-memory", "24GB", "--weights", "16GB", "--users", "20", "--turn-seconds", "12",
             "--seconds-between-turns", "90", "--context", "8192")


def test_plan_json_from_hf_config(cli):
    code, out, err = cli("plan", "--hf-config", str(FIX / "qwen3-8b.config.json"), *SEED_ARGS, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["kv_bytes_per_token"] == 147_456
    assert d["kv_bytes_per_conversation"] == 1_207_959_552
    assert d["conversations_fit"] == 5
    assert round(d["in_flight"], 1) == 2.7
    assert d["recommended"] == {"parallel": 5, "context_length": 8192, "kv_cache_type": "f16",
                                "flash_attention": False, "max_queue": 20, "kv_bytes": 5 * 1_207_959_552}


def test_plan_text_has_the_figures_and_the_bar(cli):
    code, out, _ = cli("plan", "--layers", "36", "--kv-heads", "8", "--head-dim", "128", *SEED_ARGS)
    assert code == 0
    assert "147,456 B (144 KiB, f16)" in out
    assert "Conversations fit    5" in out and "In flight            2.7" in out
    assert "█ weights 16 GB | ▓ KV 5 × 1.21 GB" in out
    assert "OLLAMA_NUM_PARALLEL=5 OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_MAX_QUEUE=20" in out


def test_plan_32_layers_and_think_seconds(cli):
    code, out, _ = cli("plan", "--hf-config", str(FIX / "llama3-8b.config.json"), "--gpu-memory", "24GiB",
                       "--weights", "16GiB", "--users", "20", "--turn-seconds", "12", "--think-seconds", "78",
                       "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["kv_bytes_per_token"] == 131_072 and d["context"] == 8192
    assert d["kv_bytes_per_conversation"] == 2**30 and round(d["in_flight"], 1) == 2.7


def test_plan_from_a_gguf_file(cli, tmp_path):
    from tests.support.tinymodel import write_tiny_gguf

    path = tmp_path / "tiny.gguf"
    write_tiny_gguf(path, "small")  # 2 layers, 2 KV heads, head_dim 64/4 = 16
    code, out, err = cli("plan", "--gguf", str(path), "--gpu-memory", "8GB", "--concurrent", "2",
                         "--context", "4096", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["kv_bytes_per_token"] == 2 * 2 * 2 * 16 * 2
    assert d["memory"]["weights_bytes"] == path.stat().st_size
    assert d["model"]["trained_context"] == 4096


def test_plan_from_an_ollama_model_name(cli, fake_ollama):
    code, out, err = cli("plan", "--model", "llama3:8b", "--port", str(fake_ollama), "--gpu-memory", "24GB",
                         "--concurrent", "4", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["kv_bytes_per_token"] == 131_072 and d["memory"]["weights_bytes"] == 4661224676
    assert d["model"]["trained_context"] == 8192


@pytest.mark.parametrize("args,message", [
    (("--model", "no-such-model"), "does not know model 'no-such-model'"),
    (("--hf-config", str(FIX / "qwen3-8b.config.json"), "--gpu-memory", "24GB", "--weights", "16GB",
      "--context", "131072"), "larger than the model's trained context 40,960"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--weights", "1GB", "--gpu-memory", "24 apples"),
     "give a unit"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--weights", "16", "--gpu-memory", "24"),
     "give a unit"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--weights", "16GB", "--gpu-memory", "24GB",
      "--users", "5", "--turn-seconds", "nan"), "must be a number of seconds"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--weights", "16GB", "--gpu-memory", "24GB",
      "--users", "5", "--turn-seconds", "10", "--think-seconds", "-inf"), "must be a number of seconds"),
    (("--hf-config", str(FIX / "qwen3-8b.config.json"), "--gpu-memory", "24GB"), "--weights"),
    (("--hf-config", str(FIX / "README.md"), "--gpu-memory", "24GB", "--weights", "1GB"), "not JSON"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--gpu-memory", "24GB", "--weights", "16GB",
      "--users", "5"), "--users needs --turn-seconds"),
    (("--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--gpu-memory", "24GB", "--weights", "16GB",
      "--cache-type", "q3_k"), "unknown KV cache type"),
])
def test_plan_bad_input_exits_3_with_a_message(cli, fake_ollama, args, message):
    if args[0] == "--model":
        args = (*args, "--port", str(fake_ollama), "--gpu-memory", "24GB")
    code, out, err = cli("plan", *args)
    assert code == 3, out
    assert message in err
    assert "Traceback" not in out + err


def test_default_headroom_is_documented_value():
    assert DEFAULT_HEADROOM == 1.5 * 2**30


def test_plan_without_gpu_or_gpu_memory_exits_3(cli, monkeypatch):
    import llmdoctor.cli.plan as plan_cmd

    monkeypatch.setattr(plan_cmd, "_gpu_memory_from_nvml", lambda: (None, "NVML Shared Library Not Found"))
    code, out, err = cli("plan", "--layers", "36", "--kv-heads", "8", "--head-dim", "128", "--weights", "16GB")
    assert code == 3 and "no GPU found (NVML Shared Library Not Found) and no --gpu-memory" in err


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(total=st.integers(1, 200 * 10**9), weights=st.integers(0, 200 * 10**9),
       users=st.integers(1, 500), turn=st.floats(0.1, 600), think=st.floats(0, 3600),
       context=st.sampled_from([512, 2048, 4096, 8192, 32768]), max_parallel=st.integers(1, 64))
def test_the_recommendation_always_fits_or_says_so(total, weights, users, turn, think, context, max_parallel):
    from llmdoctor.knowledge.capacity import kv_bytes_per_token

    workload = Workload(users=users, turn_seconds=turn, think_seconds=think) if users % 5 else Workload()
    p = make_plan(QWEN, Memory(total, weights), workload, context, max_parallel=max_parallel)
    r = p.recommended
    assert 1 <= r.parallel <= max_parallel
    assert r.max_queue == 4 * r.parallel
    used = weights + r.parallel * r.context_length * kv_bytes_per_token(QWEN, r.kv_cache_type) + p.memory.headroom
    if p.fits_wanted:
        assert used <= total  # weights + slots × context × bytes per token + headroom ≤ GPU memory
    else:
        assert p.warnings


@settings(max_examples=200, deadline=None)
@given(total=st.integers(4 * 10**9, 200 * 10**9), weights=st.integers(0, 100 * 10**9),
       demand=st.integers(1, 63), more=st.integers(1, 64), context=st.sampled_from([2048, 8192, 32768]),
       cache=st.sampled_from([None, "f16", "q8_0"]), lowest=st.sampled_from([None, 2048]))
def test_more_demand_never_gets_fewer_slots(total, weights, demand, more, context, cache, lowest):
    memory = Memory(total, weights)
    kw = dict(cache_type=cache or "f16", cache_type_fixed=cache is not None, max_parallel=64, lowest_context=lowest)
    low = make_plan(QWEN, memory, Workload(concurrent=demand), context, **kw).recommended
    high = make_plan(QWEN, memory, Workload(concurrent=demand + more), context, **kw).recommended
    assert high.parallel >= low.parallel, (low, high)


def test_without_a_workload_one_conversation_that_fits_is_what_was_wanted():
    # found by hypothesis (the property above): f16 fits no 8,192-token conversation in ~0.6 GB of KV
    # budget, q8_0 fits one; the plan said it did not fit what was wanted, with no warning saying why
    p = make_plan(QWEN, Memory(2_252_341_248, 0), Workload(), 8192, max_parallel=2)
    assert (p.recommended.parallel, p.recommended.kv_cache_type) == (1, "q8_0")
    assert p.fits_wanted and not p.warnings
