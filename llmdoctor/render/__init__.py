"""Every view llmdoctor prints, behind one call: `render(view, fmt)` -> text.

A view is a value: a diagnosis `Report`, a `PlanView`, a `ProbeView`, a `TuneView`, or a
tuning `Outcome`. Each kind lists the formats it has; asking for another is a ValueError
with the formats it does have. The commands only build a view and print what comes back,
so a new output format is a renderer here, not an edit of every command.

The report renderers are imported lazily (the console renderer pulls in rich).
"""
from __future__ import annotations

from typing import Any, Callable

from llmdoctor.model import Report
from llmdoctor.render.report import RENDERERS, render_json, render_markdown, render_text

__all__ = ["FORMATS", "RENDERERS", "formats_of", "render", "render_json", "render_markdown", "render_text"]

Renderer = Callable[[Any], str]


def render_html(report: Report) -> str:
    """The self-contained page (render/html.py; needs the `html` extra, imported on use)."""
    from llmdoctor.render.html import render_html as page

    return page(report)


RENDERERS.setdefault("html", render_html)  # registered here: html.py builds on report.py


def _report(fmt: str) -> Renderer:
    return RENDERERS[fmt]


def _views() -> list[tuple[type, dict[str, Renderer]]]:
    from llmdoctor.render.plan import PlanView, plan_json, plan_text
    from llmdoctor.render.probe import ProbeView, probe_html, probe_json, probe_report
    from llmdoctor.render.sweep import SweepView, sweep_html, sweep_json, sweep_markdown, sweep_text
    from llmdoctor.render.whatif import WhatIfView, whatif_json, whatif_text

    views: list[tuple[type, dict[str, Renderer]]] = [
        (Report, {name: _report(name) for name in RENDERERS}),
        (PlanView, {"text": plan_text, "json": plan_json}),
        (ProbeView, {"text": probe_report("text"), "markdown": probe_report("markdown"), "json": probe_json,
                     "html": probe_html}),
        (SweepView, {"text": sweep_text, "markdown": sweep_markdown, "json": sweep_json, "html": sweep_html}),
        (WhatIfView, {"text": whatif_text, "json": whatif_json}),
    ]
    try:  # the tuner's views need its modules; they are there in every install
        from llmdoctor.app.tune.apply import Outcome
        from llmdoctor.render.tune import TuneView, outcome_text, tune_text
    except ImportError:  # pragma: no cover - a trimmed install without the tuner
        return views
    views += [(TuneView, {"text": tune_text}), (Outcome, {"text": outcome_text})]
    return views


FORMATS = tuple(RENDERERS)  # the formats of a diagnosis report


def formats_of(view: Any) -> tuple[str, ...]:
    for kind, table in _views():
        if isinstance(view, kind):
            return tuple(table)
    raise TypeError(f"nothing renders a {type(view).__name__}")


def render(view: Any, fmt: str = "text") -> str:
    """The view in the format asked for."""
    for kind, table in _views():
        if isinstance(view, kind):
            if fmt not in table:
                raise ValueError(f"{type(view).__name__} has no {fmt!r} form; choose {', '.join(table)}")
            return table[fmt](view)
    raise TypeError(f"nothing renders a {type(view).__name__}")
