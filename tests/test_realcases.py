"""The real-case corpus, diagnosed as a user would: each case's pass/fail state is pinned
(tests/fixtures/realcases/expected_state.json), so a regression shows by the case's name
and an improvement asks for the file to be updated. bench/realcases.py prints the rates.
"""
from __future__ import annotations

import json

import pytest

from llmdoctor.plugins import load_checks
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Report
from llmdoctor.render import render_json
from tests.support.realcases import CORPORA, cases, meta, score, stage
from tests.support.schema import report_doc

STATE = {k: v for root in CORPORA for k, v in json.loads((root / "expected_state.json").read_text()).items()}
SCORED = [c for root in CORPORA for c in cases(root) if meta(c).get("scored") is not False]


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def test_every_scored_case_has_a_pinned_state():
    assert sorted(STATE) == sorted(meta(c)["id"] for c in SCORED)


@pytest.mark.parametrize("case", SCORED, ids=[c.name[:7] for c in SCORED])
def test_case_state(case, specs, tmp_path):
    m = meta(case)
    stage(case, tmp_path)
    result = diagnose_target(EvidenceHost(tmp_path), DiagnoseOptions(sample_seconds=0), specs)
    assert not [e for e in result.report.errors if e.startswith("check crashed")], result.report.errors
    s = score(m, report_doc(render_json(Report("t", (result.report,)))))
    want = STATE[m["id"]]["state"]
    assert ("pass" if s.passed else "fail") == want, s.line()
