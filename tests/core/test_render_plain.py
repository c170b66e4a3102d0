"""Piped text output written without rich must be byte-for-byte what rich writes.

render_text() skips importing rich (start-up time) when it can show that the result is
the same; these tests hold that claim against rich itself, on every evidence fixture and
on text built to trip it (markup-like brackets, backslashes, emoji codes, control
characters, wide characters, long names).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmdoctor import render
from llmdoctor.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Cause, Evidence, Finding, Fix, Report, Severity, TargetReport, Unavailable

FIXTURES = sorted(p for p in (Path(__file__).resolve().parents[1] / "fixtures" / "evidence").iterdir() if p.is_dir())


def plain_and_rich(target: TargetReport, width: int = 100) -> tuple[str | None, str]:
    plain = render._plain_text(render._text_ops(target, render._escape), width)
    return plain, render._rich_text(Report("0.0.0", (target,)), False, width)


@pytest.mark.parametrize("directory", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_output_is_rich_output(directory):
    target = diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0)).report
    plain, rich_text = plain_and_rich(target)
    assert plain is None or plain == rich_text
    assert render.render_text(Report("0.0.0", (target,)), color=False) == rich_text


@pytest.mark.parametrize("name", ["ollama-cpu-spill", "vllm-preempt-v1", "config-no-reload", "llamacpp-prefill"])
def test_common_output_skips_rich(name):
    target = diagnose_target(EvidenceHost(FIXTURES[0].parent / name), DiagnoseOptions(sample_seconds=0)).report
    plain, rich_text = plain_and_rich(target)
    assert plain == rich_text  # not None: these (vLLM [file.py:N] tags, timestamps) take the fast path


def report(text: str, target: str = "host", engine: str = "ollama", title: str = "t") -> TargetReport:
    f = Finding(Cause.QUEUEING, Severity.WARNING, title, [Evidence(text or "s", text)],
                Fix(text, (text,), text), check="ollama-one-slot")
    return TargetReport(target, engine, (f,), (Unavailable("gpu", text),), (text,), (("Label", text),))


TRICKY = [
    "plain", "[bold]x[/]", "[loggers.py:259] Engine 000", "\\[loggers.py:259]", "ends with \\", "a\\b", "x [a: b] y",
    "[/]", "[GIN] 200", "ollama[1617]: ok", ":smile: :100: :thumbs_up-emoji:", "10:11:12 12:00:00", ":x:smile:",
    "tab\there", "cr\rhere", "bell\x07", "nl\nhere", "trailing  ", "wide 日本語 ●", "nbsp\u00a0x", "[a", "b]", "[a]b]",
    "[link=http://x]y[/link]", "@[x]", "#[red]", ":SMILE:", ": :", "::", "a" * 300,
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_text(text):
    plain, rich_text = plain_and_rich(report(text, title=text))
    assert plain is None or plain == rich_text


@pytest.mark.parametrize("n", [0, 1, 2, 50, 95, 96, 97, 98, 120])
def test_rule_widths(n):
    for width in (100, 80, 37):
        plain, rich_text = plain_and_rich(report("x", target="h" * n, engine="e" * (n % 7)), width)
        assert plain is None or plain == rich_text
        if n <= 50 and width == 100:
            assert plain == rich_text


ALPHABET = st.sampled_from(list("ab:[]/\\ #@=-_.·●\t日") + [":smile:", ":100:", "[bold]", "[/]", "[x.py:1]", " "])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=25).map("".join), st.lists(ALPHABET, max_size=12).map("".join))
def test_random_text(text, target):
    plain, rich_text = plain_and_rich(report(text, target=target or "h", title=text or "t"))
    assert plain is None or plain == rich_text


@pytest.mark.parametrize("label,value", [("x[a", "b]"), ("[bold", "]"), ("a:smile", ":"), ("x", "y"), ("[a]", "[b]")])
def test_markup_across_label_and_value(label, value):
    t = TargetReport("h", "ollama", (), (), (), ((label, value),))
    plain, rich_text = plain_and_rich(t)
    assert plain is None or plain == rich_text
