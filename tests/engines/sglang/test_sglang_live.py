"""The live path against an SGLang replay on loopback (tests/support/sglang_replay.py) serving
the recorded /metrics and /get_server_info: facts over HTTP, the checks, discovery and the probe."""
from __future__ import annotations

from llmdoctor.facts import Context, FactStore
from llmdoctor.facts.live_probe import run_probe
from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.hosts.local import LocalHost
from llmdoctor.knowledge.engines import SGLANG, EngineInstance
from llmdoctor.plugins import load_checks, run_check
from tests.support.sglang_replay import SglangReplayConfig, sglang_replay

SPECS = {s.id: s for s in load_checks(site_dir=None, entry_points=False)[0] if s.id.startswith("sglang-")}


def store_for(port: int) -> FactStore:
    return FactStore(Context(host=LocalHost(), sample_seconds=0),
                     preset={"engines": (EngineInstance(SGLANG, port=port, found_by="test"),), "log_sources": ()})


def fired(store: FactStore) -> dict[str, object]:
    out = {}
    for cid, spec in SPECS.items():
        got = run_check(spec, store)
        assert not got.crash, got.crash
        if got.findings:
            out[cid] = got.findings
    return out


def test_live_facts_and_queueing_from_the_recorded_scrape():
    with sglang_replay() as (port, _):
        store = store_for(port)
        m = store.get("sglang_metrics")
        info = store.get("sglang_server_info")
        found = fired(store)
    assert (m.latest.queued, m.latest.running) == (2826, 162)
    assert info["max_running_requests"] == 128 and info["_source"].endswith("/get_server_info")
    assert sorted(found) == ["sglang-queueing"]
    ev = found["sglang-queueing"][0].evidence
    assert any("sglang:num_queue_reqs 2826" in e.text for e in ev)
    # running 162 >= max_running_requests 128 from /get_server_info: the cap is the advice
    assert "--max-running-requests 256" in found["sglang-queueing"][0].fix.commands[0]


def test_live_healthy_replay_gives_no_finding():
    with sglang_replay(SglangReplayConfig(metrics="metrics_idle_7944.prom")) as (port, _):
        assert fired(store_for(port)) == {}


def test_metrics_off_is_a_reason_not_a_crash():
    with sglang_replay(SglangReplayConfig(metrics=None)) as (port, _):
        store = store_for(port)
        assert store.optional("sglang_metrics") is None
        assert "--enable-metrics" in str(store.missing["sglang_metrics"])
        assert fired(store) == {}


def test_probe_identifies_sglang_and_streams():
    with sglang_replay(SglangReplayConfig(slots=1)) as (port, requests):
        url = f"http://127.0.0.1:{port}"
        target = detect(url)
        assert (target.engine, target.model, target.slots, target.context) == (
            SGLANG, "qwen/qwen2.5-0.5b-instruct", 128, 20474)
        result = run_probe(url, deadline_s=30)
    assert requests and all(r["stream"] and r["stream_options"] == {"include_usage": True} for r in requests)
    assert (result.engine, result.slots_source) == (SGLANG, "/get_server_info max_running_requests")
    assert result.samples and not result.errors, result.errors
    done = [s for s in result.samples if s.ok]
    assert done and all(s.ttft_s is not None and s.completion_tokens for s in done)


def test_discovery_by_port_answers_get_server_info():
    from llmdoctor.facts.engines import PORT_PROBES

    assert ("sglang", "/get_server_info") in PORT_PROBES
    with sglang_replay() as (port, _):
        body = LocalHost().http("GET", port, "/get_server_info", timeout=2.0).text
    assert '"model_path"' in body and '"tp_size"' in body  # what discover_live requires of port 30000


def test_collect_then_diagnose_offline_reads_the_same(tmp_path):
    """collect writes the replay's /metrics and /get_server_info; the offline diagnosis of
    that directory finds what the live one finds."""
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.hosts.evidence import EvidenceHost

    with sglang_replay() as (port, _):
        engine = EngineInstance(SGLANG, port=port, found_by="test")
        written, notes = collect_evidence(LocalHost(), tmp_path / "ev", engines=(engine,))
        live = sorted(fired(store_for(port)))
    assert {"metrics.prom", "server_info.json"} <= set(written), notes
    report = diagnose_target(EvidenceHost(tmp_path / "ev"), DiagnoseOptions(sample_seconds=0)).report
    assert sorted(f.check for f in report.findings if f.check.startswith("sglang-")) == live == ["sglang-queueing"]
