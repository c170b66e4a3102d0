"""Rare lines (context refusals, the settings line) past a log's first EXACT_LINES lines are
read when they carry an anchor, the forms vLLM prints them in, the same way whatever way the log
is fed; a bare mark that far is not (rare_lines says why). The lines are real wordings:
vllm#10440 (V0 scheduler), the real vLLM 0.32 here (non-default args, OpenAI errors), vllm#2418."""
from __future__ import annotations

import io

import pytest

import llmdoctor.knowledge.vllm.log as vlog
from llmdoctor.knowledge.vllm.log import VllmLogScanner
from llmdoctor.knowledge.vllm.rare_lines import EXACT_LINES, anchored_starts, exact_starts, line_anchored, marks_for

ACCESS = '(APIServer pid=852) INFO:     10.1.2.3:5555 - "GET /metrics HTTP/1.1" 200 OK'
ANCHORED = [
    "WARNING 01-11 15:51:02 scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000",
    "(APIServer pid=1) ERROR 12-01 08:08:44 [serving_chat.py:222] ValueError: The decoder prompt (length 12324) is "
    "longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of "
    "text tokens.",
    "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is "
    "6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion).\"}",
    '{"error":{"message":"max_tokens=2000 cannot be greater than max_model_len=1024. Please request fewer output '
    'tokens.","type":"BadRequestError","param":"max_tokens","code":400}}',
    "(APIServer pid=25400) INFO 12-01 08:07:32 [api_utils.py:286] non-default args: {'model_tag': '/srv/tiny', "
    "'max_num_seqs': 16}",
    "INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: model='/m', max_seq_len=4096, "
    "tensor_parallel_size=1",
]
BARE = ["Input prompt (99999 tokens) is too long and exceeds limit of 1000",
        "This model's maximum context length is 1024 tokens. However, you requested 5000 tokens (1 in the messages).",
        "engine with config: block_size=32"]


def feeds(data: bytes):
    """The ways llmdoctor feeds a log: lines, blocks, chunks, regions of a reused buffer."""
    text = data.decode()
    out = {}
    sc = VllmLogScanner()
    sc.feed_lines(text.splitlines())
    out["lines"] = sc.result()
    sc = VllmLogScanner()
    sc.feed_block(text[:-1])  # newline-joined whole lines, as LogSource.blocks() gives them
    out["block"] = sc.result()
    out["stream"] = VllmLogScanner().scan_stream(io.BytesIO(data), chunk_size=4096).result()
    sc = VllmLogScanner()
    pos = 0
    while pos < len(data):
        cut = data.rfind(b"\n", pos, pos + 3000)
        cut = len(data) if cut <= pos else cut
        buf = bytearray(b"\xff" * 5) + data[pos:cut] + b"\xff" * 5
        sc.feed_region(buf, 5, 5 + cut - pos)
        pos = cut + 1
    out["regions"] = sc.result()
    return out


def log_with(head: int, tail: list[str]) -> bytes:
    return ("\n".join([ACCESS] * head + tail) + "\n").encode()


@pytest.fixture
def small_exact(monkeypatch):
    monkeypatch.setattr(vlog, "EXACT_LINES", 40)
    return 40


def test_anchored_rare_lines_are_read_past_the_exact_head_and_bare_ones_are_not(small_exact):
    data = log_with(100, ANCHORED + BARE)
    results = feeds(data)
    for how, r in results.items():
        assert r.prompts_too_long == 4, how
        assert r.prompt_too_long_max == (36893, 1000), how
        assert r.settings == {"max_num_seqs": 16, "max_model_len": 4096, "tensor_parallel_size": 1}, how
        assert r.lines == 100 + len(ANCHORED) + len(BARE), how
    assert len({repr(r) for r in results.values()}) == 1


def test_in_the_exact_head_every_mark_is_read_wherever_it_stands(small_exact):
    for how, r in feeds(log_with(3, ANCHORED + BARE)).items():
        assert r.prompts_too_long == 6, how
        assert r.prompt_too_long_max == (99999, 1000), how
        assert r.settings["block_size"] == 32, how


@pytest.mark.parametrize("head", [38, 39, 40, 41])
def test_the_last_exact_line_is_the_same_in_every_feed(small_exact, head):
    # a bare refusal as line head+1: read only while head+1 <= EXACT_LINES (40)
    results = feeds(log_with(head, [BARE[0], ACCESS]))
    expected = 1 if head + 1 <= 40 else 0
    assert {how: r.prompts_too_long for how, r in results.items()} == dict.fromkeys(results, expected)


def test_the_real_exact_head_size():
    data = log_with(EXACT_LINES - 1, [BARE[0], BARE[0], ANCHORED[0]])
    for how, r in feeds(data).items():
        assert r.prompts_too_long == 2, how  # the bare one on line EXACT_LINES, and the WARNING line


def test_anchors_and_their_finders_agree():
    marks = marks_for(False)
    for line in ANCHORED + BARE + [ACCESS, "Waiting: 0 reqs, GPU KV cache usage", "LLM engine (v0.9.0)"]:
        text = ACCESS + "\n" + line + "\n" + ACCESS
        has_mark = any(m in line for m in marks)
        anchored = bool(anchored_starts(text.encode(), 0, len(text), marks))
        anchored_v = bool(anchored_starts(text, 0, len(text), marks))
        assert anchored == anchored_v
        assert anchored == (has_mark and line_anchored(line)), line
        assert bool(exact_starts(text.encode(), 0, len(text), marks)) >= has_mark
        assert bool(exact_starts(text, 0, len(text), marks)) == has_mark
