"""llama-server log, endpoint and command-line parsers on real samples (tests/fixtures/llamacpp/README.md)
and on garbage."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.llamacpp.endpoints import parse_health, parse_llama_metrics, parse_props, parse_slots
from llmdoctor.knowledge.llamacpp.cmdline import parse_llama_cmdline
from llmdoctor.knowledge.llamacpp.log import scan_llama_lines
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "llamacpp"
EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"


def scan(name: str):
    return scan_llama_lines((FIX / name).read_text().splitlines(), name)


@pytest.mark.parametrize("name, n_slots, slot_ctx", [
    ("slots_init_auto_17071.log", 4, 131072),
    ("slots_init_cut_17300.log", 4, None),
    ("slots_timestamps_23652.log", 4, 1024),  # no n_slots line: counted from the slot ids
    ("slots_init_2024_10186.log", 1, 8192),
    ("slots_init_text_2024.log", 1, 2560),  # `n_slots=1`, `n_ctx_slot=2560` (name=value text form)
    ("launch_slot_21760.log", None, 39936),
])
def test_slot_lines_of_every_build(name, n_slots, slot_ctx):
    r = scan(name)
    assert (r.n_slots, r.slot_n_ctx) == (n_slots, slot_ctx)


def test_one_line_init_of_current_builds_recorded_from_a_real_server():
    r = scan_llama_lines((EVIDENCE / "llamacpp-slot-split" / "server.log").read_text().splitlines())
    assert (r.n_slots, r.slot_n_ctx, r.kv_unified) == (4, 1024, False)
    assert r.context_exceeded == 2
    assert (r.context_exceeded_examples[0].request_tokens, r.context_exceeded_examples[0].context_tokens) == (3003, 1024)


def test_context_and_kv_lines():
    r = scan("context_kv_alpaca_1202.log")
    assert (r.n_ctx, r.n_ctx_seq, r.n_seq_max, r.kv_unified, r.n_ctx_train) == (16384, 16384, 1, False, 131072)
    assert dict(r.kv_buffers_mib) == {"CPU": 256.0, "Vulkan0": 1792.0}
    assert "16384 cells" in r.kv_size_line and "n_ctx_seq (16384) < n_ctx_train" in r.ctx_warning


def test_old_per_seq_wording():
    r = scan("n_ctx_per_seq_10186.log")
    assert (r.n_ctx_seq, r.n_ctx_train) == (4096, 131072)


def test_print_timing_with_journal_prefix_and_timestamps():
    r = scan("print_timing_journal_22929.log")
    assert r.requests_timed == 1
    t = r.timings[0]
    assert (t.task, t.prompt_ms, t.prompt_tokens, t.eval_ms, t.eval_tokens) == ("22576", 1481.90, 2244, 5257.71, 186)
    assert t.prompt_share == pytest.approx(1481.90 / (1481.90 + 5257.71))


def test_context_shift_skipping_message():
    r = scan_llama_lines(["slot update_slots: id  0 | task 5 | input (9000 tokens) is larger than the max context "
                          "size (8192 tokens). skipping"])
    assert r.context_exceeded == 1 and r.context_exceeded_examples[0].request_tokens == 9000


def test_slots_both_next_token_shapes_and_old_state_field():
    readme = parse_slots((FIX / "slots_readme.json").read_text())  # next_token as an object
    assert [(s.id, s.is_processing, s.n_decoded, s.n_ctx) for s in readme] == [(0, True, 0, 65536), (1, True, 136, 65536)]
    real = parse_slots((EVIDENCE / "llamacpp-queueing" / "slots.json").read_bytes())  # an array, real server
    assert real[0].is_processing and real[0].n_decoded is not None
    old = parse_slots(json.dumps([{"id": 0, "state": 1, "n_ctx": 2048}, {"id": 1, "state": 0, "n_ctx": 2048}]))
    assert [s.is_processing for s in old] == [True, False]


def test_props_and_health():
    p = parse_props((EVIDENCE / "llamacpp-slot-split" / "props.json").read_bytes())
    assert (p.total_slots, p.n_ctx) == (4, 1024)
    h = parse_health(503, b'{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}')
    assert h.loading and not h.ok
    assert parse_health(200, b'{"status":"ok"}').ok


def test_metrics_both_prefixes():
    m = parse_llama_metrics((FIX / "metrics_13196.prom").read_text())
    assert (m.prompt_tokens_total, m.tokens_predicted_seconds_total, m.prefix) == (143, 29.567, "llamacpp:")
    old = parse_llama_metrics("llamacpp_requests_processing 2\nllamacpp_requests_deferred 3\nllamacpp_kv_cache_usage_ratio 0.5\n")
    assert (old.requests_deferred, old.kv_cache_usage_ratio, old.prefix) == (3, 0.5, "llamacpp_")
    with pytest.raises(ParseError):
        parse_llama_metrics("vllm:num_requests_running 1\n")


@pytest.mark.parametrize("text, slots, per_slot, unified", [
    ("llama-server -m m.gguf -c 8192 -np 4", 4, 2048, False),
    ("llama-server -m m.gguf -c 8192 -np 4 -kvu", 4, 8192, True),
    ("llama-server -m m.gguf -c 8192", 4, 8192, True),  # -np auto: 4 slots, unified
    (b"/usr/bin/llama-server\0--ctx-size\00032768\0--parallel\0002\0--metrics\0", 2, 16384, False),
    ("llama-server --ctx-size=4096 --parallel=3 --no-kv-unified", 3, 1280, False),
])
def test_cmdline(text, slots, per_slot, unified):
    c = parse_llama_cmdline(text)
    assert (c.slots, c.per_slot_ctx, c.unified) == (slots, per_slot, unified)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_garbage(text):
    scan_llama_lines(text.splitlines())
    parse_llama_cmdline(text)
    for parse in (parse_slots, parse_props, parse_llama_metrics):
        try:
            parse(text)
        except ParseError:
            pass
    parse_health(503, text.encode())


@pytest.mark.parametrize("parse,body", [(parse_props, '{"total_slots": NaN, "n_ctx": 1e999}'),
                                        (parse_slots, '[{"id": Infinity, "n_ctx": -Infinity, "id_task": NaN}]')])
def test_json_nan_and_infinity_are_no_number(parse, body):
    """Python's json reads NaN/Infinity; int() of them raised instead of giving None."""
    value = parse(body)
    assert value == parse(body.replace("NaN", "null").replace("-Infinity", "null").replace("Infinity", "null")
                          .replace("1e999", "null"))


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(
                        ["id", "n_ctx", "is_processing", "state", "next_token", "n_decoded", "total_slots",
                         "default_generation_settings"]), c, max_size=4), max_leaves=12))
