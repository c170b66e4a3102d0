"""Several `ollama ps` snapshots compared (knowledge/ollama/ps.py compare and checks/ollama_ps_changed.py).

Rows are real: `gemma2:27b-instruct-q4_0 ... Forever` (tests/fixtures/realcases_extra/x213,
ollama#7773), `llama3:latest ... 4 minutes from now` (tests/fixtures/realcases/case113,
ollama#5680), `llama3:latest ... 36%/64% CPU/GPU Forever` (realcases_extra3/x306, ollama#5756); the second
snapshots change one column of them, as a later run of `ollama ps` prints it.
"""
from __future__ import annotations

from llmdoctor.checks.ollama_ps_changed import keepalive_shortened, moved_to_cpu, reloaded_other_options
from llmdoctor.knowledge.ollama.ps import compare, parse_api_ps, parse_ps_text

HEAD = "NAME                        ID              SIZE     PROCESSOR    UNTIL\n"
FOREVER = HEAD + "gemma2:27b-instruct-q4_0    53261bc9c192    31 GB    100% GPU     Forever\n"
COUNTDOWN = HEAD + "gemma2:27b-instruct-q4_0    53261bc9c192    31 GB    100% GPU     4 minutes from now\n"
LATER = HEAD + "gemma2:27b-instruct-q4_0    53261bc9c192    31 GB    100% GPU     3 minutes from now\n"
CASE113 = ("NAME         \tID          \tSIZE  \tPROCESSOR\tUNTIL\n"
           "llama3:latest\ta6990ed6be41\t5.5 GB\t100% GPU \t4 minutes from now\n")
X306 = ("NAME            ID              SIZE    PROCESSOR       UNTIL   \n"
        "llama3:latest   365c0bd3c000    32 GB   36%/64% CPU/GPU Forever\n")


def kinds(text):
    return [c.kind for c in compare(parse_ps_text(text))]


def fired(text):
    rows = parse_ps_text(text)
    return [f.cause.value for chk in (keepalive_shortened, moved_to_cpu, reloaded_other_options) for f in chk(rows)]


def test_forever_then_a_countdown_is_a_client_keep_alive():
    assert kinds(FOREVER + "$ ollama ps\n" + COUNTDOWN) == ["keep_alive_shortened"]
    assert fired(FOREVER + COUNTDOWN) == ["MODEL_UNLOAD"]


def test_only_the_countdown_moving_is_silent():
    assert kinds(COUNTDOWN + LATER) == [] and fired(COUNTDOWN + LATER) == []
    assert kinds(FOREVER + FOREVER) == [] and fired(FOREVER) == []


def test_a_reload_into_the_cpu_is_seen():
    assert kinds(CASE113 + X306) == ["size_changed", "moved_to_cpu"]
    assert sorted(fired(CASE113 + X306)) == ["CPU_SPILL", "MODEL_UNLOAD"]


def test_a_context_change_in_api_ps():
    a = parse_api_ps('{"models":[{"name":"qwen3:8b","size":6000000000,"size_vram":6000000000,"context_length":4096}]}')
    b = parse_api_ps('{"models":[{"name":"qwen3:8b","size":6100000000,"size_vram":6100000000,"context_length":8192}]}')
    assert [c.kind for c in compare(a + b)] == ["context_changed"]


def test_different_models_are_not_compared():
    assert kinds(FOREVER + CASE113) == []


def test_several_api_ps_answers_in_one_file_are_snapshots():
    one = '{"models":[{"name":"qwen3:8b","size":6000000000,"size_vram":6000000000,"expires_at":"2318-05-01T00:00:00Z"}]}'
    two = '{"models":[{"name":"qwen3:8b","size":6000000000,"size_vram":6000000000,"expires_at":"2025-05-01T10:04:00Z"}]}'
    rows = parse_api_ps(one + "\n" + two)
    assert len(rows) == 2 and [c.kind for c in compare(rows)] == ["keep_alive_shortened"]
    import pytest

    from llmdoctor.parsing import ParseError

    for bad in (one + " [1]", one + " {", "{} x"):
        with pytest.raises(ParseError):
            parse_api_ps(bad)
