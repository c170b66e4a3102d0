"""`--format html`: one self-contained page to keep, mail or attach to a ticket.

The report (every target, its findings with their evidence and fix, the merged What to
change that the text report prints, what could not be examined) and, when a probe ran, its timeline and latency charts as inline SVG
(render/charts.py). Nothing is fetched: no script, no font, no style sheet, no image
from elsewhere; the page's own CSS is inline. Every text from a host is escaped.
"""
from __future__ import annotations

from html import escape
from typing import Any

from llmdoctor.model import Finding, Report, Severity, TargetReport
from llmdoctor.render.charts import HtmlUnavailable, latency_svg, timeline_svg
from llmdoctor.render.report import (SEVERITY_HEADING, errors_of, gaps_of, merged_into, rules_sentence, shown_config,
                                     unavailable_line, withheld_line, write_then_apply)

__all__ = ["HtmlUnavailable", "render_html"]

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:62em;padding:0 1em;color:#1b1f24;line-height:1.45}
h1{font-size:1.5em}h2{border-bottom:2px solid #d0d7de;padding-bottom:.2em;margin-top:1.8em}
.finding{border-left:5px solid #888;padding:.3em 1em;margin:1em 0;background:#f6f8fa}
.critical{border-color:#cf222e}.warning{border-color:#bf8700}.info{border-color:#0969da}
.badge{font-size:.8em;font-weight:bold;text-transform:uppercase;padding:.1em .5em;border-radius:.3em;color:#fff;background:#888}
.critical .badge{background:#cf222e}.warning .badge{background:#9a6700}.info .badge{background:#0969da}
.meta,.examined{color:#57606a;font-size:.9em}
pre,code{font-family:ui-monospace,monospace;font-size:.88em}
pre{background:#fff;border:1px solid #d0d7de;padding:.6em;overflow-x:auto;white-space:pre-wrap}
figure.chart{margin:1em 0}figure.chart svg{max-width:100%;height:auto}
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #d0d7de;padding:.2em .6em;text-align:right}
td:first-child,th:first-child{text-align:left}
.changes{border-left:5px solid #1a7f37;padding:.3em 1em;background:#f6f8fa}.held-back{color:#7d4e00}
"""


def _commands(commands) -> str:
    """Commands as pasted: `$ ` before each one's first line (a here-document's lines as they are)."""
    return '<pre class="commands">' + escape("\n".join(f"$ {c}" for c in commands)) + "</pre>"


def _finding(f: Finding, merged=None) -> list[str]:
    sev = f.severity.value
    out = [f'<section class="finding {sev}">',
           f'<p><span class="badge">{escape(sev)}</span> <strong>{escape(f.title)}</strong></p>',
           f'<p class="meta">{escape(f.cause.value)} · {escape(f.check)} · confidence {escape(f.confidence.value)}'
           + (f' · instance {escape(f.instance)}' if f.instance else '')
           + (f' · follows from {escape(f.caused_by)} (change that first)' if f.caused_by else '') + '</p>',
           "<p>Evidence:</p><ul>"]
    out += [f"<li><code>{escape(e.source)}</code>: <code>{escape(e.text.strip())}</code></li>" for e in f.evidence]
    out += ["</ul>", f'<p class="fix"><strong>Fix:</strong> {escape(f.fix.summary)}</p>']
    if merged is not None:  # its setting is in the merged change: one file, one set of commands
        return out + [f'<p class="merged">Part of <a href="#{_change_id(merged)}">What to change '
                      f'({escape(merged.place)})</a>, below.</p>', "</section>"]
    if f.fix.commands:
        out.append(_commands(f.fix.commands))
    if config := shown_config(f.fix.commands, f.fix.config):
        out.append('<pre class="config">' + escape(config.rstrip()) + "</pre>")
    return out + ["</section>"]


def _change_id(c) -> str:
    """The anchor of a change's block: its place, in the characters an id keeps."""
    return "change-" + "".join(ch if ch.isalnum() else "-" for ch in c.place)


def _changes(changes) -> list[str]:
    """What to change, from the same merged values the text and Markdown reports print: per place
    the commands in the order they are run (the file between them, where no command writes it),
    the notes, the held-back settings with their reasons, then the rules that merged them."""
    out = ['<section class="changes">', "<h3>What to change</h3>"]
    for c in changes:
        out += [f'<div class="change" id="{_change_id(c)}">',
                f'<p><strong class="place">{escape(c.place)}</strong> <span class="meta">(from '
                + ", ".join(f'<code class="check">{escape(x)}</code>' for x in c.checks) + ")</span></p>"]
        first, rest = write_then_apply(c)
        if first:
            out.append(_commands(first))
        if config := shown_config(c.commands, c.config):
            out.append('<pre class="config">' + escape(config.rstrip()) + "</pre>")
        if rest:
            out.append(_commands(rest))
        if c.notes or c.held_back:
            out.append("<ul>")
            out += [f'<li class="note">note: {escape(n)}</li>' for n in c.notes]
            out += [f'<li class="held-back"><strong>held back:</strong> {escape(h)}</li>' for h in c.held_back]
            out.append("</ul>")
        out.append("</div>")
    return out + [f'<p class="meta rules">{escape(rules_sentence())}</p>', "</section>"]


def _target(t: TargetReport) -> list[str]:
    out = [f"<h2>{escape(t.target)} <small>({escape(t.engine)})</small></h2>"]
    if t.summary:
        out += ["<ul>"] + [f"<li><strong>{escape(k)}</strong>: {escape(v)}</li>" for k, v in t.summary] + ["</ul>"]
    if t.examined:
        out.append('<p class="examined">Examined: ' + escape("; ".join(t.examined)) + "</p>")
    if t.withheld:
        out.append(f'<p class="withheld">{escape(withheld_line(t))}</p>')
    if not t.diagnosed:
        out.append(f"<p><strong>Could not diagnose:</strong> {escape(t.could_not_diagnose)}</p>")
    elif not t.findings:
        out.append("<p>No problems found in what was examined.</p>")
    for sev in Severity:
        group = [f for f in t.findings if f.severity is sev]
        if group:
            out.append(f"<h3>{SEVERITY_HEADING[sev]} ({len(group)})</h3>")
            for f in group:
                out += _finding(f, merged_into(t.changes, f))
    if t.changes:
        out += _changes(t.changes)
    gaps, errors = gaps_of(t), errors_of(t)
    if gaps or errors:
        out += ["<h3>Could not examine</h3>", "<ul>"]
        out += [f"<li>{escape(unavailable_line(u.fact, u.reason))}</li>" for u in gaps]
        out += [f'<li class="error">{escape(e)}</li>' for e in errors]
        out.append("</ul>")
    return out


def _seconds(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _probe(result: Any, n: int) -> list[str]:
    out = [f"<h2>Probe: {escape(result.engine)} at {escape(result.url)}</h2>",
           f'<p class="meta">{escape(result.model or "model not named")} · {result.requests_sent} requests · '
           f'{result.tokens_generated} tokens · {result.wall_s:.2f} s'
           + (f" · {result.slots} slot(s) ({escape(result.slots_source)})" if result.slots else "") + "</p>",
           f'<figure class="chart timeline" id="timeline-{n}">{timeline_svg(result)}'
           "<figcaption>Each row is one request on the probe's clock: grey while it waited, orange while "
           "the prompt was processed, blue while tokens streamed; the black tick is its first token.</figcaption></figure>",
           f'<figure class="chart latency" id="latency-{n}">{latency_svg(result)}'
           "<figcaption>Time to first token of each request, and the spread of the gaps between its "
           "streamed tokens.</figcaption></figure>",
           "<table><tr><th>request</th><th>scenario</th><th>sent (s)</th><th>first byte (s)</th>"
           "<th>first token (s)</th><th>last token (s)</th><th>tokens</th><th>status</th></tr>"]
    for s in sorted(result.samples, key=lambda s: (round(s.sent_s, 2), s.id)):
        out.append(f"<tr><td>{escape(s.id)}</td><td>{escape(s.scenario)}</td><td>{s.sent_s:.3f}</td>"
                   f"<td>{_seconds(s.ttfb_s)}</td><td>{_seconds(s.ttft_s)}</td>"
                   f"<td>{_seconds(s.chunk_s[-1] if s.chunk_s else None)}</td>"
                   f"<td>{s.completion_tokens or len(s.chunk_s)}</td><td>{escape(s.status)}</td></tr>")
    return out + ["</table>", '<p class="meta">Times of a request are from the moment it was sent.</p>']


def render_html(report: Report, runs: Any = None, sections: tuple[str, ...] = ()) -> str:
    """The page: the report, then each probe run's charts (runs: a ProbeRuns or None), then the
    `sections` (HTML built by their own renderer, e.g. render/sweep.py's headroom charts)."""
    results = tuple(runs.results) if runs is not None else ()
    body: list[str] = [f"<h1>llmdoctor report <small>v{escape(report.version)}</small></h1>"]
    for t in report.targets:
        body += _target(t)
    for n, r in enumerate(results, 1):
        body += _probe(r, n)
    body += list(sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            # the browser itself refuses anything from elsewhere: the page stands alone
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<title>llmdoctor report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
