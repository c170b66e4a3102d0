"""What the llama.cpp message catalogue (knowledge/llamacpp/catalogue.py) taught the parsers,
beyond the catalogue's own test (tests/core/test_message_catalogue.py): wordings the paste forms
of that test cannot carry, the mechanisms behind the new facts, the checks they feed (with the
cases where those must stay silent), and garbage."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance
from llmdoctor.knowledge.llamacpp.catalogue import MESSAGES
from llmdoctor.knowledge.llamacpp.lines import LlamaCppLines, fields
from llmdoctor.knowledge.llamacpp.log import scan_llama_lines
from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks, run_check

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "llamacpp"


@pytest.fixture(scope="module")
def specs():
    specs, _ = load_checks(site_dir=None, entry_points=False)
    return {s.id: s for s in specs}


def store(tmp_path, log: str) -> FactStore:
    (tmp_path / "meta.json").write_text(json.dumps({"engine": "llamacpp"}))
    (tmp_path / "server.log").write_text(log)
    return FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(LLAMACPP, found_by="evidence"),)})


def test_every_entry_is_engine_llamacpp_or_the_shared_family():
    assert {m.engine for m in MESSAGES} == {"llamacpp", "llama.cpp"}
    assert len(MESSAGES) >= 40


# --- wordings whose one-line paste the repaste forms mangle (see the report): read plainly here ---

@pytest.mark.parametrize("line, path, want", [
    ("ggml_vulkan: Error: No devices found.", "cpp.no_device", True),  # ggml-vulkan.cpp:2940 @ b4739
    ('{"function":"init","level":"INFO","line":708,"msg":"initializing slots","n_slots":4,"tid":"1","timestamp":1}',
     "n_slots", 4),  # examples/server/server.cpp:708 @ b2700, JSON
    ('{"function":"init","level":"INFO","line":717,"msg":"new slot","id_slot":0,"n_ctx_slot":2048,"tid":"1"}',
     "slot_n_ctx", 2048),  # examples/server/server.cpp:717 @ b2700, JSON
    ("ggml_init_cublas: no ROCm devices found, ROCm will be disabled", "cpp.no_device", True),
])
def test_other_wordings(line, path, want):
    value = scan_llama_lines([line])
    for part in path.split("."):
        value = getattr(value, part)
    assert (bool(value) if want is True else value) == want


def test_json_fields_survive_what_a_paste_leaves_around_them():
    line = 'gpu-box llama[9]: {"msg":"kv cache rm [p0, end)","id_slot":1,"p0":12}```'
    assert fields(line) == {"id_slot": 1, "p0": 12}
    assert fields('{"msg": "broken') == {}


# --- mechanisms --------------------------------------------------------------------------------

def test_2024_release_then_cut_is_a_cache_miss():
    """The 2024 server says what a slot held when it was released, then where the next prompt's
    match ends: the difference was computed again (the 2023 mechanism, in that year's words)."""
    r = scan_llama_lines([
        'INFO [            update_slots] slot released | tid="1" timestamp=1 id_slot=0 id_task=4 n_ctx=8192 n_past=3000 '
        "n_system_tokens=0 n_cache_tokens=3000 truncated=false",
        'INFO [            update_slots] kv cache rm [p0, end) | tid="1" timestamp=1 id_slot=0 id_task=5 p0=12',
    ]).cpp
    assert (r.cache_miss_count, r.worst_miss.cached, r.worst_miss.matched) == (1, 3000, 12)
    assert (r.cache_cuts, r.cache_cuts_to_zero) == (1, 0)


def test_a_fresh_slot_cut_at_zero_is_no_miss():
    r = scan_llama_lines(["slot update_slots: id  0 | task 0 | kv cache rm [0, end)",
                          "slot update_slots: id  1 | task 5 | n_tokens = 0, memory_seq_rm [0, end)"]).cpp
    assert (r.cache_cuts, r.cache_cuts_to_zero, r.cache_miss_count) == (2, 2, 0)


def test_the_queue_debug_line_is_not_a_second_request():
    r = scan_llama_lines(["que    start_loop: processing task, id = 2018",
                          "slot launch_slot_: id  0 | task 2018 | processing task"]).cpp
    assert r.tasks_started == 1


def test_a_launch_line_counted_still_reaches_the_slot_scanner():
    """`processing task` lines are counted by the shared scanner and still read by llama-server's
    (its back-to-back launch detection needs them)."""
    lines = LlamaCppLines()
    assert lines.feed("0.00.052.713 I slot launch_slot_: id  3 | task 0 | processing task, is_child = 0") is False
    assert lines.result().tasks_started == 1


def test_auto_parallel_and_capping_set_the_context_facts():
    r = scan_llama_lines(["main: setting n_parallel = 4 and kv_unified = true (add -kvu to disable this)",
                          "srv    load_model: the slot context (65536) exceeds the training context of the model (32768) "
                          "- capping",
                          "srv          init: initializing slots, n_slots = 4"])
    assert (r.auto_parallel, r.kv_unified, r.n_slots, r.slot_capped, r.n_ctx_train) == (4, True, 4, (65536, 32768), 32768)


def test_kv_size_of_every_build():
    sizes = [scan_llama_lines([line]).kv_size_mib for line in (
        "llama_new_context_with_model: KV self size  =  180.00 MiB, K (f16):   90.00 MiB, V (f16):   90.00 MiB",
        "llama_kv_cache_unified: size = 1024.00 MiB (  8192 cells,  32 layers,  1/ 1 seqs), K (f16):  512.00 MiB",
        "llama_kv_cache: size = 2048.00 MiB ( 16384 cells,  32 layers,  1/1 seqs), K (f16): 1024.00 MiB")]
    assert sizes == [180.0, 1024.0, 2048.0]


# --- checks fed by the new facts -----------------------------------------------------------------

def test_sleep_then_wake_is_model_unload(tmp_path, specs):
    f = run_check(specs["llamacpp-idle-unload"], store(tmp_path, (FIX / "sleep_wake_b9821.log").read_text())).findings
    assert [x.cause.value for x in f] == ["MODEL_UNLOAD"]
    assert "server is exiting sleeping state" in " ".join(e.text for e in f[0].evidence)


def test_asleep_and_never_woken_stays_silent(tmp_path, specs):
    text = "\n".join(l for l in (FIX / "sleep_wake_b9821.log").read_text().splitlines()
                     if "exiting sleeping" not in l and "task 3" not in l)
    assert run_check(specs["llamacpp-idle-unload"], store(tmp_path, text)).findings == ()


def test_router_lru_unloads_are_model_unload(tmp_path, specs):
    log = ("srv          load: models_max limit reached, removing LRU name=Qwen3-8B-Q4_K_M\n"
           "srv          load: models_max limit reached, removing LRU name=gemma-3-4b-it-Q4_K_M\n")
    f = run_check(specs["llamacpp-idle-unload"], store(tmp_path, log)).findings
    assert [x.cause.value for x in f] == ["MODEL_UNLOAD"] and "2 model(s)" in f[0].title


def test_deferred_requests_are_queueing(tmp_path, specs):
    f = run_check(specs["llamacpp-queueing"], store(tmp_path, (FIX / "defer_b4000.log").read_text())).findings
    assert [x.severity.value for x in f] == ["warning"]
    assert any("defer task, id = 1" in e.text for e in f[0].evidence)
    assert any("3 requests deferred" in e.text for e in f[0].evidence)


def test_one_slot_without_deferrals_stays_informational(tmp_path, specs):
    text = "\n".join(l for l in (FIX / "defer_b4000.log").read_text().splitlines() if "defer" not in l)
    f = run_check(specs["llamacpp-queueing"], store(tmp_path, text)).findings
    assert [x.severity.value for x in f] == ["info"]


# --- garbage ---------------------------------------------------------------------------------------

GARBAGE = [
    "", "{", '{"msg":"slot released","id_slot":"x"}', "kv cache rm [p0, end)", "memory_seq_rm [, end)",
    "n_parallel = four and kv_unified = true", "the slot context (9999999999999999999) exceeds the training context",
    "KV self size  = MiB", "llama_kv_cache: size = nan MiB", "server is entering sleeping state" * 50,
    "prompt eval time = ms / tokens", "\x00\x1b[31mdefer task\x1b[0m", "slot 0 released (x tokens in cache)",
]


@pytest.mark.parametrize("line", GARBAGE)
def test_garbage_lines(line):
    scan_llama_lines([line])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([m.examples[0].line for m in MESSAGES]) | st.text(max_size=200), max_size=12))
