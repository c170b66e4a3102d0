"""Result model, JSON contract, renderers and redaction."""
from __future__ import annotations

import json

import pytest

from llmdoctor.model import (
    Cause, Evidence, ExitCode, Finding, Fix, Report, Severity, TargetReport, Unavailable, report_to_dict,
)
from llmdoctor.render import render_json, render_markdown, render_text
from tests.support.schema import report_doc


def finding(sev=Severity.WARNING, text="OLLAMA_NUM_PARALLEL:1"):
    return Finding(Cause.QUEUEING, sev, "one slot", [Evidence("journal", text)],
                   Fix("raise it", ("systemctl daemon-reload",), "[Service]\nEnvironment=\"OLLAMA_NUM_PARALLEL=4\""),
                   check="ollama-one-slot")


def test_finding_needs_evidence():
    with pytest.raises(ValueError):
        Finding(Cause.SWAP, Severity.INFO, "x", [], Fix("y"))


def test_json_contract_keys():
    r = Report("0.1.0", (TargetReport("h", "ollama", (finding(),), (Unavailable("gpu", "no driver"),), ("e",)),))
    d = report_doc(render_json(r))
    assert set(d) == {"version", "targets"}
    t = d["targets"][0]
    assert {"target", "engine", "findings", "unavailable", "errors"} <= set(t)
    f = t["findings"][0]
    assert {"check", "cause", "severity", "title", "evidence", "fix"} <= set(f)
    assert f["evidence"] == [{"source": "journal", "text": "OLLAMA_NUM_PARALLEL:1"}]
    assert set(f["fix"]) == {"summary", "commands", "config"}
    assert t["unavailable"] == [{"fact": "gpu", "reason": "no driver"}]


@pytest.mark.parametrize(
    "severities,code",
    [((), ExitCode.OK), ((Severity.INFO,), ExitCode.OK), ((Severity.WARNING,), ExitCode.WARNING),
     ((Severity.WARNING, Severity.CRITICAL), ExitCode.CRITICAL)],
)
def test_exit_codes(severities, code):
    r = Report("x", (TargetReport("h", "ollama", tuple(finding(s) for s in severities)),))
    assert r.exit_code() == code


def test_unreachable_host_is_unknown_unless_another_is_critical():
    down = TargetReport("b", "unreachable", errors=("timeout",), reachable=False)
    assert Report("x", (TargetReport("a", "ollama"), down)).exit_code() == ExitCode.UNKNOWN
    crit = TargetReport("a", "ollama", (finding(Severity.CRITICAL),))
    assert Report("x", (crit, down)).exit_code() == ExitCode.CRITICAL


def test_text_render_groups_and_ends_with_gaps(monkeypatch):
    r = Report("x", (TargetReport("h", "ollama", (finding(Severity.CRITICAL), finding(Severity.INFO)),
                                  (Unavailable("gpu", "NVML library not found"),)),))
    out = render_text(r, color=False)
    assert "\x1b[" not in out
    assert out.index("Critical") < out.index("Info") < out.index("Could not examine")
    assert "GPU: not available (NVML library not found)" in out
    assert "Fix: raise it" in out and "$ systemctl daemon-reload" in out


def test_no_color_env(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    r = Report("x", (TargetReport("h", "ollama", (finding(),)),))
    assert "\x1b[" not in render_text(r)


def test_markdown_has_summary_table_for_fleets():
    r = Report("x", (TargetReport("a", "ollama", (finding(),)), TargetReport("b", "unreachable", errors=("refused",), reachable=False)))
    md = render_markdown(r)
    assert "| a | ollama | warning | QUEUEING |" in md
    assert "| b | unreachable | error | - |" in md


def test_report_to_dict_round_trips_through_json():
    r = Report("x", (TargetReport("h", "vllm", (finding(),)),))
    assert json.loads(json.dumps(report_to_dict(r))) == report_to_dict(r)


def test_unwrapped_text_keeps_long_lines_whole_and_tabulates_fleets():
    long = "x" * 300
    r = Report("x", (TargetReport("a", "ollama", (finding(text=long),)), TargetReport("b", "unreachable", errors=("refused",), reachable=False)))
    out = render_text(r, color=False, width=None)  # diagnose --width 0: for grep
    assert f"journal: {long}" in out
    lines = out.splitlines()
    assert lines[0].split() == ["host", "engine", "worst", "causes"]
    assert lines[1].split() == ["a", "ollama", "warning", "QUEUEING"]
    assert lines[2].split() == ["b", "unreachable", "error", "-"]


def test_markup_in_evidence_is_shown_literally():
    """Log lines are full of [brackets]; none of them may be taken as formatting."""
    text = "[GIN] 2025/03/06 - 11:42:21 | 503 | [bold]x[/] :smile: \\[y]"
    r = Report("x", (TargetReport("h", "ollama", (finding(text=text),)),))
    assert text in render_text(r, color=False, width=400)
    import re
    plain = re.sub(r"\x1b\[[0-9;]*m", "", render_text(r, color=True, width=400))
    assert text in plain


def test_markdown_code_spans_survive_backticks():
    r = Report("x", (TargetReport("h", "ollama", (finding(text="use `ollama ps` ``twice``"),)),))
    assert "- `journal`: ``` use `ollama ps` ``twice`` ```" in render_markdown(r)


def test_every_view_renders_through_one_call():
    from llmdoctor.render import formats_of, render

    r = Report("x", (TargetReport("h", "ollama", (finding(),)),))
    assert formats_of(r)[:4] == ("text", "json", "markdown", "nagios") and "html" in formats_of(r)
    assert render(r, "json") == render_json(r)
    with pytest.raises(ValueError, match="choose text, json, markdown"):
        render(r, "yaml")
    with pytest.raises(TypeError):
        render(object())
