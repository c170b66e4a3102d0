"""One merged change in every output (issue 27, item 2): every evidence fixture is diagnosed
once and its What to change is read back from the text, Markdown, JSON and HTML reports by a
parser of each format's own structure (the text section's lines, Markdown's fences and
bullets, the HTML section's elements); all four must give the same places, checks, commands,
shown file, notes and held-back items with their reasons. `tune`'s side of the same change is
tests/tune/test_matches_diagnose.py (the drop-in, settings and held-back items against the JSON)."""
from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Report
from llmdoctor.plugins import load_checks
from llmdoctor.render.report import render_json, render_markdown, render_text, shown_config

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in EVIDENCE.glob("*/expected.json"))
RULES = "Merged by these rules:"


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def _change(place: str, checks) -> dict:
    return {"place": place, "checks": list(checks), "commands": [], "config": [], "notes": [], "held_back": []}


def _normal(c: dict) -> tuple:
    """What a reader sees of a change: the commands as one pasted text, the file shown besides them."""
    return (c["place"], tuple(c["checks"]), "\n".join(c["commands"]), "\n".join(c["config"]).rstrip(),
            tuple(c["notes"]), tuple(c["held_back"]))


def from_json(doc: dict) -> list[tuple]:
    return [_normal({**c, "config": [shown_config(c["commands"], c["config"])]})
            for t in doc["targets"] for c in t["what_to_change"]]


def from_text(text: str) -> list[tuple]:
    """The text report's What to change sections (unwrapped): a change's heading two spaces in,
    `$ ` commands six in (a here-document's body flush left after its command), the file six in,
    notes and held-back items four in."""
    out: list[dict] = []
    inside = False
    for line in text.splitlines():
        if line == "What to change":
            inside = True
        elif inside and line.startswith(f"  {RULES}"):
            inside = False
        elif not inside or not line:
            continue
        elif line.startswith("      $ "):
            out[-1]["commands"].append(line[8:])
        elif line.startswith("    note: "):
            out[-1]["notes"].append(line[10:])
        elif line.startswith("    held back: "):
            out[-1]["held_back"].append(line[15:])
        elif line.startswith("      "):
            out[-1]["config"].append(line[6:])
        elif line.startswith("  ") and not line.startswith("   "):
            place, checks = line[2:].rsplit("  (from ", 1)
            out.append(_change(place, checks.rstrip(")").split(", ")))
        else:  # a here-document's line: part of the command above it
            out[-1]["commands"][-1] += "\n" + line
    return [_normal(c) for c in out]


def from_markdown(md: str) -> list[tuple]:
    out: list[dict] = []
    inside, fence = False, None
    unescape = lambda s: s.replace("\\|", "|")  # noqa: E731 - render/report.py's _md_escape undone
    for line in md.splitlines():
        if line == "### What to change":
            inside = True
        elif not inside:
            continue
        elif fence is not None:
            if line == "```":
                fence = None
            else:
                out[-1][fence].append(line)
        elif line in ("```sh", "```ini"):
            fence = "commands" if line == "```sh" else "config"
        elif line.startswith(RULES) or line.startswith("#"):
            inside = False
        elif line.startswith("**") and " (from " in line:
            place, checks = line.rsplit(" (from ", 1)
            out.append(_change(unescape(place[2:-2]), [x.strip("`") for x in checks.rstrip(")").split(", ")]))
        elif line.startswith("- note: "):
            out[-1]["notes"].append(unescape(line[8:]))
        elif line.startswith("- held back: "):
            out[-1]["held_back"].append(unescape(line[13:]))
    for c in out:  # a fenced block's lines are the commands' text, not one command a line
        c["commands"] = ["\n".join(c["commands"])] if c["commands"] else []
    return [_normal(c) for c in out]


class _ChangesHtml(HTMLParser):
    """The changes of the page's `<section class="changes">` elements, by their elements' classes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.changes: list[dict] = []
        self.stack: list[set[str]] = []
        self.text: list[str] | None = None
        self.field = ""

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        self.stack.append(classes | {tag})
        inside = any("changes" in s for s in self.stack)
        if not inside:
            return
        if "change" in classes:
            self.changes.append(_change("", ()))
        for field in ("place", "check", "commands", "config", "note", "held-back"):
            if field in classes:
                self.field, self.text = field, []

    def handle_endtag(self, tag):
        classes = self.stack.pop() if self.stack else set()
        if self.text is None or self.field not in classes:
            return
        text, c = "".join(self.text), self.changes[-1]
        if self.field == "place":
            c["place"] = text
        elif self.field == "check":
            c["checks"].append(text)
        elif self.field == "commands":  # `$ ` before each command's first line
            assert text.startswith("$ "), text
            c["commands"].append("\n".join(line[2:] if line.startswith("$ ") else line for line in text.split("\n")))
        elif self.field == "config":
            c["config"].append(text)
        elif self.field == "note":
            c["notes"].append(text.removeprefix("note: "))
        else:
            c["held_back"].append(text.removeprefix("held back: "))
        self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


def from_html(page: str) -> list[tuple]:
    parser = _ChangesHtml()
    parser.feed(page)
    return [_normal(c) for c in parser.changes]


def test_the_parsers_read_a_here_document_and_held_back_items(specs):
    """The comparison below is not vacuous: on a fixture with a drop-in and a held-back raise,
    each parser finds both."""
    from llmdoctor.render.html import render_html

    report = Report("t", (diagnose_target(EvidenceHost(EVIDENCE / "ollama-one-slot"), DiagnoseOptions(sample_seconds=0),
                                          specs).report,))
    want = from_json(json.loads(render_json(report)))
    assert len(want) == 1 and "<<'EOF'\n[Service]\n" in want[0][2] and want[0][5][0].startswith("OLLAMA_NUM_PARALLEL=4")
    assert from_html(render_html(report)) == want


@pytest.mark.parametrize("directory", DIRS, ids=[d.name for d in DIRS])
def test_the_same_merged_change_in_text_markdown_json_and_html(directory, specs):
    from llmdoctor.render.html import render_html

    report = Report("t", (diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs).report,))
    want = from_json(json.loads(render_json(report)))
    assert from_text(render_text(report, color=False, width=None)) == want
    assert from_markdown(render_markdown(report)) == want
    assert from_html(render_html(report)) == want
    # a finding whose setting was merged points to the change and prints no fix of its own
    from llmdoctor.render.report import merged_into

    t = report.targets[0]
    pointed = [f for f in t.findings if merged_into(t.changes, f) is not None]
    assert render_html(report).count('<p class="merged">') == len(pointed)
