"""Fact "log_sources": journal per engine unit, --log files, evidence log files."""
from __future__ import annotations

import json
import time

import pytest

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, VLLM, EngineInstance
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.facts.logs import log_sources, sniff_engine
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost
from llmdoctor.hosts.logs import EvidenceFileSource, FileSource, JournalSource
from llmdoctor.parsing import strip_journal_prefix

from . import journalfile



@pytest.fixture(autouse=True)
def no_probe_runs(tmp_path, monkeypatch):
    """Live sources are wrapped when the probe ran against their engine (its lines are left
    out): earlier tests' probe runs must not change the sources these tests look at."""
    monkeypatch.setenv("LLMDOCTOR_STATE_HOME", str(tmp_path / "probe-state"))

def test_sniff_engine():
    assert sniff_engine('Aug 08 23:02:37 j-360 ollama[1617]: time=... msg="server config" env="map[]"') == OLLAMA
    assert sniff_engine("INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Avg prompt throughput") == VLLM
    assert sniff_engine("main: server is listening on http://127.0.0.1:8080") == LLAMACPP
    assert sniff_engine("nothing to see") is None


def test_evidence_log_files(tmp_path):
    (tmp_path / "vllm.log").write_text("INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Running: 4 reqs\n")
    (tmp_path / "server.log").write_text('time=2026-08-01T07:02:33.347Z level=INFO source=routes.go:1 msg="Listening on 127.0.0.1:11434 (version 0.11.4)"\n')
    (tmp_path / "meta.json").write_text(json.dumps({"time": "2026-08-01T08:00:00Z"}))
    host = EvidenceHost(tmp_path)
    sources = log_sources(Context(host=host), engines=(EngineInstance(VLLM),))
    by_name = {s.name: s for s in sources}
    assert set(by_name) == {"server.log", "vllm.log"}
    assert by_name["vllm.log"].engine == VLLM
    assert by_name["server.log"].engine == VLLM  # the one engine the evidence speaks of
    assert all(isinstance(s, EvidenceFileSource) for s in sources)
    # the window ends at the collection time in meta.json, not now
    assert list(by_name["server.log"].lines())[0].endswith('(version 0.11.4)"')
    assert sources.summary() == [("Logs", "server.log, vllm.log")]


def test_evidence_old_lines_outside_window_of_collection_time(tmp_path):
    (tmp_path / "server.log").write_text(
        'time=2026-07-01T07:00:00.000Z level=INFO msg="a month before"\n'
        'time=2026-08-01T07:30:00.000Z level=INFO msg="half an hour before"\n'
    )
    (tmp_path / "meta.json").write_text(json.dumps({"time": "2026-08-01T08:00:00Z", "engine": "ollama"}))
    (src,) = FactStore(Context(host=EvidenceHost(tmp_path))).get("log_sources")
    assert src.engine == OLLAMA  # meta.json's engine, through the engines fact
    assert [l for l in src.lines()] == ['time=2026-08-01T07:30:00.000Z level=INFO msg="half an hour before"']


def test_evidence_without_logs_is_quiet(tmp_path):
    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(FactUnavailable) as e:
        log_sources(Context(host=EvidenceHost(tmp_path)))
    assert e.value.quiet


def test_log_files_option_and_state_dir(tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Running: 4 reqs\n")
    opts = {"log_files": [str(log), str(tmp_path / "missing.log")], "state_dir": str(tmp_path / "state")}
    sources = log_sources(Context(host=LocalHost(), since_seconds=0, options=opts), engines=())
    (src,) = sources
    assert isinstance(src, FileSource) and src.engine == VLLM
    assert len(list(src.lines())) == 1
    assert (tmp_path / "state" / "log-state.json").is_file()
    assert list(log_sources(Context(host=LocalHost(), since_seconds=0, options=opts))[0].lines()) == []
    assert sources.problems == (f"{tmp_path / 'missing.log'}: no such file",)


def test_no_unit_no_files_is_quiet():
    with pytest.raises(FactUnavailable) as e:
        log_sources(Context(host=LocalHost()), engines=(EngineInstance(OLLAMA, pid=42, found_by="process"),))
    assert e.value.quiet


@pytest.mark.real
def test_journal_source_per_engine_unit_through_the_fact_store(tmp_path):
    reason = journalfile.skip_reason()
    if reason:
        pytest.skip(reason)
    directory = journalfile.append_entries(tmp_path / "j", [
        ("ollama.service", "llama runner started in 6.43 seconds", time.time() - 10),
        ("vllm.service", "INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Running: 4 reqs", time.time() - 5),
    ])
    engines = (EngineInstance(OLLAMA, unit="ollama.service"), EngineInstance(VLLM, unit="vllm.service"), EngineInstance(LLAMACPP, pid=7))
    ctx = Context(host=LocalHost(), options={"journal_directory": str(directory)})
    sources = FactStore(ctx, preset={"engines": engines}).get("log_sources")
    assert [(s.name, s.engine) for s in sources] == [("journal:ollama.service", OLLAMA), ("journal:vllm.service", VLLM)]
    assert all(isinstance(s, JournalSource) for s in sources)
    assert [strip_journal_prefix(l) for l in sources[0].lines()] == ["llama runner started in 6.43 seconds"]
