"""Every check has a pair of evidence fixtures (tests/fixtures/check_pairs.json, keyed by the
check's id): a pathological one it must fire on, and a healthy one on which it must run -
its engine found, its facts read - and stay silent. A check without a pair, or with a pair
that no longer shows it working both ways, fails here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks, run_check

EVIDENCE = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
PAIRS = json.loads((EVIDENCE.parent / "check_pairs.json").read_text())
SPECS = {s.id: s for s in load_checks(site_dir=None, entry_points=False)[0]}


def outcome(check_id: str, fixture: str):
    store = FactStore(Context(host=EvidenceHost(EVIDENCE / fixture), sample_seconds=0))
    return run_check(SPECS[check_id], store)


def test_every_check_has_a_pair():
    assert sorted(PAIRS) == sorted(SPECS)


@pytest.mark.parametrize("check_id", sorted(PAIRS))
def test_fires_on_its_pathological_fixture(check_id):
    got = outcome(check_id, PAIRS[check_id]["pathological"])
    assert not got.crash and got.findings, got.skipped_for


@pytest.mark.parametrize("check_id", sorted(PAIRS))
def test_runs_and_stays_silent_on_its_healthy_fixture(check_id):
    got = outcome(check_id, PAIRS[check_id]["healthy"])
    assert not got.skipped_for, f"did not run: {got.skipped_for}"
    assert not got.crash and not got.findings, [f.title for f in got.findings]