def test_json_of_any_shape(value):
    for parse in (parse_slots, parse_props):
        try:
            parse(json.dumps(value))
        except ParseError:
            pass


def test_slot_reuse_gaps_read_and_the_judge_compares(monkeypatch):
    """The recorded one-slot server under three requests at once (tests/fixtures/evidence/
    llamacpp-queueing, b6xxx): the slot is taken 4.9 and 3.2 ms after each release, the deferred
    request handed back on release (server.cpp:1935 @ b4747). The parser reports the gaps; only
    judge/llamacpp.py compares them with LLAMACPP_BACK_TO_BACK_S, and shows the first launch
    within it whatever the cut-off (the record-low gaps are kept with their lines)."""
    from llmdoctor.judge import thresholds as T
    from llmdoctor.judge.llamacpp import queued_launches

    r = scan_llama_lines((EVIDENCE / "llamacpp-queueing" / "server.log").read_text().splitlines())
    assert [round(g * 1000, 3) for g in r.reuse_gaps] == [4.927, 3.193]
    assert [round(g * 1000, 3) for g, _, _ in r.reuse_lows] == [4.927, 3.193]
    n, (release, launch) = queued_launches(r)
    assert n == 2 and "release: id  0 | task 0" in release and "task 34" in launch
    monkeypatch.setattr(T, "LLAMACPP_BACK_TO_BACK_S", 0.004)  # a site's stricter cut-off
    n, (release, launch) = queued_launches(r)
    assert n == 1 and "task 34" in release and "task 67" in launch
    monkeypatch.setattr(T, "LLAMACPP_BACK_TO_BACK_S", 0.001)
    assert queued_launches(r) == (0, ())


def test_slot_reuse_of_a_client_that_waits_for_its_answer_is_read_not_counted():
    """A slot taken 300 ms after its release (a client sending its next request after reading
    the answer) is reported and not counted; launches while another slot is free are no gap."""
    from llmdoctor.judge.llamacpp import queued_launches

    head = ["0.00.100.000 I srv          init: initializing slots, n_slots = 2"]
    rel = "{} I slot      release: id  {} | task {} | stop processing: n_tokens = 80, truncated = 0"
    launch = "{} I slot launch_slot_: id  {} | task {} | processing task"
    lines = head + [launch.format("0.01.000.000", 0, 1), launch.format("0.01.000.500", 1, 2),
                    rel.format("0.02.000.000", 0, 1), launch.format("0.02.300.000", 0, 3),  # 300 ms, slot 1 busy
                    rel.format("0.03.000.000", 1, 2), rel.format("0.03.000.100", 0, 3),
                    launch.format("0.03.000.200", 0, 4)]  # 0.1 ms, but slot 1 is free: no waiting
    r = scan_llama_lines(lines)
    assert [round(g, 3) for g in r.reuse_gaps] == [0.3]
    assert queued_launches(r) == (0, ())
    for healthy in ("llamacpp-healthy", "llamacpp-slot-split"):  # recorded: no slot reused with every other busy
        h = scan_llama_lines((EVIDENCE / healthy / "server.log").read_text().splitlines())
        assert h.reuse_gaps == () and queued_launches(h) == (0, ())
