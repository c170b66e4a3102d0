"""`llmdoctor probe` (and `diagnose --probe`): the report of the verdicts; in text and
Markdown the timeline of the requests after it, in HTML the charts, in JSON the
measurements too."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from llmdoctor.model import Report, report_to_dict


@dataclass(frozen=True)
class ProbeView:
    report: Report
    runs: Any  # knowledge.probe.result.ProbeRuns


def probe_json(view: ProbeView) -> str:
    from llmdoctor.judge.probe.verdicts import runs_with_verdicts

    doc = report_to_dict(view.report)
    doc["probe"] = runs_with_verdicts(view.runs)
    return json.dumps(doc, indent=2) + "\n"


def probe_report(fmt: str, width: int | None = 0):
    """The report, then the timeline; `width` as for render_text (0: the real width, None:
    no wrapping, where the timeline takes 80 columns)."""
    def render(view: ProbeView) -> str:
        from llmdoctor.render.layout import output_width
        from llmdoctor.render.report import RENDERERS, render_text

        text = render_text(view.report, width=width) if fmt == "text" else RENDERERS[fmt](view.report)
        if fmt == "text" and view.runs.results:
            from llmdoctor.render.timeline import timeline_text

            text += "\n" + timeline_text(view.runs, output_width(sys.stdout) if width == 0 else (width or 80))
        elif fmt == "markdown" and view.runs.results:
            from llmdoctor.render.timeline import timeline_text

            text += "\n```\n" + timeline_text(view.runs, 80) + "```\n"
        return text

    return render


def probe_html(view: ProbeView) -> str:
    from llmdoctor.render.html import render_html

    return render_html(view.report, view.runs)
