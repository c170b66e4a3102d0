"""llama-server facts and checks on evidence directories built in the test (command line as typed)."""
from __future__ import annotations

import json

import pytest

from llmdoctor.plugins import load_checks, run_check
from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance
from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost


@pytest.fixture(scope="module")
def specs():
    specs, _ = load_checks(site_dir=None, entry_points=False)
    return {s.id: s for s in specs}


def evidence(tmp_path, **files) -> FactStore:
    (tmp_path / "meta.json").write_text(json.dumps({"engine": "llamacpp"}))
    for name, text in files.items():
        (tmp_path / name.replace("_txt", ".txt").replace("_json", ".json")).write_text(text)
    return FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(LLAMACPP, found_by="evidence"),)})


def test_context_split_from_the_command_line(tmp_path, specs):
    s = evidence(tmp_path, cmdline_txt="llama-server -m /models/m.gguf -c 8192 -np 4 --port 8080\n")
    assert s.get("llamacpp_cmdline").per_slot_ctx == 2048
    f = run_check(specs["llamacpp-slot-context"], s).findings
    assert [x.cause.value for x in f] == ["KV_CAPACITY"] and "2,048" in f[0].title


def test_unified_pool_is_not_split(tmp_path, specs):
    s = evidence(tmp_path, cmdline_txt="llama-server -m /models/m.gguf -c 8192 -np 4 -kvu\n")
    assert run_check(specs["llamacpp-slot-context"], s).findings == ()


def test_single_slot_alone_is_info(tmp_path, specs):
    s = evidence(tmp_path, props_json=json.dumps({"total_slots": 1, "default_generation_settings": {"n_ctx": 4096}}))
    f = run_check(specs["llamacpp-queueing"], s).findings
    assert [x.severity.value for x in f] == ["info"]


def test_old_metrics_prefix_deferred(tmp_path, specs):
    s = evidence(tmp_path, **{"metrics.prom": "llamacpp_requests_processing 2\nllamacpp_requests_deferred 5\n"})
    f = run_check(specs["llamacpp-queueing"], s).findings
    assert f and "llamacpp_requests_deferred 5" in f[0].evidence[0].text
