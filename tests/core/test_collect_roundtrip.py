"""`llmdoctor collect` then `diagnose --evidence` finds what a diagnosis of the host finds: a live
host whose commands, reads and requests are answered by an evidence fixture (its logs as the
unit's journal) is collected through hosts/bundle.py, and the bundle fires the fixture's checks.
(The fixtures chosen are those whose evidence a live host would give: units, endpoints, logs.)"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.app.collect import collect_evidence
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.facts.engines import DEFAULT_UNITS, sniff_evidence
from llmdoctor.hosts.base import CommandResult
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.engines import EngineInstance
from llmdoctor.plugins import load_checks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
CASES = ("config-no-reload", "config-dropin-conflict", "container-oom-killed", "llamacpp-slot-split",
         "llamacpp-queueing", "ollama-cpu-spill", "ollama-ps-reloaded", "ollama-deep-queue",
         "sglang-queueing-metrics", "swap-active", "vllm-max-seq-len")


class LiveFromEvidence(EvidenceHost):
    """A live host (it is measured, not recalled, and keeps no recorded files) whose answers
    come from an evidence fixture; `journalctl --unit` gives the fixture's logs."""

    kind, recorded, partial = "live", False, False

    def kept(self, what):
        return ()

    def observe(self, live, recall):
        return live()

    def run(self, argv, timeout=10):
        if argv[0] == "journalctl" and any(a.startswith("--unit") for a in argv):
            return CommandResult(tuple(argv), 0, "".join(self._text(n, 64 << 20) for n in self.log_files()))
        return super().run(argv, timeout)


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def fired(directory: Path, specs) -> list[str]:
    report = diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs).report
    return sorted({f.check for f in report.findings})


@pytest.mark.parametrize("name", CASES)
def test_collect_then_diagnose_finds_the_same(tmp_path, specs, name):
    d = FIXTURES / name
    engines = tuple(EngineInstance(e.kind, unit=e.unit or DEFAULT_UNITS[e.kind], port=e.port, version=e.version)
                    for e in sniff_evidence(EvidenceHost(d)))
    out = tmp_path / "bundle"
    written, _notes = collect_evidence(LiveFromEvidence(d), out, units=tuple(e.unit for e in engines), engines=engines)
    assert "meta.json" in written and json.loads((out / "meta.json").read_text())["withheld"] >= 0
    expected = fired(d, specs)
    assert expected and fired(out, specs) == expected
