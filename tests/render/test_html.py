"""`--format html`: one self-contained page with the report, the fixes and the probe's
charts as inline SVG (render/html.py, render/charts.py). What a browser makes of it is
tests/render/test_html_chromium.py."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.render.probe_fixtures import EVIDENCE

pytest.importorskip("matplotlib", reason="matplotlib is not installed (the html extra)")

ROOT = Path(__file__).resolve().parents[2]
ONE_SLOT = EVIDENCE / "probe-llamacpp-one-slot"


def llmdoctor(*args: str, prelude: str = "") -> subprocess.CompletedProcess:
    code = f"import sys; {prelude or 'pass'}; sys.argv = ['llmdoctor', *{list(args)!r}]; from llmdoctor.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": "1",
                               "TMPDIR": tempfile.gettempdir()})


def external_references(page: str) -> list[str]:
    """Anything the page would fetch: src/href that is not a fragment, @import, url(), <script>, <link>."""
    refs = [m for m in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", page) if not m.startswith("#")]
    refs += re.findall(r"@import|url\(\s*[^#)][^)]*\)|<script\b|<link\b|<iframe\b|<object\b", page)
    return refs


@pytest.fixture(scope="module")
def page() -> str:
    p = llmdoctor("diagnose", "--evidence", str(ONE_SLOT), "--format", "html")
    assert p.returncode == 1, p.stderr  # the one-slot warning
    return p.stdout


def test_the_page_has_report_fixes_and_charts(page):
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Requests are served one at a time" in page and "QUEUEING" in page
    assert "<strong>Fix:</strong> Start llama-server with 4 slots" in page
    # the finding's setting is in the merged What to change, printed once, as the text report does
    assert '<p class="merged">Part of <a href="#change-llama-server-command-line">' in page
    assert '<div class="change" id="change-llama-server-command-line">' in page
    assert "$ llama-server -m MODEL -np 4 -c 32768" in page
    assert page.count("<svg") == 2
    assert re.search(r'<figure class="chart timeline" id="timeline-1"><svg role="img" aria-label="probe timeline"', page)
    assert re.search(r'<figure class="chart latency" id="latency-1"><svg role="img" aria-label="probe latency"', page)
    for rid in ("warmup", "single", "long", "pair-1", "pair-2"):
        assert f"<td>{rid}</td>" in page


def test_the_page_stands_alone(page):
    assert external_references(page) == []
    assert "default-src 'none'" in page  # and the browser is told to refuse anything else


def test_host_text_is_escaped():
    from llmdoctor.model import Cause, Evidence, Finding, Fix, Report, Severity, TargetReport
    from llmdoctor.render import render

    evil = "<script>alert(1)</script>"
    f = Finding(Cause.QUEUEING, Severity.WARNING, f"title {evil}", (Evidence("journal.log", evil),),
                Fix(f"fix {evil}", commands=(evil,), config=evil), check="x")
    html = render(Report("0", (TargetReport("h<b>", "ollama", findings=(f,), errors=(evil,)),)), "html")
    assert "<script" not in html and "&lt;script&gt;" in html and "h&lt;b&gt;" in html


def test_without_matplotlib_one_line_and_exit_3():
    p = llmdoctor("diagnose", "--evidence", str(ONE_SLOT), "--format", "html", prelude="sys.modules['matplotlib'] = None")
    assert p.returncode == 3
    assert p.stdout == ""
    assert p.stderr == "llmdoctor: --format html needs matplotlib: pip install 'llmdoctor[html]'\n"


def test_probe_command_offers_html():
    p = llmdoctor("probe", "--help")
    assert "html" in p.stdout


def test_collects_bundle_gets_report_html(tmp_path):
    from llmdoctor.cli import _bundle_page

    bundle = tmp_path / "bundle"
    shutil.copytree(ONE_SLOT, bundle)
    before = llmdoctor("diagnose", "--evidence", str(bundle), "--format", "json")
    assert _bundle_page(bundle) == "report.html"
    page = (bundle / "report.html").read_text()
    assert page.count("<svg") == 2 and external_references(page) == []
    after = llmdoctor("diagnose", "--evidence", str(bundle), "--format", "json")
    assert json.loads(after.stdout) == json.loads(before.stdout)  # the page is not read as evidence
