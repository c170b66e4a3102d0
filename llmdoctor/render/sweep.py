"""`llmdoctor probe --sweep`: per engine a small table of TTFT and ITL per concurrency
level, the knee, and the users carried within the TTFT target, each with the rule that
decided it. Text is laid out at the report's width (render/layout.py): prose wraps, the
table drops its ITL columns when it would not fit. JSON is the report plus "sweep"."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from llmdoctor.judge.probe.headroom import backtest_line, headroom_lines, model_line  # noqa: F401 (render/whatif.py)
from llmdoctor.judge.probe.sweep import duration as _s, knee_line, users_line
from llmdoctor.model import Report, report_to_dict

_WIDE = (("streams", 8), ("sent", 7), ("TTFT p50", 10), ("TTFT p95", 10), ("ITL p50", 9), ("ITL p95", 9))
_NARROW = _WIDE[:4]
KNEE_MARK = "  <- knee"


@dataclass(frozen=True)
class SweepView:
    report: Report
    verdicts: tuple[Any, ...]  # judge.probe.sweep.SweepVerdict, one per engine swept


def _table(v, width: int) -> list[str]:
    cols = _WIDE if sum(w for _, w in _WIDE) + len(KNEE_MARK) <= width else _NARROW
    head = "".join(name.rjust(w) for name, w in cols)
    rows = [head]
    for s in v.levels:
        cells = (str(s.concurrency), f"{s.ok}/{s.sent}", _s(s.ttft_p50_s), _s(s.ttft_p95_s),
                 _s(s.itl_p50_s), _s(s.itl_p95_s))
        row = "".join(c.rjust(w) for c, (_, w) in zip(cells, cols))
        if not s.complete:
            row += "  (cut short)"
        elif v.knee.concurrency == s.concurrency:
            row += KNEE_MARK
        rows.append(row)
    return rows


def sweep_lines(v, width: int) -> list[str]:
    """One engine's sweep as plain lines of at most `width` columns."""
    from llmdoctor.judge.probe.sweep import KNEE_RULE, USERS_RULE
    from llmdoctor.render.layout import paint, rule, wrap

    r = v.result
    slots = f", {r.slots} slot{'s' if r.slots != 1 else ''}" if r.slots else ""
    out = [paint(line, False) for line in rule(f"Concurrency sweep · {r.engine} at {r.url}{slots}", width)]
    prose = [f"Sent {r.requests_sent} of {r.plan.requests} planned requests at "
             f"{', '.join(str(c) for c in r.plan.levels)} streams, <= {r.plan.max_tokens} output tokens each; "
             f"{r.tokens_used} of the {r.plan.token_budget}-token budget used in {r.wall_s:.1f} s "
             f"(deadline {r.plan.deadline_s:g} s)."]
    table = _table(v, width)
    tail = [knee_line(v), users_line(v), f"Rule: {KNEE_RULE}; {USERS_RULE}."] + headroom_lines(v.headroom)
    if r.partial:
        tail.append(f"Partial: stopped by the {r.stopped_by} before the plan was done; the figures cover "
                    f"the levels measured.")
    tail += [f"Note: {n}" for n in r.notes]
    for text in prose:
        out += [paint(w, False) for w in wrap(((text, ""),), width)]
    for row in table:
        out += [paint(w, False) for w in wrap(((row, ""),), width)] if len(row) > width else [row]
    for text in tail:
        out += [paint(w, False) for w in wrap(((text, ""),), width)]
    return out


def sweep_text(view: SweepView, width: int | None = 0) -> str:
    from llmdoctor.render.layout import output_width

    from llmdoctor.render.layout import paint, rule, wrap

    width = output_width(sys.stdout) if width == 0 else (width or 80)
    parts = ["\n".join(sweep_lines(v, width)) for v in view.verdicts]
    for t in view.report.targets:  # in the words JSON uses ("could not diagnose"), as diagnose prints them
        if not t.diagnosed:
            lines = rule(f"{t.target} · engine: {t.engine}", width) + wrap(
                ((f"  Could not diagnose: {t.could_not_diagnose}", ""),), width)
            parts.append("\n".join(paint(line, False) for line in lines))
    errors = [f"llmdoctor: {e}" for t in view.report.targets if t.diagnosed for e in t.errors]
    return "\n\n".join(parts + (["\n".join(errors)] if errors else [])) + "\n"


def sweep_markdown(view: SweepView) -> str:
    return "# llmdoctor concurrency sweep\n\n```\n" + sweep_text(view, 80) + "```\n"


def _sweep_html(v: Any, n: int) -> list[str]:
    """One sweep: the headroom in words, the chart (measured, fitted, target), the levels."""
    from html import escape

    from llmdoctor.render.charts import headroom_svg
    from llmdoctor.render.html import _seconds

    r = v.result
    out = [f"<h2>Concurrency sweep: {escape(r.engine)} at {escape(r.url)}</h2>",
           f'<p class="meta">{r.requests_sent} requests at {escape(", ".join(map(str, r.plan.levels)))} streams · '
           f"{r.tokens_used} tokens · {r.wall_s:.1f} s" + (f" · {r.slots} slot(s)" if r.slots else "") + "</p>",
           f'<figure class="chart headroom" id="headroom-{n}">{headroom_svg(v)}'
           "<figcaption>Points: what each level measured. Lines: what the model fitted to them predicts, "
           "beyond the levels measured too. Red: the target.</figcaption></figure>",
           "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in
                            [knee_line(v), users_line(v)] + headroom_lines(v.headroom)) + "</ul>",
           "<table><tr><th>streams</th><th>sent</th><th>TTFT p50 (s)</th><th>TTFT p95 (s)</th>"
           "<th>ITL p50 (s)</th><th>ITL p95 (s)</th></tr>"]
    for s in v.levels:
        out.append(f"<tr><td>{s.concurrency}</td><td>{s.ok}/{s.sent}</td><td>{_seconds(s.ttft_p50_s)}</td>"
                   f"<td>{_seconds(s.ttft_p95_s)}</td><td>{_seconds(s.itl_p50_s)}</td><td>{_seconds(s.itl_p95_s)}</td></tr>")
    return out + ["</table>"]


def sweep_html(view: SweepView) -> str:
    """One self-contained page (render/html.py): the report and each sweep's headroom chart."""
    from llmdoctor.render.html import render_html

    return render_html(view.report, None, tuple("\n".join(_sweep_html(v, n)) for n, v in enumerate(view.verdicts, 1)))


def sweep_json(view: SweepView) -> str:
    doc = report_to_dict(view.report)
    doc["sweep"] = [v.to_dict() for v in view.verdicts]
    return json.dumps(doc, indent=2) + "\n"
