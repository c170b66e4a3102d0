"""The llama-server client against a real llama-server (llama.cpp's server inside the xllamacpp
wheel, tiny random-weight model): /health, /props, /slots, /metrics and the queueing check."""
from __future__ import annotations

import threading
import time

import pytest

from llmdoctor.plugins import load_checks
from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance
from llmdoctor.facts.llamacpp_endpoints import read_state
from llmdoctor.facts import Context, FactStore
from llmdoctor.plugins import run_check
from llmdoctor.hosts.local import LocalHost
from tests.support.llamaserver import generate, running_llama_server, skip_reason

pytestmark = [pytest.mark.real, pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]


@pytest.fixture(scope="module")
def model():
    from tests.support.tinymodel import tiny_gguf

    return tiny_gguf("medium")




def _queueing_findings(host, port):
    specs, _ = load_checks(site_dir=None, entry_points=False)
    spec = next(s for s in specs if s.id == "llamacpp-queueing")
    store = FactStore(Context(host), preset={"engines": (EngineInstance(LLAMACPP, port=port, found_by="test"),)})
    return run_check(spec, store).findings


def test_idle_server_with_two_slots(model):
    with running_llama_server(model, n_parallel=2, n_ctx=4096, metrics=True) as url:
        state = read_state(LocalHost(), url.port, timeout=5)
        assert state.errors == ()
        assert state.health.ok and not state.health.loading
        assert state.props.total_slots == 2 and state.props.n_ctx == 2048  # -c split across an explicit -np
        assert [s.n_ctx for s in state.slots] == [2048, 2048]
        assert state.busy_slots == 0
        assert state.metrics.requests_deferred == 0 and state.metrics.prefix == "llamacpp:"
        assert _queueing_findings(LocalHost(), url.port) == ()


def test_one_slot_under_load_defers_requests(model):
    with running_llama_server(model, n_parallel=1, n_ctx=2048, metrics=True) as url:
        threads = [threading.Thread(target=generate, args=(url, 200, i), daemon=True) for i in range(2)]
        for t in threads:
            t.start()
            time.sleep(0.05)
        try:
            deadline = time.monotonic() + 10
            state = read_state(LocalHost(), url.port)
            while (state.metrics.requests_deferred or 0) < 1 and time.monotonic() < deadline:
                time.sleep(0.1)
                state = read_state(LocalHost(), url.port)
            assert state.metrics.requests_deferred >= 1
            assert state.metrics.requests_processing == 1
            assert state.props.total_slots == 1 and state.busy_slots == 1
            findings = _queueing_findings(LocalHost(), url.port)
            assert [f.cause.value for f in findings] == ["QUEUEING"]
            assert any("requests_deferred" in e.text for e in findings[0].evidence)
        finally:
            for t in threads:
                t.join(0.1)  # the server's stop ends them


def test_metrics_disabled_is_reported_not_raised(model):
    with running_llama_server(model, n_parallel=1, n_ctx=1024, metrics=False) as url:
        state = read_state(LocalHost(), url.port)
        assert state.metrics is None
        assert any("--metrics" in e or "/metrics" in e for e in state.errors)
        assert state.slots is not None and state.props.total_slots == 1


def test_nothing_listening_is_a_line_not_a_traceback():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    state = read_state(LocalHost(), port, timeout=2)
    assert state.health is None and len(state.errors) == 4


def test_collect_then_diagnose_offline(model, tmp_path):
    """collect writes /health, /props, /slots and /metrics of a real server; the offline
    diagnosis reads them back as the live one does."""
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.hosts.evidence import EvidenceHost

    with running_llama_server(model, n_parallel=2, n_ctx=4096, metrics=True) as url:
        engine = EngineInstance(LLAMACPP, port=url.port, found_by="test")
        live = read_state(LocalHost(), url.port, timeout=5)
        written, notes = collect_evidence(LocalHost(), tmp_path / "ev", engines=(engine,))
    assert {"health.json", "props.json", "slots.json", "metrics.prom", "meta.json"} <= set(written), notes
    offline = read_state(EvidenceHost(tmp_path / "ev"), 0)
    assert offline.props.total_slots == live.props.total_slots == 2
    assert [s.n_ctx for s in offline.slots] == [s.n_ctx for s in live.slots]
    assert offline.metrics.requests_deferred == 0


def test_collect_with_probe_keeps_the_timings(model, tmp_path):
    """collect --probe runs the light probe and writes probe.json, which the offline
    diagnosis reads back: one slot is found queueing without the server."""
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.hosts.evidence import EvidenceHost

    with running_llama_server(model, n_parallel=1, n_ctx=2048, metrics=True) as url:
        engine = EngineInstance(LLAMACPP, port=url.port, found_by="test")
        written, notes = collect_evidence(LocalHost(), tmp_path / "ev", engines=(engine,), probe=True)
    assert "probe.json" in written, notes
    report = diagnose_target(EvidenceHost(tmp_path / "ev"), DiagnoseOptions(only=("probe-queueing",), sample_seconds=0)).report
    assert [f.check for f in report.findings] == ["probe-queueing"]
