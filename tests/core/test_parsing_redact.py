"""Shared parsing helpers and secret redaction, on real shapes and on garbage."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.parsing import ParseError, parse_duration, parse_size, strip_journal_prefix
from llmdoctor.redact import REDACTED, is_secret_name, redact_env, redact_text


@pytest.mark.parametrize(
    "line,expected",
    [
        # samples.md 2d (journald short format)
        ("Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.145+01:00 level=INFO", "time=2025-08-08T23:02:37.145+01:00 level=INFO"),
        # samples.md 7 (journald, script-started server)
        ("May 23 00:31:58 corrm-pc start_llama_server.sh[385247]: 50.08.172.324 I slot print_timing:", "50.08.172.324 I slot print_timing:"),
        ("2026-05-23T00:31:58+0000 host ollama[1]: msg", "msg"),
        ("no prefix here", "no prefix here"),
    ],
)
def test_strip_journal_prefix(line, expected):
    assert strip_journal_prefix(line) == expected


def test_sizes_and_durations():
    assert parse_size("8.3 GB") == 8_300_000_000
    assert parse_size("5766.09 MiB") == round(5766.09 * 1024**2)
    assert parse_size("24GiB") == 24 * 1024**3
    assert parse_duration("2562047h47m16.854775807s") > 9e9  # Ollama's "forever"
    assert parse_duration("1h30m") == 5400
    assert parse_duration("3600") == 3600


@given(st.text(max_size=40))
def test_garbage_sizes_and_durations_raise_parse_error_only(s):
    for fn in (parse_size, parse_duration):
        try:
            fn(s)
        except ParseError:
            pass


@given(st.text(max_size=200))
def test_strip_prefix_never_raises(s):
    assert isinstance(strip_journal_prefix(s), str)


def test_secret_names():
    for name in ("HF_TOKEN", "OPENAI_API_KEY", "db_password", "Passwd", "MY_AUTH", "AWS_SECRET_ACCESS_KEY", "GOOGLE_CREDENTIALS"):
        assert is_secret_name(name)
    assert not is_secret_name("OLLAMA_NUM_PARALLEL")
    assert redact_env({"HF_TOKEN": "hf_abc", "OLLAMA_HOST": "0.0.0.0"}) == {"HF_TOKEN": REDACTED, "OLLAMA_HOST": "0.0.0.0"}


def test_redact_text_forms():
    text = 'Environment=HF_TOKEN=hf_secret OLLAMA_HOST=0.0.0.0 "VLLM_API_KEY=sk-1" --api-key sk-2 OPENAI_API_KEY:sk-3'
    out = redact_text(text)
    for secret in ("hf_secret", "sk-1", "sk-2", "sk-3"):
        assert secret not in out
    assert "OLLAMA_HOST=0.0.0.0" in out


@given(st.dictionaries(st.from_regex(r"[A-Z_]{1,12}", fullmatch=True), st.text(min_size=1, max_size=20).filter(lambda v: " " not in v and "\"" not in v and "'" not in v)))
def test_redacted_values_never_survive(env):
    line = " ".join(f"{k}={v}" for k, v in env.items())
    out = redact_text(line)
    for k, v in env.items():
        if is_secret_name(k):
            assert f"{k}={v}" not in out or v == REDACTED


def test_absurd_sizes_are_parse_errors():
    with pytest.raises(ParseError):
        parse_size("9" * 400 + " GB")


def test_proxy_password_in_ollama_server_config_line():
    line = 'msg="server config" env="map[HTTPS_PROXY:http://user:pa55@proxy:3128 OLLAMA_HOST:0.0.0.0]"'
    assert "pa55" not in redact_text(line)


def test_passwords_in_urls():
    out = redact_text("probe http://admin:s3cret@gpu-box:11434/api/ps failed; ssh://u@host stays")
    assert "s3cret" not in out and "http://admin:<redacted>@gpu-box:11434" in out
    assert "ssh://u@host" in out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["KEY", "TOKEN", "=", ":", ": ", '"', "'", "\\", ' ', "a", "[", "]", "api_key", "\n",
                                 "Bearer ", "://", "@", "-----BEGIN RSA PRIVATE KEY-----", "eyJ", "hf_", "sk-"]), max_size=200)
       .map("".join))
def test_redact_takes_any_text(text):
    once = redact_text(text)
    assert isinstance(once, str) and isinstance(redact_text(text * 300), str)


POD_ENV_FORMS = [  # kubectl get pod -o json / -o yaml, a Deployment, compose's long form
    '"env": [\n    {\n        "name": "HF_TOKEN",\n        "value": "q7podTok2"\n    },\n'
    '    {\n        "name": "OLLAMA_NUM_PARALLEL",\n        "value": "4"\n    }\n]',
    "        env:\n        - name: POSTGRES_PASSWORD\n          value: q7yamlPw3\n"
    '        - name: OLLAMA_KEEP_ALIVE\n          value: "24h"',
    "{'name': 'SECRET_KEY', 'value': 'q7dict5'}",
]


@pytest.mark.parametrize("text", POD_ENV_FORMS)
def test_secret_named_env_entries_split_over_name_and_value(text):
    """The name stands under one key and the value under another, often on the next line."""
    import json

    for t in (text, json.dumps(text), text * 3000):
        shown = redact_text(t)
        assert "q7" not in shown and REDACTED in shown
    assert "4" in redact_text(POD_ENV_FORMS[0]) and '"24h"' in redact_text(POD_ENV_FORMS[1])
    assert redact_text('"name": "OPENAI_API_KEY",\n "valueFrom": {"secretKeyRef": {"key": "k"}}').count(REDACTED) == 0


def test_a_count_of_tokens_is_not_a_credential():
    # SGLang 0.1's prefill line (sgl-project/sglang#444): `#cached_token: 330. #new_token: 2172.` are counts
    line = ("new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. #remaining_req: 57. #running_req: 9. "
            "tree_cache_hit_rate: 69.16%")
    assert redact_text(line) == line
    assert redact_text("prompt_tokens: 12") == "prompt_tokens: 12"
    for secret in ("api_token: 12345678", "auth_token: 123", "AUTH_TOKEN=42", "password: 1234",
                   "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz"):  # long, or named for more than tokens
        assert "<redacted>" in redact_text(secret), secret


def _min_width(pattern: str) -> int:
    import re._parser as sre_parse  # (the standard library's own reading of the pattern)

    return sre_parse.parse(pattern).getwidth()[0]


def test_every_token_shape_is_long_or_holds_a_trigger_word():
    """What lets a short text skip the pre-filter (redact._may_trigger): a shape shorter than
    _SHAPE_MIN must start with one of _TRIGGER_WORDS."""
    from llmdoctor.redact import _SHAPE_LIST, _SHAPE_MIN, _TRIGGER_WORDS

    for shape in _SHAPE_LIST:
        assert _min_width(shape) >= _SHAPE_MIN or any(shape.lower().startswith(w.decode()) for w in _TRIGGER_WORDS), shape


def _trigger_agrees(text: str) -> None:
    import re

    from llmdoctor.redact import _TRIGGER, _may_trigger

    data = text.encode("utf-8", "replace").lower()
    if re.search(_TRIGGER, data):
        assert _may_trigger(data), text


def test_the_pre_filter_is_skipped_only_where_it_cannot_match():
    from tests.core.secrets_corpus import SECRETS

    for s in SECRETS:
        _trigger_agrees(s.line)
        for cut in range(1, len(s.line)):  # every piece of it, too
            _trigger_agrees(s.line[cut:cut + 24])
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "fixtures"
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.stat().st_size < 4_000_000:
            for line in p.read_bytes().decode("utf-8", "replace").split("\n"):
                _trigger_agrees(line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["ab", ":", "/", "@", "=", "-", "_", ".", " ", "\t", "AKIA", "0123", "xoxp",
                                 "token", "key", "Bearer ", "--", "sig", "'", '"']), max_size=40).map("".join))
def test_the_pre_filter_skip_on_garbage(text):
    _trigger_agrees(text)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_shape_passes_the_pre_filter_skip(data):
    """A token of every shape, alone or inside a sentence, is never skipped by _may_trigger
    (which asks a long word to hold the start of some shape)."""
    from llmdoctor.redact import _SHAPE_LIST, _may_trigger

    for shape in _SHAPE_LIST:
        token = data.draw(st.from_regex(shape, fullmatch=True), label=shape)
        for text in (token, f"the value was {token}, see the run", f"x{token}y"):
            assert _may_trigger(text.encode("utf-8", "replace").lower()), (shape, text)
            _trigger_agrees(text)
