"""`llmdoctor probe` (and `diagnose --probe`): the report of the verdicts; in text and
Markdown the timeline of the requests after it, in HTML the charts, in JSON the
measurements too."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from llmdoctor.model import Report, report_to_dict


@dataclass(frozen=True)
class ProbeView:
    report: Report
    runs: Any  # knowledge.probe.result.ProbeRuns


def probe_json(view: ProbeView) -> str:
    doc = report_to_dict(view.report)
    doc["probe"] = view.runs.to_dict()
    return json.dumps(doc, indent=2) + "\n"


def probe_report(fmt: str):
    def render(view: ProbeView) -> str:
        from llmdoctor.render.report import RENDERERS

        text = RENDERERS[fmt](view.report)
        if fmt == "text" and view.runs.results:
            from llmdoctor.render.timeline import timeline_text

            text += "\n" + timeline_text(view.runs, text_width())
        elif fmt == "markdown" and view.runs.results:
            from llmdoctor.render.timeline import timeline_text

            text += "\n```\n" + timeline_text(view.runs, 80) + "```\n"
        return text

    return render


def probe_html(view: ProbeView) -> str:
    from llmdoctor.render.html import render_html

    return render_html(view.report, view.runs)


def text_width() -> int:
    """Columns for the timeline: the terminal's (or COLUMNS), 80 when piped."""
    import os
    import shutil
    import sys

    if os.environ.get("COLUMNS", "").isdigit():
        return max(20, int(os.environ["COLUMNS"]))
    if sys.stdout.isatty():
        return max(20, shutil.get_terminal_size((80, 24)).columns)
    return 80
