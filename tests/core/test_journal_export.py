"""A journal export (`journalctl -u ollama > journal.log`: journald's prefix on every line, nothing
else pasted) is read as it lies, not copied through paste repair (4 MB/s: 15 s for a 60 MB
journal, issue 28): every scanner reads journald's lines as they are. The diagnosis is the same
as from the repaired copy, on every such log the fixtures and real cases hold."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts import evidence
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.pasted import decode_pasted, repair_log
from llmdoctor.plugins import load_checks
from llmdoctor.model import Report
from llmdoctor.render import render_json

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def _journal_exports() -> list[Path]:
    found = []
    for p in sorted(FIX.rglob("*")):
        if p.is_file() and p.suffix in (".log", ".txt") and p.stat().st_size < 8 * 2**20:
            text = decode_pasted(p.read_bytes()[:evidence.SAMPLE])
            if evidence._journal_export(text, repair_log(text)):
                found.append(p)
    return found


EXPORTS = _journal_exports()


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def test_the_fixtures_hold_journal_exports():
    assert len(EXPORTS) >= 20 and any("realcases" in str(p) for p in EXPORTS)


def test_a_prefix_the_scanners_do_not_strip_is_repaired():
    """A localized journal (`10月 14 12:47:30 gpu ollama[24746]: ...`, a real case) or a line that
    repair joins to the one before: the copy is repaired as before. A line repair leaves as it is
    is read alike either way."""
    zh = "10\u6708 14 12:47:30 gpu ollama[24746]: time=2024-10-14T12:47:30.995+08:00 level=INFO msg=x\n" * 3
    plain = "Oct 14 12:47:30 gpu ollama[24746]: time=2024-10-14T12:47:30.995+08:00 level=INFO msg=x\n" * 3
    assert not evidence._journal_export(zh, repair_log(zh))
    assert evidence._journal_export(plain, repair_log(plain))
    assert not evidence._journal_export(plain + "ollama ps\n", repair_log(plain + "ollama ps\n"))
    other = plain + "time=2024-10-14T12:47:31 level=INFO msg=y\n"
    assert evidence._journal_export(other, repair_log(other))


@pytest.mark.parametrize("log", EXPORTS, ids=[f"{p.parent.name[:24]}/{p.name[:24]}" for p in EXPORTS])
def test_a_journal_export_is_read_as_it_lies_with_the_same_diagnosis(log, tmp_path, monkeypatch, specs):
    if (log.parent / "meta.json").exists() or log.parent.parent.name.startswith(("evidence", "realcases")):
        ev = log.parent  # an evidence directory: diagnosed whole
    else:
        ev = tmp_path / "ev"
        ev.mkdir()
        shutil.copy(log, ev / "journal.log")

    journal_export = evidence._journal_export

    def diagnosed(as_they_are: bool):
        monkeypatch.setattr(evidence, "_journal_export", journal_export if as_they_are else lambda *a: False)
        host = EvidenceHost(ev)
        report = diagnose_target(host, DiagnoseOptions(sample_seconds=0), specs).report
        return render_json(Report("evidence", (report,))), host

    read, host = diagnosed(True)
    name = log.name if ev == log.parent else "journal.log"
    assert host.path(name) == ev / name  # read where it lies
    assert read == diagnosed(False)[0]
