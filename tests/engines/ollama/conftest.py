"""Shared helpers for the Ollama tests: fixture paths and a fact store over an evidence dir."""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]
SAMPLES = TESTS / "fixtures" / "ollama"
EVIDENCE = TESTS / "fixtures" / "evidence"


@pytest.fixture
def sample():
    def read(name: str) -> str:
        return (SAMPLES / name).read_text()
    return read


@pytest.fixture
def fire(tmp_path):
    """Run one check by id with preset facts (an empty evidence dir under them): its findings."""
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.knowledge.engines import OLLAMA, EngineInstance
    from llmdoctor.plugins import load_checks, run_check

    specs = {s.id: s for s in load_checks(site_dir=None, entry_points=False)[0]}

    def run(check_id: str, **facts):
        facts.setdefault("engines", (EngineInstance(OLLAMA, port=11434, found_by="test"),))
        outcome = run_check(specs[check_id], FactStore(Context(EvidenceHost(tmp_path)), preset=facts))
        assert not outcome.crash, outcome.crash
        return outcome.findings
    return run
