"""Fact "probe" (evidence probe.json and the live path) and the probe_* checks:
each check silent on the healthy fixture and alone on its pathological one."""
import json
from pathlib import Path

import pytest

from llmdoctor.plugins import load_checks, run_check
from llmdoctor.knowledge.engines import EngineInstance
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost
from llmdoctor.judge.summaries import summary_of
from tests.support.ollama_replay import ollama_replay

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
PROBE_DIRS = sorted(p for p in EVIDENCE.glob("probe-*") if p.is_dir())
SPECS = [s for s in load_checks(site_dir=None, entry_points=False)[0] if s.id.startswith("probe-")]


def fired(store):
    out = []
    for spec in SPECS:
        outcome = run_check(spec, store)
        assert not outcome.crash, outcome.crash
        out.extend(outcome.findings)
    return out


def test_every_cause_has_a_healthy_and_a_pathological_fixture():
    expected = {d.name: json.loads((d / "expected.json").read_text())["checks"] for d in PROBE_DIRS}
    assert expected["probe-ollama-healthy"] == []
    covered = {c for checks in expected.values() for c in checks}
    assert covered == {s.id for s in SPECS}


@pytest.mark.parametrize("directory", PROBE_DIRS, ids=lambda p: p.name)
def test_probe_checks_on_recorded_evidence(directory):
    expected = json.loads((directory / "expected.json").read_text())["checks"]
    store = FactStore(Context(host=EvidenceHost(directory)))
    findings = fired(store)
    assert sorted(f.check for f in findings) == sorted(expected)
    for f in findings:
        assert f.evidence and all(e.source.startswith("probe http://127.0.0.1:") for e in f.evidence)
        assert any(ch.isdigit() for e in f.evidence for ch in e.text)  # the measured figures
        assert f.fix.summary
    assert summary_of("probe", store.get("probe"))  # figures for the report header


def test_no_probe_json_is_quiet(tmp_path):
    with pytest.raises(FactUnavailable) as e:
        FactStore(Context(host=EvidenceHost(tmp_path))).get("probe")
    assert e.value.quiet


def test_garbage_probe_json_is_a_clear_reason(tmp_path):
    (tmp_path / "probe.json").write_text('{"samples": "nope"')
    with pytest.raises(FactUnavailable) as e:
        FactStore(Context(host=EvidenceHost(tmp_path))).get("probe")
    assert not e.value.quiet and "unparseable probe.json" in e.value.reason
    (tmp_path / "probe.json").write_text('[{"no": "url"}]')
    with pytest.raises(FactUnavailable, match="unparseable probe.json"):
        FactStore(Context(host=EvidenceHost(tmp_path))).get("probe")


def test_live_probe_only_when_asked():
    with pytest.raises(FactUnavailable) as e:
        FactStore(Context(host=LocalHost()), preset={"engines": ()}).get("probe")
    assert e.value.quiet


class _Config:
    def get(self, name):
        return {"OLLAMA_NUM_PARALLEL": "1"}.get(name)


def test_live_probe_runs_against_the_engines_found():
    with ollama_replay(slots=1) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        store = FactStore(Context(host=LocalHost(), options={"probe": True, "probe_deadline": 30}),
                          preset={"engines": (EngineInstance("ollama", port=port, found_by="port"),),
                                  "ollama_config": _Config()})
        runs = store.get("probe")
    (r,) = runs.results
    assert r.engine == "ollama" and r.slots == 1 and r.slots_source == "OLLAMA_NUM_PARALLEL"
    findings = fired(store)
    assert [f.check for f in findings] == ["probe-queueing"]
    assert "1 slot" in findings[0].title


def test_live_probe_unreachable_engine_is_unavailable():
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    store = FactStore(Context(host=LocalHost(), options={"probe": True}),
                      preset={"engines": (EngineInstance("llamacpp", port=port),)})
    with pytest.raises(FactUnavailable, match="probe failed: llamacpp on port"):
        store.get("probe")

