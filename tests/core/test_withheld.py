"""The report says how many values the keep-list redaction withheld (issue 29, item 1): a line
in text, Markdown and HTML, a count in JSON (the schema documents it), meta.json's count in a
`collect` bundle and its summary. Distinct values are counted: one secret quoted in an evidence
line and again in a fix is one value withheld."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Report
from llmdoctor.redact import redact_text
from llmdoctor.redact_struct import Withheld
from llmdoctor.render import render_json, render_markdown, render_text
from tests.support.schema import report_doc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
# values under names that are no setting the diagnosis reads, in a listing and on a command line
UNREAD = ('OLLAMA_KEEP_ALIVE=30m SITE_ACCOUNT=q7siteAcct991 CUSTOMER_REF="q7 two words"\n'
          "ollama serve --site-label q7siteLabel55\n")


def test_distinct_values_are_counted_once():
    with Withheld() as w:
        redact_text("SITE_ACCOUNT=q7siteAcct991 OLLAMA_NUM_PARALLEL=4")
        redact_text("again: SITE_ACCOUNT=q7siteAcct991 and --site-label q7siteLabel55")
        redact_text("NOTE_ID='q7siteAcct991'")  # the same value, quoted, under another name
    assert w.count == 2


def test_settings_and_plain_values_are_not_withheld():
    with Withheld() as w:
        out = redact_text("OLLAMA_NUM_PARALLEL=4 OLLAMA_MODELS=/srv/models CUDA_VISIBLE_DEVICES=0,1 --ctx-size 8192")
    assert w.count == 0 and "<redacted>" not in out


def test_secret_names_count_too():
    with Withheld() as w:
        redact_text("HF_TOKEN=q7hfTokenNotShaped --api-key q7apiKeyValue")
    assert w.count == 2


def test_tallies_nest_and_stay_in_their_thread():
    with Withheld() as outer:
        redact_text("A_B=q7outerOnly1")
        with Withheld() as inner:
            redact_text("C_D=q7innerOnly2")
        other = Withheld()

        def elsewhere():
            with other:
                redact_text("E_F=q7otherThread3")

        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
    assert (inner.count, outer.count, other.count) == (1, 2, 1)


def _report(directory: Path):
    result = diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0))
    return Report("t", (result.report,))


def test_report_says_how_many_values_were_withheld(tmp_path):
    d = tmp_path / "ev"
    shutil.copytree(FIXTURES / "ollama-one-slot", d)
    (d / "notes.txt").write_text(UNREAD)
    (d / "cmdline.txt").write_text("/usr/local/bin/ollama serve --site-label q7siteLabel55\n")
    report = _report(d)
    n = report.targets[0].withheld
    assert n >= 1
    doc = report_doc(render_json(report))  # (validated against the schema)
    assert doc["targets"][0]["withheld"] == n
    line = f"Withheld: {n} value{'s' if n != 1 else ''} under names the diagnosis does not read"
    assert line in render_text(report, color=False)
    assert line in render_markdown(report)
    from llmdoctor.render.html import render_html

    assert f'<p class="withheld">{line}' in render_html(report)
    for text in (render_text(report, color=False), render_markdown(report), render_json(report)):
        assert "q7siteAcct991" not in text and "q7siteLabel55" not in text


def test_nothing_withheld_says_nothing():
    report = _report(FIXTURES / "ollama-healthy")
    assert report.targets[0].withheld == 0
    assert "Withheld" not in render_text(report, color=False) and "Withheld" not in render_markdown(report)
    assert report_doc(render_json(report))["targets"][0]["withheld"] == 0
