"""The real cases, their logs re-pasted the other ways real reports arrive (a journald prefix
in another locale, a compose column, kubectl's prefix and stamps, docker logs -t, Docker's
json-file, indented and unindented wraps at 60/80/120 columns cut at the column or at a word,
a fenced paste with its prompt, cmd/PowerShell/sh prompts, Markdown quotes, HTML entities,
line-number gutters, two fragments, CRLF with zsh's %): each case must score as it does pasted
as it was (expected_state.json). `python -m tests.test_realcases_repasted [FORM ...]` prints
the pass rate of each form."""
from __future__ import annotations

import json

import pytest

from llmdoctor.plugins import load_checks
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Report
from llmdoctor.knowledge.pasted import normalize_pasted
from llmdoctor.render import render_json
from tests.support.realcases import CORPORA, cases, meta, score, stage
from tests.support.repaste import VARIANTS
from tests.support.schema import report_doc

STATE = {k: v for root in CORPORA for k, v in json.loads((root / "expected_state.json").read_text()).items()}
SCORED = [c for root in CORPORA for c in cases(root) if meta(c).get("scored") is not False]
LOGS = ("journal.log", "server.log", "vllm.log")
IDENT = {"journal.log": "ollama", "server.log": "llama-server", "vllm.log": "vllm"}  # each engine's own journal


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


@pytest.mark.parametrize("how", sorted(VARIANTS))
def test_repasted_cases_score_the_same(how, specs, tmp_path):
    wrong = _wrong(how, specs, tmp_path)[1]
    assert not wrong, "\n".join(wrong)


def _wrong(how, specs, tmp_path) -> tuple[int, list[str]]:
    """(cases passed, lines of the cases scoring otherwise than expected) with the logs pasted `how`."""
    wrong, passed = [], 0
    for case in SCORED:
        d = tmp_path / case.name
        d.mkdir()
        stage(case, d)
        m = meta(case)
        for f in d.iterdir():
            if f.name in LOGS:
                text = normalize_pasted(f.read_text())  # the log's own text, without the debris of its first paste
                f.write_text(VARIANTS[how](text, IDENT[f.name]) if how.startswith("journald") else VARIANTS[how](text))
        report = diagnose_target(EvidenceHost(d), DiagnoseOptions(sample_seconds=0), specs).report
        s = score(m, report_doc(render_json(Report("t", (report,)))))
        passed += s.passed
        if ("pass" if s.passed else "fail") != STATE[m["id"]]["state"]:
            wrong.append(s.line())
    return passed, wrong


if __name__ == "__main__":
    import sys
    import tempfile
    from pathlib import Path

    all_specs = load_checks(site_dir=None, entry_points=False)[0]
    for how in sys.argv[1:] or sorted(VARIANTS):
        with tempfile.TemporaryDirectory() as tmp:
            passed, wrong = _wrong(how, all_specs, Path(tmp))
        print(f"{how:16s} {passed}/{len(SCORED)} pass, {len(SCORED) - len(wrong)}/{len(SCORED)} as expected")
