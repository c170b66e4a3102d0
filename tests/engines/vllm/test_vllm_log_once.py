"""An unchanged evidence log is scanned once per process (the exporter diagnoses it every cycle);
a changed one, a live window and a resumed read are scanned every time."""
from __future__ import annotations

import shutil
from pathlib import Path

from llmdoctor.facts import log_memo
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.logs import FileSource, ResumeState
from llmdoctor.knowledge.vllm import log as vllm_log

EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence" / "vllm-preempt-v1"


def diagnose(path):
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.plugins import load_checks

    return diagnose_target(EvidenceHost(path), DiagnoseOptions(sample_seconds=0), load_checks()[0])


def counting(monkeypatch) -> list:
    made = []
    real = vllm_log.VllmLogScanner

    class Counting(real):
        def __init__(self, *a, **kw):
            made.append(1)
            super().__init__(*a, **kw)

    monkeypatch.setattr(vllm_log, "VllmLogScanner", Counting)
    return made


def test_an_unchanged_evidence_log_is_scanned_once(tmp_path, monkeypatch):
    shutil.copytree(EVIDENCE, tmp_path / "ev")
    made = counting(monkeypatch)
    first = diagnose(tmp_path / "ev")
    scans = len(made)
    assert scans >= 1
    second = diagnose(tmp_path / "ev")
    assert len(made) == scans  # no new scan
    assert [f.check for f in second.report.findings] == [f.check for f in first.report.findings]
    log = next(p for p in (tmp_path / "ev").iterdir() if p.suffix == ".log")
    with open(log, "a") as f:
        f.write("INFO 01-01 00:00:00 an appended line\n")
    diagnose(tmp_path / "ev")
    assert len(made) > scans  # changed: scanned again


def test_live_windows_and_resumed_reads_have_no_snapshot(tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("x\n")
    assert FileSource(log).snapshot_key() is None  # the window moves with the clock
    assert FileSource(log, state=ResumeState(tmp_path / "s.json"), since_seconds=None).snapshot_key() is None
    assert FileSource(log, since_seconds=None).snapshot_key() is not None
    calls = []
    for _ in range(2):
        log_memo.scan_once(FileSource(log), "t", lambda s: calls.append(1))
    assert len(calls) == 2
