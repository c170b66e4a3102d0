"""SGLang's log lines, /metrics, /get_server_info and command lines, parsed from real recordings
(tests/fixtures/sglang/SOURCES.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.knowledge.recognize import SGLANG, VLLM, engine_of_text
from llmdoctor.knowledge.sglang.cmdline import looks_like_sglang_cmdline, parse_sglang_cmdline
from llmdoctor.knowledge.sglang.log import parse_batch_line, scan_sglang_lines
from llmdoctor.knowledge.sglang.metrics import parse_sglang_metrics
from llmdoctor.knowledge.sglang.server_info import parse_server_info
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "sglang"


def scan(name):
    return scan_sglang_lines((FIX / name).read_text().splitlines(), name)


def test_decode_line_old_dot_form():
    b = parse_batch_line((FIX / "decode_healthy_3909.log").read_text().splitlines()[0])
    assert (b.kind, b.running, b.queue, b.token_usage, b.gen_tps) == ("decode", 8, 0, 0.12, 186.64)
    assert b.time == "2025-02-27 04:46:39"


def test_the_0_1_forms_decode_without_its_head_and_new_fill_batch():
    d = scan("decode_0_1_tuning_doc.log").recent[0]
    assert (d.kind, d.running, d.queue, d.token_usage, d.gen_tps) == ("decode", 233, 417, 0.82, 4594.01)
    f = scan("fill_batch_0_1_444.log")  # #remaining_req: what still waits after this fill
    assert [(b.kind, b.new_seq, b.new_tokens, b.cached_tokens, b.running, b.queue) for b in f.recent] == [
        ("prefill", 1, 2172, 330, 9, 57)]
    assert f.max_queue == 57 and f.recent[0].token_usage is None
    assert scan("fill_batch_0_1_55.log").recent[0].queue == 0


def test_decode_line_comma_form_with_cuda_graph_and_trailing_comma():
    s = scan("decode_kv_full_queue_14972.log")
    assert s.batch_lines == 5 and s.max_queue == 5
    assert s.longest_queue_run.length == 5 and s.recent[-1].token_usage == 0.94


def test_hybrid_swa_line_takes_the_fuller_pool():
    s = scan("decode_swa_full_26248.log")
    assert [b.token_usage for b in s.recent] == [1.0, 1.0, 1.0]  # full 1.00, swa 0.06


def test_prefill_lines_old_and_new_forms():
    old = scan("prefill_low_hit_1612.log").recent[1]
    assert (old.kind, old.new_seq, old.new_tokens, old.cached_tokens, old.queue) == ("prefill", 4, 8192, 291, 38)
    assert old.hit_rate == pytest.approx(291 / 8483)
    new = [b for b in scan("prefill_decode_access_22166.log").recent if b.kind == "prefill"]
    assert [(b.new_tokens, b.cached_tokens, b.running) for b in new] == [(158, 0, 31), (290, 0, 31), (160, 0, 31)]


def test_retractions_both_wordings():
    assert (scan("retract_decode_oom_4184.log").retractions, scan("retract_decode_oom_4184.log").retracted_reqs) == (11, 11)
    assert scan("retract_kv_pool_full.log").retractions == 1


def test_context_refusals_scheduler_and_client_forms():
    assert scan("input_too_long_4048.log").refusal_max == (160062, 59862)
    assert scan("client_error_context_qwen1321.txt").refusal_max == (61709, 40960)
    assert scan("engine_value_error_8096.txt").refusal_max == (85050, 32768)


def test_start_up_settings():
    assert scan("startup_summary_29575.log").settings == {
        "max_total_num_tokens": 2086558, "max_running_requests": 33, "context_len": 256000,
        "chunked_prefill_size": 8192, "max_prefill_tokens": 16384, "available_gpu_mem_gb": 17.22}
    assert scan("server_args_1030.log").settings["context_length"] == 4096
    assert scan("server_args_1030.log").settings["mem_fraction_static"] == 0.88


def test_metrics_old_names_and_labels():
    m = parse_sglang_metrics((FIX / "metrics_docs_queue.prom").read_text())
    assert (m.running, m.queued, m.token_usage) == (162, 2826, 0.28)
    assert m.itl_name == "sglang:time_per_output_token_seconds" and m.ttft.count == 11008
    idle = parse_sglang_metrics((FIX / "metrics_idle_7944.prom").read_text())
    assert (idle.running, idle.queued, idle.token_usage, idle.requests) == (0, None, 0.0, 217)


def test_server_info():
    info = parse_server_info((FIX / "server_info_docs.json").read_text())
    assert info["max_running_requests"] == 128 and info["disable_radix_cache"] is False
    assert info["max_req_input_len"] == 20474 and info["tp_size"] == 1
    with pytest.raises(ParseError):
        parse_server_info('{"version": "0.12.3"}')


@pytest.mark.parametrize("name,expect", [
    ("cmdline_4048.txt", {"tp_size": 8, "context_length": 163840, "chunked_prefill_size": 4096,
                          "mem_fraction_static": 0.9}),
    ("cmdline_radix_off_10844.txt", {"disable_radix_cache": True, "max_running_requests": 32, "tp_size": 2}),
    ("cmdline_recall_43.txt", {"disable_radix_cache": True, "tp_size": 4, "context_length": 6000}),
    ("cmdline_page_size_4602.txt", {"tp_size": 8, "page_size": 64}),
])
def test_cmdlines(name, expect):
    c = parse_sglang_cmdline((FIX / name).read_text())
    assert looks_like_sglang_cmdline(c.argv)
    assert {k: c.get(k) for k in expect} == expect


def test_sglang_serve_form():
    c = parse_sglang_cmdline("sglang serve Qwen/Qwen2.5-7B-Instruct --tp=2 --max-running-requests 64")
    assert (c.get("model_path"), c.get("tp_size"), c.get("max_running_requests")) == ("Qwen/Qwen2.5-7B-Instruct", 2, 64)


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir() if p.suffix in (".log", ".txt", ".prom")))
def test_recorded_sglang_text_is_recognised_as_sglang(name):
    # (the two bare context errors, qwen1321 and 8096, by the message catalogue: they carry no other sign)
    assert engine_of_text((FIX / name).read_text()) == SGLANG


def test_sglang_command_line_sharing_vllm_flag_names_is_sglang():
    assert engine_of_text((FIX / "cmdline_4048.txt").read_text()) == SGLANG  # --tensor-parallel-size
    vllm = (FIX.parent / "vllm" / "stats_v1_apiserver_37307.log").read_text()
    assert engine_of_text(vllm) == VLLM
