"""The queue's shape over time (judge/queue_shape.series_shape), for every engine: a queue that
climbs, bursts that drain, one spike; on the real-format logs of vLLM and SGLang (sources in
tests/fixtures/vllm/README.md and tests/fixtures/sglang/SOURCES.md) each shape gets its own fix,
and the series classifier agrees with the vLLM log scanner on any series."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.judge import thresholds as T
from llmdoctor.judge.queue_shape import BURSTS, GROWING, SHAPES, SPIKE, STEADY, queue_shape, series_shape

FIX = Path(__file__).resolve().parents[1] / "fixtures"
VLLM_LINE = (FIX / "vllm/stats_v1_access_llmscaler_391.log").read_text().splitlines()[0]


def test_the_issues_examples():
    assert series_shape([3, 9, 17, 24, 33, 41, 52, 60, 71, 83, 94, 105]).kind == GROWING
    assert series_shape([30, 0, 30, 0, 30, 0]).kind == BURSTS
    assert series_shape([0] * 6 + [14] + [0] * 6).kind == SPIKE
    assert series_shape([14, 15, 15]).kind == STEADY
    assert series_shape([0, 0, 0]) is None and series_shape([]) is None
    assert series_shape([14]) is None  # one reading alone: no shape


@given(st.integers(1, 50), st.lists(st.integers(1, 30), min_size=T.QUEUE_TREND_MIN_LINES - 1, max_size=40))
def test_a_queue_that_only_climbs_and_doubles_is_growing(first, steps):
    values = [first]
    for s in steps:
        values.append(values[-1] + s)
    if values[-1] < T.QUEUE_TREND_GROWTH * first:
        values.append(math.ceil(T.QUEUE_TREND_GROWTH * first))
    assert series_shape(values).kind == GROWING


@given(st.lists(st.lists(st.integers(1, 500), min_size=1, max_size=8), min_size=2, max_size=6),
       st.integers(1, 5))
def test_a_queue_that_drains_to_zero_and_comes_back_is_bursts(bursts, gap):
    values = []
    for b in bursts:
        values += b + [0] * gap
    assert series_shape(values).kind == BURSTS


@given(st.integers(1, 10_000), st.integers(1, T.QUEUE_SPIKE_MAX_LINES), st.integers(0, 20), st.integers(0, 20))
def test_one_short_run_among_enough_quiet_readings_is_a_spike(height, width, before, after):
    values = [0] * before + [height] * width + [0] * after
    shape = series_shape(values)
    if before + after >= T.QUEUE_SPIKE_MAX_LINES + 1:
        assert shape.kind == SPIKE
    else:
        assert shape is None  # too little quiet around it to call it a spike


@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**6), st.none()),
                max_size=80))
def test_any_series_gives_a_known_shape_or_none_and_never_raises(values):
    shape = series_shape(values)
    assert shape is None or (shape.kind in SHAPES and shape.evidence and shape.queue_cap() >= 1)


@given(st.lists(st.integers(1, 1000), min_size=1, max_size=30), st.integers(2, 50))
def test_scaling_a_queue_keeps_its_shape(values, k):
    """Shapes are about the form, not the size (the first value at least 1 keeps the growth ratio)."""
    a, b = series_shape(values), series_shape([v * k for v in values])
    if a is not None and a.kind != GROWING:
        assert b.kind == a.kind


def _vllm_lines(series):
    out = []
    for i, w in enumerate(series):
        t = 22 * 3600 + 54 * 60 + 32 + 10 * i
        stamp = f"{t // 3600 % 24:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"
        out.append(VLLM_LINE.replace("22:54:32", stamp).replace("Waiting: 14 reqs", f"Waiting: {w} reqs"))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, 1, 3, 14, 30, 105]), max_size=40))
def test_the_series_agrees_with_the_vllm_log_scanner(series):
    from llmdoctor.knowledge.vllm.log import scan_vllm_lines

    scan = scan_vllm_lines(_vllm_lines(series), "vllm.log")
    from_log = queue_shape(scan.longest_waiting_run, scan.waiting_lines, scan.stats_lines)
    from_series = series_shape(series, "line")
    assert (from_log and (from_log.kind, from_log.evidence)) == (from_series and (from_series.kind, from_series.evidence))


# -- each shape its own fix, on the real-format logs --------------------------------------

def _diagnose(tmp_path, engine, name):
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.hosts.evidence import EvidenceHost

    d = tmp_path / name
    d.mkdir()
    (d / f"{engine}.log").write_bytes((FIX / engine / name).read_bytes())
    (d / "meta.json").write_text('{"engine": "%s"}' % engine)
    report = diagnose_target(EvidenceHost(d), DiagnoseOptions()).report
    return next((f for f in report.findings if f.check == f"{engine}-queueing"), None), report


@pytest.mark.parametrize("engine,suffix", [("vllm", "391"), ("sglang", "22166")])
def test_growing_asks_for_capacity(tmp_path, engine, suffix):
    f, _ = _diagnose(tmp_path, engine, f"queue_growing_{suffix}.log")
    assert f.severity.value == "warning" and "grew without draining" in f.fix.summary
    assert any("3 → 105" in e.text and "it grew without draining" in e.text for e in f.evidence)
    assert "--max-num-queued-reqs" not in f.fix.commands[0] and "--max-queued-requests" not in f.fix.commands[0]


@pytest.mark.parametrize("engine,suffix,flag", [("vllm", "391", "--max-num-queued-reqs 60"),
                                                 ("sglang", "22166", "--max-queued-requests 60")])
def test_bursts_bound_the_queue_instead_of_adding_a_replica(tmp_path, engine, suffix, flag):
    f, report = _diagnose(tmp_path, engine, f"queue_bursts_{suffix}.log")
    assert "drained between bursts" in f.fix.summary
    assert f.fix.commands[0].endswith(flag)  # twice the deepest burst of the longest run
    assert not any("data-parallel" in c or "--dp" in c for c in f.fix.commands)
    merged = [c for c in report.changes if c.place.endswith("command line")]
    assert merged and flag.split()[0] in dict(merged[0].settings)


def test_a_vllm_spike_is_information_with_no_setting_to_change(tmp_path):
    f, report = _diagnose(tmp_path, "vllm", "queue_spike_391.log")
    assert f.severity.value == "info" and f.fix.commands == () and "nothing structural" in f.fix.summary
    assert not [c for c in report.changes if c.place.startswith("vllm")]


def test_an_sglang_spike_is_no_queueing_finding(tmp_path):
    f, _ = _diagnose(tmp_path, "sglang", "queue_spike_22166.log")
    assert f is None  # one batch line with a queue is below the check's own floor
