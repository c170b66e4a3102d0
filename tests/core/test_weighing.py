"""Weighing evidence: the server's own record outweighs a line a user wrote.

A shell `export` of a value the running server has (its `server config` log line, taken
from tests/fixtures/evidence/ollama-healthy/journal.log, a real Ollama 0.5 start-up) is not a
setting "not applied"; the same export of another value still is.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks

HEALTHY = Path(__file__).resolve().parent.parent / "fixtures" / "evidence" / "ollama-healthy"


def findings(tmp_path, export: str):
    shutil.copy(HEALTHY / "journal.log", tmp_path / "journal.log")
    (tmp_path / "shell_export.txt").write_text(export + "\n")
    specs, _ = load_checks(site_dir=None, entry_points=False)
    res = diagnose_target(EvidenceHost(tmp_path), DiagnoseOptions(sample_seconds=0), specs)
    return [(f.check, f.severity.value) for f in res.report.findings if f.check == "config-set-outside-server"]


def test_an_export_the_server_runs_with_is_applied(tmp_path):
    assert findings(tmp_path, "export OLLAMA_MAX_LOADED_MODELS=5") == [("config-set-outside-server", "info")]


def test_an_export_of_another_value_is_not_applied(tmp_path):
    assert findings(tmp_path, "export OLLAMA_MAX_LOADED_MODELS=2") == [("config-set-outside-server", "warning")]
