"""Renderers: console (rich), JSON and Markdown behind one small interface.

Each takes a `Report` and returns text; the CLI prints it. Text output groups
findings by severity, shows evidence and fix, and ends with what could not be
examined and why.
"""
from __future__ import annotations

import io
import json
import os
import sys
from typing import Callable

from .model import Finding, Report, Severity, TargetReport, report_to_dict

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


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_finding(f: Finding) -> list[str]:
    out = [f"#### [{f.severity.value}] {f.title}", "", f"`{f.check}` · cause **{f.cause.value}** · confidence {f.confidence}", ""]
    out.append("Evidence:")
    out.append("")
    for e in f.evidence:
        out.append(f"- `{e.source}`: `{e.text.strip()}`")
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
        if not t.findings:
            out += ["No problems found.", ""]
        for sev in Severity:
            group = [f for f in t.findings if f.severity is sev]
            if group:
                out += [f"### {SEVERITY_HEADING[sev]}", ""]
                for f in group:
                    out += _md_finding(f)
        if t.unavailable or t.errors:
            out += ["### Not examined", ""]
            out += [f"- {unavailable_line(u.fact, u.reason)}" for u in t.unavailable]
            out += [f"- error: {e}" for e in t.errors]
            out.append("")
    return "\n".join(out) + "\n"


def _md_summary_table(report: Report) -> list[str]:
    out = ["| host | engine | worst | causes |", "|---|---|---|---|"]
    for t in report.targets:
        causes = ", ".join(sorted({f.cause.value for f in t.findings})) or "-"
        worst = t.worst.value if t.worst else ("error" if t.errors else "ok")
        out.append(f"| {_md_escape(t.target)} | {t.engine} | {worst} | {causes} |")
    return out + [""]


def _use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def render_text(report: Report, color: bool | None = None, width: int | None = None) -> str:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    buf = io.StringIO()
    color = _use_color(sys.stdout) if color is None else color
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        width=width or (None if color else 100),
        highlight=False,
        soft_wrap=False,
    )
    # Piped output keeps each evidence line whole, for grep and copy-paste; a terminal folds.
    opts = {"overflow": "fold"} if color else {"soft_wrap": True, "crop": False}
    if len(report.targets) > 1:
        table = Table(title="Summary", show_lines=False)
        for col in ("host", "engine", "worst", "causes"):
            table.add_column(col)
        for t in report.targets:
            worst = t.worst.value if t.worst else ("error" if t.errors and t.engine == "unreachable" else "ok")
            causes = ", ".join(sorted({f.cause.value for f in t.findings})) or "-"
            table.add_row(escape(t.target), t.engine, worst, causes)
        console.print(table)
        console.print()
    for t in report.targets:
        _text_target(console, t, escape, opts)
    return buf.getvalue()


def _text_target(console, t: TargetReport, escape: Callable[[str], str], opts: dict) -> None:
    console.rule(f"[bold]{escape(t.target)}[/] · engine: {escape(t.engine)}")
    for label, value in t.summary:
        console.print(f"  {escape(label)}: {escape(value)}", **opts)
    if t.summary:
        console.print()
    if not t.findings:
        console.print("  [green]No problems found.[/]" if not t.errors else "  No findings.")
        console.print()
    for sev in Severity:
        group = [f for f in t.findings if f.severity is sev]
        if not group:
            continue
        style = SEVERITY_STYLE[sev]
        console.print(f"[{style}]{SEVERITY_HEADING[sev]} ({len(group)})[/]")
        for f in group:
            console.print(f"  [{style}]●[/] [bold]{escape(f.title)}[/]  [dim]{f.cause.value} · {escape(f.check)}[/]", **opts)
            for e in f.evidence:
                console.print(f"      [dim]{escape(e.source)}:[/] {escape(e.text.strip())}", **opts)
            console.print(f"    [green]Fix:[/] {escape(f.fix.summary)}", **opts)
            for c in f.fix.commands:
                console.print(f"      $ {escape(c)}", **opts)
            if f.fix.config:
                for line in f.fix.config.rstrip().splitlines():
                    console.print(f"      {escape(line)}", **opts)
            console.print()
    if t.unavailable or t.errors:
        console.print("[bold]Could not examine[/]")
        for u in t.unavailable:
            console.print(f"  {escape(unavailable_line(u.fact, u.reason))}", **opts)
        for e in t.errors:
            console.print(f"  [red]{escape(e)}[/]", **opts)
        console.print()


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
