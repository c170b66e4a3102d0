"""Engine discovery from process lists, unit lists and evidence directories."""
from __future__ import annotations

import json
from pathlib import Path

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, VLLM
from llmdoctor.facts import Context, FactStore
from llmdoctor.facts.engines import parse_process_list, parse_unit_list, sniff_evidence
from llmdoctor.hosts.evidence import EvidenceHost


def test_process_list():
    ps = (
        "    1 /sbin/init\n"
        " 1617 /usr/local/bin/ollama serve\n"
        # samples.md 2d: Ollama's runner child is part of Ollama, not an engine of its own
        " 1700 /usr/local/bin/ollama runner --ollama-engine --model /usr/share/ollama/.ollama/models/blobs/sha256-e8ad --ctx-size 2048 --parallel 1 --port 39041\n"
        " 1800 /usr/bin/llama-server --model /usr/share/ollama/.ollama/models/blobs/sha256-ab -np 1 --port 4000\n"
        " 2000 /opt/venv/bin/python3 /opt/venv/bin/vllm serve Qwen/Qwen3-8B --port 8001\n"
        " 2100 ./llama-server -m model.gguf -c 8192 -np 4\n"
        " 2200 vim notes-about-ollama.txt\n"
    )
    found = parse_process_list(ps)
    assert [(pid, kind) for pid, kind, _ in found] == [(1617, OLLAMA), (2000, VLLM), (2100, LLAMACPP)]


def test_unit_list():
    text = "ollama.service loaded active running Ollama Service\nssh.service loaded active running OpenBSD\n● vllm-qwen.service loaded failed failed vLLM\n"
    assert parse_unit_list(text) == ["ollama.service", "ssh.service", "vllm-qwen.service"]


def test_evidence_meta_and_sniffing(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"engine": "vllm", "version": "0.10.0"}))
    [e] = sniff_evidence(EvidenceHost(tmp_path))
    assert (e.kind, e.version) == (VLLM, "0.10.0")

    d = tmp_path / "sniff"
    d.mkdir()
    (d / "journal.log").write_text(
        'Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.187+01:00 level=INFO source=sched.go:481 msg="loaded runners" count=1\n'
    )
    (d / "unit.service").write_text("[Service]\nExecStart=/usr/local/bin/ollama serve\n")
    [e] = sniff_evidence(EvidenceHost(d))
    assert (e.kind, e.unit) == (OLLAMA, "ollama.service")


def test_no_engine_in_empty_evidence(tmp_path):
    store = FactStore(Context(EvidenceHost(tmp_path)))
    assert store.optional("engines") is None
    assert "no LLM engine" in store.missing["engines"].reason


def test_engine_implied_by_log_file(tmp_path):
    from llmdoctor.facts.engines import engines_from_log_files
    from llmdoctor.hosts.local import LocalHost

    log = tmp_path / "server-2026.log"
    # samples.md §5 (vllm-project/vllm#18115), a V1 stats line
    log.write_text("INFO 07-28 06:40:59 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.2%, Prefix cache hit rate: 0.0%\n")
    ctx = Context(LocalHost(), options={"log_files": [str(log), str(tmp_path / "vllm-missing.log")]})
    assert [e.kind for e in engines_from_log_files(ctx)] == [VLLM]


def test_hand_named_log_files_are_read(tmp_path):
    """A hand-built directory with `docker-logs.txt` instead of vllm.log is still read:
    the engine is sniffed from its lines (samples.md §3, vllm#5578 and GAIR-NLP/LIMO#29)."""
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target

    src = Path(__file__).resolve().parent.parent / "fixtures" / "evidence" / "vllm-preempt-v0" / "vllm.log"
    (tmp_path / "docker-logs.txt").write_bytes(src.read_bytes())
    (tmp_path / "notes.txt").write_text("It gets slow when the team uses it.\n")
    host = EvidenceHost(tmp_path)
    assert host.log_files() == ["docker-logs.txt", "notes.txt"]
    report = diagnose_target(host, DiagnoseOptions(sample_seconds=0)).report
    assert report.engine == VLLM
    assert "vllm-preemption" in {f.check for f in report.findings}
