"""`llmdoctor probe`: the report of its verdicts, and in JSON the measurements too."""
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

        return RENDERERS[fmt](view.report)

    return render
