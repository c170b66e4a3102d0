"""Paste repair on real pastes (tests/fixtures/realcases, their sources in each case.json) and
on anything at all (hypothesis): prefixes off, wrapped lines joined, glued records split."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.pasted import repair_config, repair_log
from tests.support.realcases import CORPORA

CASES = {d.name[:4] if d.name.startswith("x") else d.name[:7]: d for root in CORPORA for d in root.iterdir() if d.is_dir()}


def text(case: str, name: str) -> str:
    return (CASES[case] / name).read_text()


def test_localised_journald_and_hard_wrapped_key_values():
    # ollama#10798: a Chinese-locale journal (5月 21), wrapped by the maintainer at ~110 columns
    r = repair_log(text("case134", "journal.log"))
    lines = [l for l in r.text.split("\n") if l]
    assert len(lines) == 2 and r.prefixes == ("journald",) and r.idents == ("ollama",)
    assert "layers.model=29 layers.offload=29 layers.split=\"\" memory.available=\"[22.4 GiB]\"" in lines[0]
    assert lines[1].endswith("msg=system CPU.0.LLAMAFILE=1 compiler=cgo(gcc)")


def test_compose_columns_and_docker_stamps():
    r = repair_log(text("case136", "journal.log"))  # `ollama  | ` in front of old Go log lines
    assert r.prefixes == ("compose",) and r.text.startswith("2025/01/16 04:29:39 config.go:215: WARN")
    r = repair_log(text("x217", "journal.log"))  # two services, then `docker compose logs -t` stamps
    assert set(r.idents) == {"hoarder", "ollama"} and "docker-timestamp" in r.prefixes
    assert "\n[GIN] 2024/11/07 - 18:37:25 | 200 |" in "\n" + r.text
    r = repair_log(text("x220", "vllm.log"))  # the pasted line starts with a space before `vllm-1  | `
    assert r.text.startswith("ValueError: The model's max seq len (32768)")


def test_tqdm_bar_glued_to_a_record_is_split():
    r = repair_log(text("case110", "vllm.log"))  # vllm#5578
    lines = r.text.split("\n")
    assert r.split == 2 and any(l.startswith("INFO 06-16 21:24:15 metrics.py:341] Avg prompt") for l in lines)


def test_exception_wrapped_after_a_comma_is_joined():
    r = repair_log(text("x209", "vllm.log"))  # kaito#2132: a V1 ValueError over three lines
    assert "max seq len (1048576), 22.5 GiB KV cache is needed" in r.text


def test_quote_bars_are_stripped_like_markdown_quotes():
    r = repair_log(text("x302", "vllm.log"))  # spark-vllm-docker#396: every line behind a U+258E bar
    assert r.changed and "\u258e" not in r.text
    assert "max seq len (196608), 23.25 GiB KV cache is needed" in r.text
    assert repair_log("| a | b |\n| 1 | 2 |\n").text == "| a | b |\n| 1 | 2 |\n"  # a table keeps its bars


def test_zsh_percent_after_json():
    body = repair_config(text("case125", "http_response.txt")).text  # modal-examples#843
    assert json.loads(body)["data"][0]["max_model_len"] == 8096


def test_kubectl_prefix_json_file_and_cut_first_line():
    r = repair_log("[pod/ollama-0/ollama] 2026-11-29T10:00:00.123456789Z [GIN] 2026/11/29 - 10:00:00 | 200 | 1s | 1.2.3.4 | POST \"/api/chat\"\n")
    assert r.text.startswith("[GIN] 2026/11/29") and r.idents == ("ollama",)
    r = repair_log('{"log":"time=2026-11-29T10:00:00Z level=INFO msg=x\\n","stream":"stderr","time":"2026-11-29T10:00:00Z"}\n')
    assert r.text.startswith("time=2026-11-29T10:00:00Z level=INFO msg=x") and r.prefixes[0] == "docker-json"
    cut = "13 notquorra ollama[907909]: [GIN] a\nJan 12 00:53:05 notquorra ollama[907909]: [GIN] b\n"
    assert repair_log(cut).text.split("\n")[:2] == ["[GIN] a", "[GIN] b"]


def test_tracebacks_and_yaml_blocks_stay_as_they_are():
    tb = 'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    main()\nValueError: boom\n'
    assert repair_log(tb).text == tb.rstrip("\n") + "\n" or repair_log(tb).joined <= 1
    assert 'File "x.py"' in repair_log(tb).text.split("\n")[1]
    compose = "services:\n  ollama:\n    environment:\n      - OLLAMA_NUM_PARALLEL=4\n"
    assert repair_config(compose).text == compose


def test_clean_text_is_unchanged():
    clean = "INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Running: 1 reqs, Waiting: 0 reqs\nplain line\n"
    assert not repair_log(clean).changed and repair_log(clean).text == clean


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=600))
def test_never_raises(garbage):
    for repair in (repair_log, repair_config):
        r = repair(garbage)
        assert isinstance(r.text, str)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Nov 29 10:00:00 h ollama[1]: ", "ollama  | ", "  ", "[pod/a/b] ", "x,", "\t",
                                 "time=2026-01-01T00:00:00Z ", "[GIN] 2026/01/01 - ", "INFO 01-01 00:00:00 ", "{\"log\":",
                                 "Traceback (most recent call last):", "  File \"a\"", "%", "}", "\r\n", "\n", "a=b "]),
                max_size=40))
def test_never_raises_on_fragments_of_real_prefixes(parts):
    repair_log("".join(parts))
