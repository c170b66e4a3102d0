"""Proposal rules, pure: host facts in, each setting with current value, reason and arithmetic out."""
from __future__ import annotations

import pytest

from llmdoctor.judge.sizing import Workload
from llmdoctor.judge.proposal import Current, HostFacts, LoadedModel, ProposalError, make_proposal

from .conftest import load_json

INFO = load_json("api_show_llama3.json")["model_info"]  # llama3 8B: 131,072 B per token
WEIGHTS = 4_661_224_676
SEED = Workload(users=20, turn_seconds=12, seconds_between_turns=90)


def facts(ctx=4096, parallel=1, env=None, version="0.32.15", gpu=24 * 10**9, info=INFO, cache_bpt=131_072, **kw):
    size = WEIGHTS + ctx * parallel * cache_bpt
    return HostFacts(version=version, env=env or {}, model="llama3:8b", model_info=info,
                     loaded=(LoadedModel("llama3:8b", size, size, ctx),), gpu_total=gpu, gpu_source="NVML", **kw)


def by_name(p):
    return {c.name: c for c in p.changes}


def test_defaults_become_a_bounded_configuration():
    p = make_proposal(facts(), SEED)
    c = by_name(p)
    assert c["OLLAMA_NUM_PARALLEL"].proposed == "5" and c["OLLAMA_NUM_PARALLEL"].current is None
    assert c["OLLAMA_NUM_PARALLEL"].current_shown == "1 (default)"
    assert c["OLLAMA_CONTEXT_LENGTH"].proposed == "4096"
    assert c["OLLAMA_MAX_QUEUE"].proposed == "20" and c["OLLAMA_MAX_QUEUE"].current_shown == "512 (default)"
    assert "OLLAMA_KV_CACHE_TYPE" not in c and "OLLAMA_KEEP_ALIVE" not in c
    assert all(ch.reason for ch in p.changes)
    assert "2.7 in flight" in c["OLLAMA_NUM_PARALLEL"].arithmetic
    # weights are what /api/ps reports minus the KV it holds now
    assert p.plan.memory.weights == WEIGHTS


def test_quantised_cache_with_flash_attention_when_it_makes_slots_fit():
    env = {"OLLAMA_CONTEXT_LENGTH": Current("8192", "unit file override.conf")}
    p = make_proposal(facts(ctx=8192, gpu=8 * 10**9, env=env), Workload(concurrent=3))
    c = by_name(p)
    assert c["OLLAMA_KV_CACHE_TYPE"].proposed == "q8_0" and c["OLLAMA_FLASH_ATTENTION"].proposed == "1"
    assert c["OLLAMA_NUM_PARALLEL"].proposed == "3" and c["OLLAMA_CONTEXT_LENGTH"].proposed == "8192"
    assert "131,072 B → 69,632 B per token" in c["OLLAMA_KV_CACHE_TYPE"].arithmetic
    # An Ollama without OLLAMA_KV_CACHE_TYPE: no q8_0, fewer slots, and the reason.
    old = make_proposal(facts(ctx=8192, gpu=8 * 10**9, env=env, version="0.4.7"), Workload(concurrent=3))
    assert "OLLAMA_KV_CACHE_TYPE" not in by_name(old)
    assert by_name(old)["OLLAMA_NUM_PARALLEL"].proposed == "1"
    assert any("predates OLLAMA_KV_CACHE_TYPE" in s for s in old.plan.steps)


def test_an_automatic_context_comes_down_a_deliberate_one_stays():
    # v0.15.5+ on a 24 GiB card: automatic context 32768; 4 slots of that do not fit next to 16 GB.
    # 6.5 GiB of KV budget: one 32K slot in f16 (4 GiB each); 16K in q8_0 (1.06 GiB) fits four.
    info = {**INFO, "llama.context_length": 131072}
    auto = make_proposal(facts(ctx=32768, gpu=24 * 2**30, info=info), Workload(concurrent=4), weights=16 * 2**30)
    c = by_name(auto)
    assert c["OLLAMA_CONTEXT_LENGTH"].proposed == "16384" and c["OLLAMA_NUM_PARALLEL"].proposed == "4"
    assert "Lowered from 32,768" in c["OLLAMA_CONTEXT_LENGTH"].reason
    assert c["OLLAMA_KV_CACHE_TYPE"].proposed == "q8_0"
    env = {"OLLAMA_CONTEXT_LENGTH": Current("32768", "unit file override.conf")}
    kept = make_proposal(facts(ctx=32768, gpu=24 * 2**30, env=env, info=info, version="0.4.7"),
                         Workload(concurrent=4), weights=16 * 2**30)
    assert by_name(kept)["OLLAMA_CONTEXT_LENGTH"].proposed == "32768"
    assert by_name(kept)["OLLAMA_NUM_PARALLEL"].proposed == "1"
    assert any("Only 1 of the 4 wanted slots fit" in n for n in kept.notes)


