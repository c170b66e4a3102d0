"""Text layout at the real width: every fixture's report at 60, 80 and 120 columns, with no
line over the width, every continuation indented under its first line, no word cut, and the
same shape with and without colour; and the terminal case in a real tmux pane."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Report
from llmdoctor.plugins import load_checks
from llmdoctor.render.layout import output_width, paint, wrap, wrap_continued
from llmdoctor.render.report import VERBATIM, layout, render_text

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in ROOT.glob("*/expected.json"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def reports():
    specs, _ = load_checks(site_dir=None, entry_points=False)
    return {d.name: Report("t", (diagnose_target(EvidenceHost(d), DiagnoseOptions(sample_seconds=0), specs).report,))
            for d in DIRS}


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


@pytest.mark.parametrize("width", [60, 80, 120])
def test_every_fixture_fits_the_width_with_hanging_continuations(reports, width):
    for name, report in reports.items():
        for logical in layout(report, None):
            whole = paint(logical, False)
            if len(logical) == 1 and logical[0][1] == "rule":
                continue  # rules: see test_rules_are_exactly_the_width
            verbatim = any(style == VERBATIM for _, style in logical)
            pieces = [paint(p, False) for p in (wrap_continued(logical, width) if verbatim else wrap(logical, width))]
            for p in pieces:
                if len(p) > width:  # only a command word that cannot be cut may overrun
                    assert verbatim and len(p.split()) <= 3, (name, width, p)
            lead = _lead(pieces[0])
            if verbatim:  # a shell comment moves to lines of its own above the command it annotated
                starts = [p for p in pieces if _lead(p) == lead and not p.lstrip().startswith("# ")]
                assert len(starts) <= 1 and all(_lead(p) >= lead for p in pieces), (name, width, pieces)
            else:
                for p in pieces[1:]:
                    assert _lead(p) > lead, (name, width, pieces)
            if not verbatim and all(len(w) < width // 2 for w in whole.split()):
                assert " ".join(" ".join(pieces).split()) == " ".join(whole.split()), (name, pieces)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_rendered_text_never_exceeds_the_width(reports, width):
    for name, report in reports.items():
        for line in render_text(report, color=False, width=width).splitlines():
            assert len(line) <= width or line.rstrip().endswith(("\\",)) or len(line.split()) <= 4, (name, line)


def test_rules_are_exactly_the_width(reports):
    for width in (60, 80, 120):
        text = render_text(next(iter(reports.values())), color=False, width=width)
        assert len(text.splitlines()[0]) == width


def test_colour_changes_the_paint_only(reports):
    report = reports["ollama-cpu-spill"]
    plain = render_text(report, color=False, width=80)
    coloured = render_text(report, color=True, width=80)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == plain


def test_command_lines_wrap_with_a_continuation_backslash():
    line = (("      $ sudo systemctl edit ollama.service --drop-in=zz-llmdoctor.conf && sudo systemctl daemon-reload", VERBATIM),)
    pieces = [paint(p, False) for p in wrap_continued(line, 60)]
    assert all(p.endswith(" \\") for p in pieces[:-1]) and len(pieces) > 1
    assert " ".join(p.rstrip("\\").strip() for p in pieces).split() == line[0][0].split()


def test_a_shell_comment_never_swallows_a_continuation():
    line = (("      $ mkdir -p /etc/systemd/system/ollama.service.d  # for the drop-in below, "
             "/etc/systemd/system/ollama.service.d/zz-llmdoctor.conf", VERBATIM),)
    pieces = [paint(p, False) for p in wrap_continued(line, 60)]
    assert all(not ("#" in p and p.endswith("\\")) for p in pieces), pieces
    assert pieces[-1].strip() == "$ mkdir -p /etc/systemd/system/ollama.service.d"
    assert all(p.strip().startswith("# ") for p in pieces[:-1])


def test_width_comes_from_columns_then_the_terminal_then_80():
    class Pipe:
        def isatty(self):
            return False

    assert output_width(Pipe(), {}) == 80
    assert output_width(Pipe(), {"COLUMNS": "132"}) == 132
    assert output_width(Pipe(), {"COLUMNS": "abc"}) == 80
    assert output_width(Pipe(), {"COLUMNS": "5"}) == 20


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.just(" "), max_size=300),
       st.integers(min_value=0, max_value=12), st.integers(min_value=20, max_value=140))
def test_wrap_never_overruns_and_loses_nothing(text, indent, width):
    line = ((" " * indent + text.replace("\n", " "), ""),)
    pieces = [paint(p, False) for p in wrap(line, width)]
    assert all(len(p) <= width for p in pieces)
    assert "".join("".join(pieces).split()) == "".join(line[0][0].split())


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("no_color", [False, True])
def test_terminal_output_fits_a_real_tmux_pane(no_color, tmp_path):
    """In a 70-column pane, llmdoctor lays out for 70 columns itself: tmux never has to wrap
    a line (capture-pane -J joins the lines tmux wrapped), with NO_COLOR as without it."""
    socket = f"llmdoctor-test-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "done"
    env = "NO_COLOR=1 " if no_color else ""
    command = (f"cd {Path.cwd()} && env -u COLUMNS {env}{sys.executable} -m llmdoctor diagnose "
               f"--evidence {ROOT / 'ollama-cpu-spill'}; touch {done}; sleep 30")
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-x", "70", "-y", "200", command], check=True, timeout=10,
                   env={**os.environ, "TERM": "xterm-256color"})
    try:
        deadline = time.monotonic() + 30
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.exists(), "llmdoctor did not finish in the pane"
        joined = subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-", "-E", "-"], capture_output=True,
                                text=True, timeout=10, check=True).stdout
        coloured = subprocess.run([*tmux, "capture-pane", "-p", "-e", "-S", "-", "-E", "-"], capture_output=True,
                                  text=True, timeout=10, check=True).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10)
    lines = [l for l in joined.splitlines() if l.strip()]
    assert any("CPU_SPILL" in l for l in lines), joined
    assert all(len(l.rstrip()) <= 70 for l in lines), [l for l in lines if len(l.rstrip()) > 70]
    assert lines[0].startswith("── ollama-cpu-spill") and len(lines[0]) == 70
    assert ("\x1b[" in coloured) is not no_color
