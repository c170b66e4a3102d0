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
    color = _use_color(sys.stdout) if color is None else color
    width = width or (None if color else 100)
    if not color and len(report.targets) == 1:
        # Piped output of one target: the same markup, written without rich whenever that
        # provably gives rich's bytes (importing and running rich costs ~30 ms of start-up).
        plain = _plain_text(_text_ops(report.targets[0], _escape), width)
        if plain is not None:
            return plain
    return _rich_text(report, color, width)


def _rich_text(report: Report, color: bool, width: int | None) -> str:
    from rich.console import Console
    from rich.markup import escape

    buf = io.StringIO()
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        width=width,
        highlight=False,
        soft_wrap=False,
    )
    # Piped output keeps each evidence line whole, for grep and copy-paste; a terminal folds.
    opts = {"overflow": "fold"} if color else {"soft_wrap": True, "crop": False}
    if len(report.targets) > 1:
        from rich.table import Table  # only the fleet summary needs it (start-up time)

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
        for op in _text_ops(t, escape):
            if op[0] == RULE:
                console.rule(op[1])
            elif op[0] == WHOLE:  # an evidence-like line: kept whole when piped
                console.print(op[1], **opts)
            elif op[0] == SHORT:
                console.print(op[1])
            else:
                console.print()
    return buf.getvalue()


RULE, WHOLE, SHORT, BLANK = "rule", "whole", "short", "blank"


def _text_ops(t: TargetReport, escape: Callable[[str], str]) -> list[tuple[str, ...]]:
    """One target's text output as console operations on rich markup."""
    ops: list[tuple[str, ...]] = [(RULE, f"[bold]{escape(t.target)}[/] · engine: {escape(t.engine)}")]
    for label, value in t.summary:
        ops.append((WHOLE, f"  {escape(label)}: {escape(value)}"))
    if t.summary:
        ops.append((BLANK,))
    if not t.findings:
        ops.append((SHORT, "  [green]No problems found.[/]" if not t.errors else "  No findings."))
        ops.append((BLANK,))
    for sev in Severity:
        group = [f for f in t.findings if f.severity is sev]
        if not group:
            continue
        style = SEVERITY_STYLE[sev]
        ops.append((SHORT, f"[{style}]{SEVERITY_HEADING[sev]} ({len(group)})[/]"))
        for f in group:
            ops.append((WHOLE, f"  [{style}]●[/] [bold]{escape(f.title)}[/]  [dim]{f.cause.value} · {escape(f.check)}[/]"))
            for e in f.evidence:
                ops.append((WHOLE, f"      [dim]{escape(e.source)}:[/] {escape(e.text.strip())}"))
            ops.append((WHOLE, f"    [green]Fix:[/] {escape(f.fix.summary)}"))
            for c in f.fix.commands:
                ops.append((WHOLE, f"      $ {escape(c)}"))
            if f.fix.config:
                for line in f.fix.config.rstrip().splitlines():
                    ops.append((WHOLE, f"      {escape(line)}"))
            ops.append((BLANK,))
    if t.unavailable or t.errors:
        ops.append((SHORT, "[bold]Could not examine[/]"))
        for u in t.unavailable:
            ops.append((WHOLE, f"  {escape(unavailable_line(u.fact, u.reason))}"))
        for e in t.errors:
            ops.append((WHOLE, f"  [red]{escape(e)}[/]"))
        ops.append((BLANK,))
    return ops


# -- the same output without rich, where it is provably the same ---------------------------
# rich (no colour, not a terminal) prints a markup line as its text without the tags, with
# :emoji: codes replaced, control codes dropped and tabs expanded; lines not kept whole wrap
# at the width; a rule centres its title between "─" runs. _plain_text writes exactly that
# for lines made only of our own style tags, printable characters and no emoji name, and
# returns None (use rich) for anything else. tests/core/test_render_plain.py holds it to
# rich's output.

_RICH_TAG = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")  # rich.markup.RE_TAGS
_RICH_ESCAPE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")  # rich.markup.escape's pattern
_OUR_TAGS = frozenset({"[/]", "[bold]", "[dim]", "[green]", "[red]"} | {f"[{s}]" for s in SEVERITY_STYLE.values()})
_COLON_PAIR = re.compile(r"(?=:([^\s:]*):)")  # every ":name:" rich could read as an emoji code


def _escape(text: str) -> str:
    """rich.markup.escape, without importing rich."""
    text = _RICH_ESCAPE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", text)
    return text + "\\" if text.endswith("\\") and not text.endswith("\\\\") else text


def _plain(markup: str) -> str | None:
    """The text rich shows for `markup`, or None when that is not simply the tags removed."""
    if not markup.isprintable():
        return None  # tabs, control codes: rich's own handling
    tags = list(_RICH_TAG.finditer(markup))
    escaped = [m for m in tags if m.group(2)]
    if any(m.group(2) != "\\" for m in escaped) or markup.count("\\") != len(escaped):
        return None  # backslashes of the text's own, not only _escape's single one before a tag-like [x]
    if any(m.group(0) not in _OUR_TAGS for m in tags if not m.group(2)):
        return None
    text = _RICH_TAG.sub(lambda m: m.group(0)[1:] if m.group(2) else "", markup)  # [x] stays, our tags go
    if ":" in text:
        names = {n.lower() for m in _COLON_PAIR.finditer(text) for n in (m.group(1), re.sub(r"-(emoji|text)$", "", m.group(1)))}
        if names:
            try:
                from rich._emoji_codes import EMOJI
            except ImportError:
                return None
            if any(n in EMOJI for n in names):
                return None
    return text


def _plain_text(ops: list[tuple[str, ...]], width: int) -> str | None:
    out = []
    for op in ops:
        if op[0] == BLANK:
            out.append("")
            continue
        text = _plain(op[1])
        if text is None:
            return None
        if op[0] == SHORT and (len(text) > width or not text.isascii() or text != text.rstrip()):
            return None  # rich would wrap or trim it
        if op[0] == RULE:
            if len(text) > width - 4 or not all(c.isascii() or c == "·" for c in text):
                return None  # rich would truncate it, or measure wide characters
            side = (width - len(text)) // 2
            left = "─" * (side - 1)
            right = "─" * min(side + 1, width - len(left) - len(text))
            text = f"{left} {text} {right}"[:width].ljust(width)
        out.append(text)
    return "\n".join(out) + "\n"


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