def test_never_below_the_longest_prompt_never_above_trained():
    p = make_proposal(facts(longest_prompt=5065, longest_prompt_evidence="journal: truncating input prompt limit=4096 prompt=5065"), SEED)
    c = by_name(p)
    assert c["OLLAMA_CONTEXT_LENGTH"].proposed == "6144"
    assert "5,065" in c["OLLAMA_CONTEXT_LENGTH"].reason and "limit=4096" in c["OLLAMA_CONTEXT_LENGTH"].reason
    huge = make_proposal(facts(longest_prompt=20000), SEED)
    assert by_name(huge)["OLLAMA_CONTEXT_LENGTH"].proposed == "8192"  # trained context of llama3
    with pytest.raises(ProposalError, match="larger than llama3:8b's trained context 8,192"):
        make_proposal(facts(), SEED, context=16384)


def test_keep_alive_only_on_unload_evidence():
    ev = "a load 1800 s after the previous request: msg=\"llama runner started in 41.2 seconds\""
    p = make_proposal(facts(unload_evidence=ev), SEED)
    ka = by_name(p)["OLLAMA_KEEP_ALIVE"]
    assert ka.proposed == "24h" and ev in ka.reason and ka.arithmetic == "now 5 min"
    long_enough = {"OLLAMA_KEEP_ALIVE": Current("2h", "unit file override.conf")}
    assert "OLLAMA_KEEP_ALIVE" not in by_name(make_proposal(facts(unload_evidence=ev, env=long_enough), SEED))


def test_single_slot_architectures():
    info = {**{k.replace("llama.", "qwen3vl."): v for k, v in INFO.items()}, "general.architecture": "qwen3vl"}
    p = make_proposal(facts(info=info), SEED)
    assert by_name(p)["OLLAMA_NUM_PARALLEL"].proposed == "1"
    assert any("one slot whatever OLLAMA_NUM_PARALLEL says" in n for n in p.notes)


def test_llmdoctors_own_cache_choice_is_redecided():
    env = {"OLLAMA_KV_CACHE_TYPE": Current("q8_0", "server config log line", from_llmdoctor=True),
           "OLLAMA_FLASH_ATTENTION": Current("1", "server config log line", from_llmdoctor=True)}
    p = make_proposal(facts(env=env, cache_bpt=69_632), Workload(concurrent=2))
    c = by_name(p)
    assert c["OLLAMA_KV_CACHE_TYPE"].proposed is None and c["OLLAMA_KV_CACHE_TYPE"].changed
    assert c["OLLAMA_FLASH_ATTENTION"].proposed is None
    # ...while the operator's own q8_0 stands and is not mentioned.
    op = {"OLLAMA_KV_CACHE_TYPE": Current("q8_0", "unit file override.conf")}
    assert "OLLAMA_KV_CACHE_TYPE" not in by_name(make_proposal(facts(env=op, cache_bpt=69_632), Workload(concurrent=2)))


def test_second_run_on_the_tuned_state_is_stable():
    first = make_proposal(facts(), SEED)
    env = {k: Current(v, "server config log line", from_llmdoctor=True) for k, v in first.values().items()}
    tuned = facts(ctx=int(first.values()["OLLAMA_CONTEXT_LENGTH"]), parallel=5, env=env)
    second = make_proposal(tuned, SEED)
    assert second.values() == first.values()
    assert not second.changed()


@pytest.mark.parametrize("kw,message", [
    ({"info": None}, "no model to size"),
    ({"info": {"general.architecture": "llama"}}, "cannot size the KV cache"),
    ({"gpu": None}, "--gpu-memory"),
])
def test_missing_input_says_what_to_give(kw, message):
    with pytest.raises(ProposalError, match=message):
        make_proposal(facts(**kw), SEED)


def test_a_model_that_is_not_loaded_needs_weights():
    f = HostFacts(version="0.32.15", model="llama3:8b", model_info=INFO, gpu_total=24 * 10**9)
    with pytest.raises(ProposalError, match="not loaded.*--weights"):
        make_proposal(f, SEED)
    p = make_proposal(f, SEED, weights=WEIGHTS)
    assert by_name(p)["OLLAMA_NUM_PARALLEL"].proposed == "5"


def test_a_named_model_that_is_not_loaded_uses_its_file_size_next_to_the_loaded_ones():
    f = HostFacts(version="0.32.15", model="llama3:8b", model_info=INFO, gpu_total=24 * 10**9,
                  model_file_size=WEIGHTS, loaded=(LoadedModel("mistral:7b", 8_329_906_176, 8_329_906_176, 16384),))
    p = make_proposal(f, SEED)
    assert p.plan.memory.weights == WEIGHTS + 8_329_906_176
    assert "model file 4.66 GB (/api/tags; not loaded now) + 8.33 GB of other loaded models (mistral:7b)" in p.plan.memory.source
