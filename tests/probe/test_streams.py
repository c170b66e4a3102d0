"""Stream formats parsed from recorded real streams (tests/fixtures/probe/README.md)."""
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmdoctor.knowledge.probe.result import OK, STREAM_ERROR
from llmdoctor.knowledge.probe.streams import OLLAMA, OPENAI, StreamAccumulator, error_message

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "probe"


def feed(wire, lines, step=0.01):
    acc = StreamAccumulator(wire, "r1", "single")
    for i, line in enumerate(lines):
        acc.feed(line, 0.1 + i * step)
    return acc.sample()


def test_ollama_generate_stream_counts_come_from_the_final_chunk():
    lines = (FIX / "ollama_generate_stream.ndjson").read_text().splitlines()
    s = feed(OLLAMA, lines)
    assert s.status == OK
    assert len(s.chunk_s) == len(lines) - 1  # every chunk but the final one has text
    assert s.ttft_s == pytest.approx(0.1)
    # issue 5843: eval_count 192 in 3209729000 ns; prompt 18 in 25726000 ns
    assert s.completion_tokens == 192  # the server's count, not the 19 chunks
    assert s.decode_tps == pytest.approx(192 / 3.209729)
    assert s.prefill_tps == pytest.approx(18 / 0.025726)
    assert s.load_s == pytest.approx(0.023975557)
    assert s.counts_from == "ollama"


def test_ollama_chat_chunks_and_missing_metrics_are_zero():
    lines = ['{"model":"m","created_at":"t","message":{"role":"assistant","content":"Hi"},"done":false}',
             '{"model":"m","created_at":"t","message":{"role":"assistant","content":""},"done":true,'
             '"done_reason":"stop","eval_count":1}']
    s = feed(OLLAMA, lines)
    assert len(s.chunk_s) == 1 and s.completion_tokens == 1
    assert s.decode_tps is None and s.load_s == 0.0  # omitempty durations


def test_ollama_mid_stream_error_line():
    lines = ['{"model":"m","created_at":"t","response":"a","done":false}',
             '{"error":"an error was encountered while running the model: unexpected EOF"}']
    s = feed(OLLAMA, lines)
    assert s.status == STREAM_ERROR
    assert "unexpected EOF" in s.error


def test_llamacpp_sse_timings_give_the_counts():
    final = (FIX / "llamacpp_sse_final.txt").read_text().strip()
    lines = ['data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]}',
             "",
             'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Hello"}}]}',
             final, "data: [DONE]"]
    s = feed(OPENAI, lines)
    assert s.status == OK
    assert s.ttfb_s == pytest.approx(0.1) and s.ttft_s == pytest.approx(0.12)  # role-only chunk first
    assert s.prompt_tokens == 43 and s.completion_tokens == 1
    assert s.prefill_tps == pytest.approx(43 / 0.246082)
    assert s.counts_from == "timings"


def test_openai_usage_only_rate_uses_counts_and_client_clock():
    lines = [f'data: {{"choices":[{{"index":0,"delta":{{"content":"t{i}"}}}}]}}' for i in range(5)]
    lines += ['data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":10}}', "data: [DONE]"]
    s = feed(OPENAI, lines, step=0.1)
    assert s.completion_tokens == 10
    assert s.decode_tps == pytest.approx(9 / 0.4)  # server count over first..last chunk


def test_sse_error_event():
    s = feed(OPENAI, ['data: {"error":{"code":500,"message":"slot failed","type":"server_error"}}'])
    assert s.status == STREAM_ERROR and "slot failed" in s.error


def test_error_bodies():
    assert error_message(b'{"error":"server busy, please try again.  maximum pending requests exceeded"}') == \
        "server busy, please try again.  maximum pending requests exceeded"
    assert error_message(b'{"error":{"code":400,"message":"too long","type":"exceed_context_size_error"}}') == "too long"
    assert error_message(b"<html>bad gateway</html>") == "<html>bad gateway</html>"


@given(st.lists(st.one_of(st.binary(max_size=200), st.text(max_size=200)), max_size=30),
       st.sampled_from([OLLAMA, OPENAI]))
def test_garbage_never_raises(lines, wire):
    acc = StreamAccumulator(wire, "g", "single")
    for i, line in enumerate(lines):
        acc.feed(line, float(i))
    s = acc.sample()
    assert s.status in (OK, STREAM_ERROR)
    if s.status == STREAM_ERROR:
        assert s.error
