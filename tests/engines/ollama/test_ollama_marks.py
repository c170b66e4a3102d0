"""The values in Ollama's counted-only lines (knowledge/ollama/marks.py), read from real lines and
lines in the format of Ollama's source, and nothing from garbage; and the checks that conclude from
them, on the log shapes where they must stay silent."""
from __future__ import annotations

import pytest

from llmdoctor.knowledge.ollama.log import Example, scan
from llmdoctor.knowledge.ollama.marks import (FLASH_ATTENTION_OFF, FLASH_ATTENTION_UNSUPPORTED, TYPE_UNSUPPORTED,
                                              context_clamp, kv_refusal, messages_kept, trained_context)


@pytest.mark.parametrize("line,expected", [
    ('level=WARN source=server.go:234 msg="quantized kv cache requested but flash attention disabled" type=q8_0',
     (FLASH_ATTENTION_OFF, "q8_0")),
    ('msg="quantized kv cache requested but flash attention disabled" type=heap', (FLASH_ATTENTION_OFF, "heap")),
    ('level=WARN source=server.go:227 msg="OLLAMA_FLASH_ATTENTION must be enabled to use a quantized '
     'OLLAMA_KV_CACHE_TYPE" type=q4_0', (FLASH_ATTENTION_OFF, "q4_0")),
    ('level=WARN source=server.go:190 msg="kv cache type not supported by model" type=""', (TYPE_UNSUPPORTED, "")),
    ('level=WARN source=server.go:232 msg="unsupported OLLAMA_KV_CACHE_TYPE" type=q5_1', (TYPE_UNSUPPORTED, "q5_1")),
    ('level=WARN source=server.go:203 msg="flash attention enabled but not supported by gpu"',
     (FLASH_ATTENTION_UNSUPPORTED, "")),
    ("garbage type=", None), ("", None),
])
def test_kv_refusal(line, expected):
    assert kv_refusal(line) == expected


@pytest.mark.parametrize("line,expected", [
    ('level=WARN source=server.go:114 msg="requested context size too large for model" num_ctx=49152 '
     'n_ctx_train=40960', (49152, 40960)),
    ('level=WARN source=server.go:51 msg="requested context length is greater than model max context length" '
     'requested=32768 model=8192', (32768, 8192)),
    ("requested context size too large for model num_ctx=abc", None), ("\x00\xff", None),
])
def test_context_clamp(line, expected):
    assert context_clamp(line) == expected


def test_trained_context_is_the_smallest_cut_and_none_without_one():
    lines = ["msg=x num_ctx=8192 n_ctx_train=2048", "msg=x num_ctx=262144 n_ctx_train=131072", "not a clamp"]
    assert trained_context([Example("log", l) for l in lines]) == 2048
    assert trained_context([Example("log", "nothing")]) is None


def test_messages_kept_reads_the_count_the_source_names_truncated():
    assert messages_kept('msg="truncating input messages which exceed context length" truncated=2') == 2
    assert messages_kept("truncated=") is None


def _findings(text: str, check):
    summary = scan(text.splitlines(), "journal.log")
    return list(check(summary))


def test_no_kv_finding_when_no_type_was_asked_for_or_flash_attention_is_only_ollamas_default():
    from llmdoctor.checks.ollama_kv_type_not_applied import kv_type_not_applied

    quiet = ('time=2025-02-18T02:21:25.646Z level=WARN source=server.go:190 msg="kv cache type not supported by model" type=""\n'
             'time=2026-03-01T10:00:00.000Z level=WARN source=server.go:203 msg="flash attention enabled but not supported by gpu"\n')
    assert _findings(quiet, kv_type_not_applied) == []


def test_kv_finding_when_flash_attention_is_unsupported_proposes_no_setting():
    from llmdoctor.checks.ollama_kv_type_not_applied import kv_type_not_applied

    text = ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:203 msg="flash attention enabled but not supported by gpu"\n'
            'time=2026-03-01T10:00:00.000Z level=WARN source=server.go:227 msg="OLLAMA_FLASH_ATTENTION must be enabled '
            'to use a quantized OLLAMA_KV_CACHE_TYPE" type=q4_0\n')
    [f] = _findings(text, kv_type_not_applied)
    assert "q4_0" in f.title and "3.5 times" in f.title
    assert not f.fix.config and "only with it" in f.fix.summary  # nothing to set: a check, no setting


def test_truncation_fix_never_raises_the_context_past_the_trained_length():
    from llmdoctor.checks.ollama_truncation import context_truncation

    text = ('time=2026-08-25T09:15:40.052Z level=WARN source=server.go:114 msg="requested context size too large '
            'for model" num_ctx=8192 n_ctx_train=4096\n'
            'time=2026-08-25T09:16:12.775Z level=WARN source=runner.go:130 msg="truncating input prompt" limit=2048 '
            'prompt=3000 keep=4 new=2048\n')
    [f] = _findings(text, context_truncation)
    assert "4096" in f.fix.config and "8192" not in f.fix.config
