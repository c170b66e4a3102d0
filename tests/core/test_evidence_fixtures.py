"""End to end: every evidence directory under tests/fixtures/evidence/ is diagnosed
with ALL checks, and exactly the check ids its expected.json names must fire.

A healthy directory expects []. This is what keeps checks from tripping over each
other's fixtures.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.plugins import load_checks
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.render import render_json, render_markdown, render_text
from llmdoctor.model import Report
from tests.support.schema import report_doc

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in ROOT.glob("*/expected.json"))


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors, errors
    return specs


@pytest.mark.parametrize("directory", DIRS, ids=[d.name for d in DIRS])
def test_fixture_yields_exactly_the_expected_checks(directory, specs):
    expected = json.loads((directory / "expected.json").read_text())
    result = diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs)
    fired = sorted({f.check for f in result.report.findings})
    assert fired == sorted(set(expected["checks"])), render_text(Report("t", (result.report,)), color=False)
    assert not [e for e in result.report.errors if e.startswith("check crashed")], result.report.errors
    for f in result.report.findings:
        assert f.evidence and f.fix.summary, f
    # every renderer copes with every fixture
    r = Report("t", (result.report,))
    doc = report_doc(render_json(r))  # the published schema (llmdoctor/schema/report.schema.json)
    assert sum("remedy" in f for f in doc["targets"][0]["findings"]) == sum(
        f.remedy is not None for f in result.report.findings)  # each Remedy as its `remedy` object
    render_markdown(r)
