"""The progress verdict (knowledge/progress.py readings, judge/progress.py decisions) on real
answers of the engines and on garbage: tokens advancing is progress, requests in flight with
not one token across the window is a stall, idle says nothing (a request of our own tells)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.facts.progress import EngineProgress, progress_from_json
from llmdoctor.judge.progress import BUSY, DOWN, FAILING, LOADING, READY, STALLED, from_readings, from_request
from llmdoctor.knowledge.progress import Reading, reading

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SLOTS = json.loads((FIXTURES / "llamacpp" / "slots_readme.json").read_text())
METRICS = (FIXTURES / "llamacpp" / "metrics_13196.prom").read_text()


def test_llamacpp_reading_from_real_slots_and_metrics():
    r = reading("llamacpp", 0.0, METRICS, SLOTS)
    assert r.source == "/metrics, /slots" and r.marks
    assert r.in_flight is not None


def test_vllm_reading_from_its_counters():
    text = ('vllm:num_requests_running{engine="0",model_name="tiny"} 3.0\n'
            'vllm:num_requests_waiting{engine="0",model_name="tiny"} 5.0\n'
            'vllm:generation_tokens_total{engine="0",model_name="tiny"} 1200.0\n')
    r = reading("vllm", 1.0, text)
    assert (r.running, r.waiting, r.generated, r.in_flight) == (3, 5, 1200.0, 8)


@pytest.mark.parametrize("garbage", ["", "\x00\xff", "vllm:num_requests_running{", "<html>502</html>", "# HELP only\n"])
def test_garbage_reads_as_figures_unknown(garbage):
    for engine in ("llamacpp", "vllm", "sglang", "ollama"):
        r = reading(engine, 0.0, garbage, [{"is_processing": "x"}, 7, None])
        assert r.generated is None


def _r(at, generated, running, waiting=0):
    return Reading(at, "/metrics", generated, running, waiting, (generated,))


def test_tokens_advancing_with_requests_in_flight_is_busy_not_stalled():
    v = from_readings([_r(0.0, 100, 4, 9), _r(2.0, 180, 4, 9)])
    assert v.state == BUSY and v.serving and "advancing" in v.reason


def test_no_token_across_the_window_with_requests_in_flight_is_stalled():
    v = from_readings([_r(0.0, 100, 2), _r(2.0, 100, 2)], "GET /health: 200")
    assert v.state == STALLED and not v.serving and v.exit_code == 2
    assert "GET /health: 200" in v.evidence


def test_a_window_too_short_to_tell_says_nothing():
    assert from_readings([_r(0.0, 100, 2), _r(0.3, 100, 2)]) is None


def test_idle_says_nothing_from_counters():
    assert from_readings([_r(0.0, 100, 0), _r(2.0, 100, 0)]) is None
    assert from_readings([_r(0.0, 100, 0)]) is None


@pytest.mark.parametrize("status,state", [("token", READY), ("timeout", STALLED), ("refused", DOWN),
                                          ("loading", LOADING), ("error", FAILING)])
def test_verdict_from_our_own_request(status, state):
    assert from_request(status, 1.0, "POST /v1/chat/completions: ...").state == state


def test_recorded_progress_round_trips_and_garbage_is_a_clear_error():
    p = EngineProgress("vllm", 8000, "ok", "GET /health: 200", (_r(0.0, 1, 1), _r(2.0, 1, 1)))
    [back] = progress_from_json(json.dumps([p.to_dict()]).encode())
    assert back.readings[1].marks == (1,) and back.port == 8000
    for bad in (b"{}", b"[1]", b'[{"kind": "vllm", "readings": [{"at": "x"}]}]', b"not json",
                b'[{"kind": "vllm", "readings": [{"at": 1, "running": [null]}]}]',
                b'[{"kind": "vllm", "readings": [{"at": 1, "marks": [{"a": 1}]}]}]'):
        with pytest.raises(ValueError):
            progress_from_json(bad)


def test_the_exporter_gauge_from_the_recorded_fixtures():
    from llmdoctor.app.exporter.readings import progress_samples

    ev = FIXTURES / "evidence"
    stalled = progress_from_json((ev / "llamacpp-engine-stalled" / "progress.json").read_bytes())
    moving = progress_from_json((ev / "llamacpp-progressing" / "progress.json").read_bytes())
    [(name, labels, value)] = progress_samples({"engine_progress": stalled})
    assert name == "llmdoctor_engine_progress" and dict(labels)["engine"] == "llamacpp" and value == 0.0
    assert [s[2] for s in progress_samples({"engine_progress": moving})] == [1.0]
    assert progress_samples({}) == []
