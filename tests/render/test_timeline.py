"""The probe drawn in text (render/timeline.py) from the recorded probe runs: one row
per request on a shared axis, every line within the width asked for."""
from __future__ import annotations

import pytest

from llmdoctor.knowledge.probe.phases import DECODING, PREFILL, WAITING, probe_phases
from llmdoctor.render.timeline import timeline_lines, timeline_text
from tests.render.probe_fixtures import EVIDENCE, PROBE_DIRS, runs_of

ONE_SLOT = EVIDENCE / "probe-llamacpp-one-slot"


def test_there_are_recorded_probes():
    assert len(PROBE_DIRS) >= 5


@pytest.mark.parametrize("width", [20, 40, 60, 80, 120, 200])
@pytest.mark.parametrize("directory", PROBE_DIRS, ids=lambda p: p.name)
def test_every_line_fits_the_width(directory, width):
    runs = runs_of(directory)
    text = timeline_text(runs, width)
    assert text.strip()
    assert max(len(line) for line in text.splitlines()) <= width
    result = runs.results[0]
    rows = [line for line in timeline_lines(result, width) if line.split(" ", 1)[0] in {s.id[:14] for s in result.samples}]
    assert len(rows) == len(result.samples)  # one row per request


def test_one_slot_shows_the_second_request_waiting_for_the_first():
    result = runs_of(ONE_SLOT).results[0]
    by_id = {p.id: p for p in probe_phases(result)}
    first, second = by_id["pair-1"], by_id["pair-2"]
    assert abs(first.sent - second.sent) < 0.01  # sent together
    wait = next(s for s in second.segments if s.kind == WAITING)
    assert wait.end - wait.start > 0.3  # queued behind pair-1 (one slot)
    assert second.first_token > first.last_token - 0.05
    prefill = next(s for s in second.segments if s.kind == PREFILL)
    assert prefill.end == pytest.approx(second.first_token)
    decode = next(s for s in second.segments if s.kind == DECODING)
    assert decode.end == pytest.approx(second.last_token)
    lines = timeline_lines(result, 80)
    row = {line.split()[0]: line for line in lines[2:] if line.split() and line.split()[0].startswith("pair")}
    assert row["pair-2"].index("|") > row["pair-1"].index("|") + 5  # its first token comes well later
    assert "·" * 5 in row["pair-2"] and row["pair-2"].rstrip().endswith("ttft 0.55s")
    assert row["pair-1"].rstrip().endswith("ttft 0.05s")


def test_a_refused_request_is_drawn_as_failed():
    text = timeline_text(runs_of(EVIDENCE / "probe-ollama-queue-full"), 80)
    assert "http_error" in text


def test_the_probe_report_ends_with_the_timeline(monkeypatch):
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.render import render
    from llmdoctor.render.probe import ProbeView

    monkeypatch.setenv("COLUMNS", "60")
    report, results = diagnose([EvidenceHost(ONE_SLOT)], DiagnoseOptions())
    text = render(ProbeView(report, results[0].facts["probe"]), "text")
    assert "Probe timeline · http://127.0.0.1:42577 (llamacpp, 1 slot)" in text
    tail = text[text.index("Probe timeline"):]
    assert max(len(line) for line in tail.splitlines()) <= 60