def test_any_mix_of_catalogued_lines_and_noise(lines):
    scan_llama_lines(lines)


def test_a_context_fit_chose_is_named_when_prompts_are_refused(tmp_path, specs):
    log = ("llama_params_fit_impl: context size reduced from 262144 to 40960 -> need 17920 MiB less memory in total\n"
           "srv    send_error: task id = 2, error: request (52000 tokens) exceeds the available context size "
           "(40960 tokens), try increasing it\n")
    f = run_check(specs["llamacpp-context-exceeded"], store(tmp_path, log)).findings
    assert len(f) == 1 and "--fit picked 40,960 tokens" in f[0].fix.summary
    assert any("context size reduced from 262144" in e.text for e in f[0].evidence)


def test_a_refusal_without_fit_names_no_fit(tmp_path, specs):
    log = ("srv    send_error: task id = 2, error: request (52000 tokens) exceeds the available context size "
           "(40960 tokens), try increasing it\n")
    f = run_check(specs["llamacpp-context-exceeded"], store(tmp_path, log)).findings
    assert len(f) == 1 and "--fit" not in f[0].fix.summary


def test_purged_idle_slots_are_kv_pressure(tmp_path, specs):
    log = ("srv          init: initializing slots, n_slots = 4\n"
           "srv  try_clear_id: purging slot 2 with 30145 tokens\n"
           "srv  try_clear_id: purging slot 0 with 12001 tokens\n")
    f = run_check(specs["llamacpp-kv-overcommit"], store(tmp_path, log)).findings
    assert [x.cause.value for x in f] == ["KV_CAPACITY"] and "purged" in f[0].title


