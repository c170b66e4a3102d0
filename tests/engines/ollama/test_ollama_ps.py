"""`ollama ps` text and /api/ps JSON on the real samples (FACTS.md §3, samples.md §1) and on garbage."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama.ps import cpu_percent_of, merge, parse_api_ps, parse_ps_text, processor_label
from llmdoctor.parsing import ParseError


def test_pre_010_two_pasted_tables(sample):
    models = parse_ps_text(sample("ps_pre010_two_tables.txt"))
    assert [m.name for m in models] == ["llama3:70b", "llama3:latest"]
    big, small = models
    assert big.processor == "42%/58% CPU/GPU" and big.cpu_percent == 42
    assert big.size == 41_000_000_000 and big.context_length is None
    assert big.until == "4 minutes from now" and big.id == "be39eb53a197"
    assert small.processor == "100% GPU" and small.cpu_percent == 0 and small.size == 5_400_000_000


def test_context_column_and_trailing_spaces(sample):
    (m,) = parse_ps_text(sample("ps_context_split.txt"))
    assert (m.name, m.size, m.processor, m.cpu_percent, m.context_length, m.until) == (
        "mistral:7b", 8_300_000_000, "13%/87% CPU/GPU", 13, 16384, "4 minutes from now")


def test_docs_example(sample):
    (m,) = parse_ps_text(sample("ps_docs_100gpu.txt"))
    assert (m.name, m.processor, m.context_length, m.until) == ("gemma4:latest", "100% GPU", 131072, "2 minutes from now")


def test_api_ps_matches_the_text(sample):
    (m,) = parse_api_ps(sample("api_ps_split.json"))
    assert (m.size, m.size_vram, m.context_length) == (8329906176, 7206864896, 16384)
    assert m.processor == "13%/87% CPU/GPU"  # math.Round(13.48)
    assert m.expires_at.startswith("2025-08-23")


@pytest.mark.parametrize("size, vram, label", [
    (10, 0, "100% CPU"), (10, 10, "100% GPU"), (10, 11, "Unknown"), (0, 0, "100% CPU"), (100, 52, "48%/52% CPU/GPU"),
    (1000, 865, "14%/86% CPU/GPU"), (1000, 866, "13%/87% CPU/GPU"),
])
def test_processor_label(size, vram, label):
    assert processor_label(size, vram) == label


@pytest.mark.parametrize("text, cpu", [("100% GPU", 0), ("100% CPU", 100), ("94%/6% CPU/GPU", 94), ("Unknown", None)])
def test_cpu_percent(text, cpu):
    assert cpu_percent_of(text) == cpu


def test_a_share_over_100_percent_is_unknown():
    assert cpu_percent_of("101% GPU") is None and cpu_percent_of(("9" * 400) + "%/0% CPU/GPU") is None
    table = "NAME  ID            SIZE    PROCESSOR  UNTIL\nx:1   0123456789ab  9.6 GB  " + "9" * 400 + "% GPU  Forever\n"
    (m,) = parse_ps_text(table)
    assert m.cpu_percent is None and m.size_vram is None


def test_shell_prompt_until_variants_and_empty_table():
    text = (
        "user@box:~$ ollama ps\n"
        "NAME    ID              SIZE     PROCESSOR          CONTEXT    UNTIL\n"
        "a:1     0123456789ab    14 GB    100% CPU           4096       Forever   \n"
        "b:2     0123456789ac    8.3 GB   Unknown            2048       Stopping...\n"
        "c:3     0123456789ad    1 GB     48%/52% CPU/GPU    8192       Never\n"
        "user@box:~$ \n"
    )
    a, b, c = parse_ps_text(text)
    assert a.until == "Forever" and a.forever and a.cpu_percent == 100
    assert b.stopping and b.cpu_percent is None and b.size_vram is None
    assert c.until == "Never" and c.cpu_percent == 48
    assert parse_ps_text("NAME    ID    SIZE    PROCESSOR    UNTIL\n") == ()


def test_unknown_extra_column_is_keyed_by_header():
    text = ("NAME       ID              SIZE      PROCESSOR    RUNNER    UNTIL\n"
            "qwen:7b    0123456789ab    5.0 GB    100% GPU     llama     3 minutes from now\n")
    (m,) = parse_ps_text(text)
    assert m.processor == "100% GPU" and m.until == "3 minutes from now"


def test_merge_keeps_exact_sizes_and_text_until(sample):
    api = parse_api_ps(sample("api_ps_split.json"))
    text = parse_ps_text(sample("ps_context_split.txt").replace("4 minutes from now", "Stopping..."))
    (m,) = merge(api, text)
    assert m.size == 8329906176 and m.stopping


@pytest.mark.parametrize("bad", ["", "hello world", "NAME ID\nfoo bar", "NAME ID SIZE PROCESSOR UNTIL\n!!! ??? ###"])
def test_text_garbage(bad):
    with pytest.raises(ParseError):
        parse_ps_text(bad)


@pytest.mark.parametrize("bad", ["", "[]", '{"models": 3}', '{"models": [1]}', '{"models": [{"name": "x"}]}', "{"])
def test_json_garbage(bad):
    with pytest.raises(ParseError):
        parse_api_ps(bad)


def test_json_empty_and_omitted_vram():
    assert parse_api_ps('{"models": []}') == ()
    (m,) = parse_api_ps(json.dumps({"models": [{"name": "x", "size": 5}]}))
    assert m.size_vram == 0 and m.processor == "100% CPU"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_hypothesis_text(text):
    try:
        parse_ps_text("NAME  ID  SIZE  PROCESSOR  CONTEXT  UNTIL\n" + text)
        parse_ps_text(text)
    except ParseError as e:
        assert str(e)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=12))
def test_hypothesis_json(value):
    for doc in (value, {"models": value}, {"models": [value]}):
        try:
            parse_api_ps(json.dumps(doc))
        except ParseError as e:
            assert str(e)


# -- paste forms without the full header ---------------------------------------------------

def test_a_row_quoted_after_a_label():
    # ollama#10746, as posted (the version the reporter ran, then the row, no header)
    (m,) = parse_ps_text("0.7.0: gemma3:27b-it-qat    29eb0b9aeda3    25 GB    11%/89% CPU/GPU    4 minutes from now\n")
    assert (m.name, m.id, m.size, m.cpu_percent, m.context_length, m.until) == (
        "gemma3:27b-it-qat", "29eb0b9aeda3", 25_000_000_000, 11, None, "4 minutes from now")
    (m,) = parse_ps_text("- qwen3:8b  500a1f067a9f  6.5 GB  100% GPU  40960  Forever")  # with CONTEXT (v0.10+)
    assert (m.name, m.cpu_percent, m.context_length, m.until) == ("qwen3:8b", 0, 40960, "Forever")


def test_a_fragment_of_the_processor_column():
    # ollama#10357, as posted: the PROCESSOR header and its value, the space widened
    (m,) = parse_ps_text("     PROCESSOR              \n     33%/67%   CPU/GPU\n")
    assert (m.name, m.processor, m.cpu_percent, m.size) == ("", "33%/67% CPU/GPU", 33, None)


def test_a_row_needs_its_id_and_processor_cells():
    for text in ("gemma3:27b is 11%/89% on the GPU", "llama3 25 GB 100% GPU Forever", "PROCESSOR is 100% GPU",
                 "NAME here\n33%/67% CPU/GPU", "deadbeefdead 25 GB"):
        with pytest.raises(ParseError):
            parse_ps_text(text)
    # after a real header a stray row-shaped line is a row of that table only if it fits it
    assert parse_ps_text("NAME    ID    SIZE    PROCESSOR    UNTIL\n") == ()
