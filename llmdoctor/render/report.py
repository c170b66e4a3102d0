"""Renderers: console (rich), JSON and Markdown behind one small interface.

Each takes a `Report` and returns text; the CLI prints it. Text output groups
findings by severity, shows evidence and fix, and ends with what could not be
examined and why.
"""
from __future__ import annotations

import io
import json
import os
import re
import sys
from typing import Callable

from llmdoctor.model import Finding, Report, Severity, TargetReport, report_to_dict

FACT_LABELS = {
    "engines": "LLM engine",
    "gpu": "GPU",
    "memory": "Memory",
    "log_sources": "Logs",
    "systemd_units": "systemd",
}

SEVERITY_STYLE = {Severity.CRITICAL: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
SEVERITY_HEADING = {Severity.CRITICAL: "Critical", Severity.WARNING: "Warnings", Severity.INFO: "Info"}


def render_json(report: Report) -> str:
    return json.dumps(report_to_dict(report), indent=2, sort_keys=False) + "\n"


def unavailable_line(fact: str, reason: str) -> str:
    label = FACT_LABELS.get(fact, fact)
    if reason.startswith("no "):
        return f"{label}: {reason}"
    return f"{label}: not available ({reason})"


def _gaps(t: TargetReport):
    """What could not be examined, less the reason already given as "could not diagnose"."""
    return [u for u in t.unavailable if u.reason != t.not_diagnosed]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_code(text: str) -> str:
    """An inline code span that survives backticks inside the text (CommonMark)."""
    run = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_finding(f: Finding) -> list[str]:
    out = [f"#### [{f.severity.value}] {f.title}", "", f"`{f.check}` · cause **{f.cause.value}** · confidence {f.confidence.value}", ""]
    out.append("Evidence:")
    out.append("")
    for e in f.evidence:
        out.append(f"- {_md_code(e.source)}: {_md_code(e.text.strip())}")
    out += ["", f"Fix: {f.fix.summary}", ""]
    if f.fix.commands:
        out += ["```sh", *f.fix.commands, "```", ""]
    if f.fix.config:
        out += ["```ini", f.fix.config.rstrip(), "```", ""]
    return out


def render_markdown(report: Report) -> str:
    out = [f"# llmdoctor report (v{report.version})", ""]
    if len(report.targets) > 1:
        out += _md_summary_table(report)
    for t in report.targets:
        out += [f"## {t.target} ({t.engine})", ""]
        for label, value in t.summary:
            out.append(f"- **{label}**: {value}")
        if t.summary:
            out.append("")
        if not t.diagnosed and t.not_diagnosed:
            out += [f"**Could not diagnose**: {_md_escape(t.not_diagnosed)}", ""]
        elif not t.findings:
            out += ["No problems found in what was examined.", ""]
        if t.examined:
            out += ["Examined: " + "; ".join(_md_code(e) for e in t.examined), ""]
        for sev in Severity:
            group = [f for f in t.findings if f.severity is sev]
            if group:
                out += [f"### {SEVERITY_HEADING[sev]}", ""]
                for f in group:
                    out += _md_finding(f)
        gaps = _gaps(t)
        if gaps or t.errors:
            out += ["### Not examined", ""]
            out += [f"- {unavailable_line(u.fact, u.reason)}" for u in gaps]
            out += [f"- error: {e}" for e in t.errors]
            out.append("")
    return "\n".join(out) + "\n"


def _md_summary_table(report: Report) -> list[str]:
    out = ["| host | engine | worst | causes |", "|---|---|---|---|"]
    for t in report.targets:
        causes = ", ".join(sorted({f.cause.value for f in t.findings})) or "-"
        worst = t.worst.value if t.worst else ("error" if t.errors and not t.reachable else
                                                 "unknown" if not t.diagnosed else "ok")
        out.append(f"| {_md_escape(t.target)} | {t.engine} | {worst} | {causes} |")
    return out + [""]


def _use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


# A line of text output is a tuple of (text, style) segments; styles are rich's names.
Line = tuple[tuple[str, str], ...]
RULE_STYLE = "rule"  # a one-segment line with this style is a heading rule


def _lines(t: TargetReport) -> list[Line]:
    """One target's text output, as plain text with styles attached (never markup, so
    nothing in a log line can be mistaken for formatting)."""
    out: list[Line] = [((f"{t.target} · engine: {t.engine}", RULE_STYLE),)]
    out += [((f"  {label}: {value}", ""),) for label, value in t.summary]
    if t.examined:
        out.append(((f"  Examined: {'; '.join(t.examined)}", "dim"),))
    if t.summary or t.examined:
        out.append(())
    if not t.diagnosed and t.not_diagnosed:
        out += [(("  Could not diagnose: ", "bold yellow"), (t.not_diagnosed, "")), ()]
    elif not t.findings:
        out += [(("  No problems found in what was examined.", "green") if not t.errors else ("  No findings.", ""),), ()]
    for sev in Severity:
        group = [f for f in t.findings if f.severity is sev]
        if not group:
            continue
        style = SEVERITY_STYLE[sev]
        out.append(((f"{SEVERITY_HEADING[sev]} ({len(group)})", style),))
        for f in group:
            out.append((("  ", ""), ("●", style), (" ", ""), (f.title, "bold"), (f"  {f.cause.value} · {f.check}", "dim")))
            out += [(("      ", ""), (f"{e.source}:", "dim"), (f" {e.text.strip()}", "")) for e in f.evidence]
            out.append((("    ", ""), ("Fix:", "green"), (f" {f.fix.summary}", "")))
            out += [((f"      $ {c}", ""),) for c in f.fix.commands]
            if f.fix.config:
                out += [((f"      {line}", ""),) for line in f.fix.config.rstrip().splitlines()]
            out.append(())
    gaps = _gaps(t)
    if gaps or t.errors:
        out.append((("Could not examine", "bold"),))
        out += [((f"  {unavailable_line(u.fact, u.reason)}", ""),) for u in gaps]
        out += [((f"  {e}", "red"),) for e in t.errors]
        out.append(())
    return out


def _summary_rows(report: Report) -> list[tuple[str, str, str, str]]:
    rows = []
    for t in report.targets:
        worst = t.worst.value if t.worst else ("error" if t.errors and not t.reachable else
                                                 "unknown" if not t.diagnosed else "ok")
        causes = ", ".join(sorted({f.cause.value for f in t.findings})) or "-"
        rows.append((t.target, t.engine, worst, causes))
    return rows


def render_plain(report: Report, width: int = 100) -> str:
    """Piped output: no colour, no rich, every line whole (for grep and copy-paste)."""
    out: list[str] = []
    if len(report.targets) > 1:
        rows = [("host", "engine", "worst", "causes")] + _summary_rows(report)
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows] + [""]
    for t in report.targets:
        for line in _lines(t):
            if len(line) == 1 and line[0][1] == RULE_STYLE:
                title = f" {line[0][0]} "
                out.append(f"──{title}" + "─" * max(2, width - len(title) - 2))
            else:
                out.append("".join(text for text, _ in line))
    return "\n".join(out) + "\n"


def render_rich(report: Report, width: int | None = None) -> str:
    """Terminal output: colour, and long lines folded to the terminal's width."""
    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width, highlight=False)
    if len(report.targets) > 1:
        from rich.table import Table  # only the fleet summary needs it (start-up time)

        table = Table(title="Summary")
        for col in ("host", "engine", "worst", "causes"):
            table.add_column(col)
        for row in _summary_rows(report):
            table.add_row(*row)
        console.print(table)
        console.print()
    for t in report.targets:
        for line in _lines(t):
            if len(line) == 1 and line[0][1] == RULE_STYLE:
                console.rule(Text(line[0][0], style="bold"))
            else:
                console.print(Text.assemble(*line), overflow="fold")
    return buf.getvalue()


def render_text(report: Report, color: bool | None = None, width: int | None = None) -> str:
    color = _use_color(sys.stdout) if color is None else color
    return render_rich(report, width) if color else render_plain(report, width or 100)


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