def test_one_purge_alone_stays_silent(tmp_path, specs):
    log = "srv          init: initializing slots, n_slots = 4\nsrv  try_clear_id: purging slot 2 with 30145 tokens\n"
    assert run_check(specs["llamacpp-kv-overcommit"], store(tmp_path, log)).findings == ()


def test_a_setting_switched_off_is_config_not_applied(tmp_path, specs):
    log = ("srv    load_model: loaded multimodal model, '/models/mmproj.gguf'\n"
           "srv    load_model: cache_reuse is not supported by multimodal, it will be disabled\n")
    f = run_check(specs["llamacpp-setting-disabled"], store(tmp_path, log)).findings
    assert [x.cause.value for x in f] == ["CONFIG_NOT_APPLIED"] and "--cache-reuse" in f[0].title


def test_context_shift_switched_off_alone_is_not_reported(tmp_path, specs):
    """ctx_shift was on by default until ~b6500: its warning does not say the user asked for it."""
    log = "srv    load_model: ctx_shift is not supported by multimodal, it will be disabled\n"
    assert run_check(specs["llamacpp-setting-disabled"], store(tmp_path, log)).findings == ()


def test_2024_slot_data_and_launching_slot_lines():
    """Two entries whose expectation the repaste forms cannot carry (see their notes): read plainly."""
    from llmdoctor.knowledge.llamacpp.catalogue import LAUNCH_21760

    data = ('{"function":"process_single_task","level":"INFO","line":1513,"msg":"slot data","n_idle_slots":1,'
            '"n_processing_slots":0,"task_id":22,"tid":"9888","timestamp":1714737092}')
    assert scan_llama_lines([data]).n_slots == 1
    assert scan_llama_lines([LAUNCH_21760]).slot_n_ctx == 39936
