"""Renderers: console (rich), JSON and Markdown behind one small interface.

Each takes a `Report` and returns text; the CLI prints it. Text output groups
findings by severity, shows evidence and fix, and ends with what could not be
examined and why.
"""
from __future__ import annotations

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


def gaps_of(t: TargetReport):
    """What could not be examined, less the reason already given as "could not diagnose"."""
    return [u for u in t.unavailable if u.reason != t.could_not_diagnose]


def withheld_line(t: TargetReport) -> str:
    """How many values the keep-list redaction withheld ("" when none): the reader knows a
    `<redacted>` is a value left out on purpose, and how many there were."""
    n = t.withheld
    if not n:
        return ""
    return (f"Withheld: {n} value{'s' if n != 1 else ''} under names the diagnosis does not read "
            "(possible secrets: the names are shown, the values are not)")


def errors_of(t: TargetReport) -> list[str]:
    """The target's errors, less the one already given as "could not diagnose"."""
    return [e for e in t.errors if e != t.could_not_diagnose]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_code(text: str) -> str:
    """An inline code span that survives backticks inside the text (CommonMark)."""
    run = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def merged_into(changes, f: Finding):
    """The change a finding's setting went into (its own instance's, where the host runs several)."""
    return next((c for c in changes if f.check in c.checks
                 and (not f.instance or c.place.endswith(f"({f.instance})"))), None)


def _md_finding(f: Finding, merged=None) -> list[str]:
    out = [f"#### [{f.severity.value}] {f.title}", "", f"`{f.check}` · cause **{f.cause.value}** · confidence {f.confidence.value}"
           + (f" · instance {_md_escape(f.instance)}" if f.instance else "")
           + (f" · follows from `{f.caused_by}` (change that first)" if f.caused_by else ""), ""]
    out.append("Evidence:")
    out.append("")
    for e in f.evidence:
        out.append(f"- {_md_code(e.source)}: {_md_code(e.text.strip())}")
    out += ["", f"Fix: {f.fix.summary}", ""]
    if merged is not None:
        return out + [f"(part of What to change: {_md_escape(merged.place)})", ""]
    if f.fix.commands:
        out += ["```sh", *f.fix.commands, "```", ""]
    if config := shown_config(f.fix.commands, f.fix.config):
        out += ["```ini", config.rstrip(), "```", ""]
    return out


def shown_config(commands, config: str) -> str:
    """The file to show besides the commands: none where a command writes it (a here-document of it)."""
    from llmdoctor.judge.fixes import writes

    return "" if not config or any(writes(c, config) for c in commands) else config


def command_lines(command: str, indent: str = "      ") -> list[Line]:
    """A command as pasted: `$ ` before its first line; a here-document's lines flush left, as they are
    (its closing `EOF` ends it only alone on its line, without indentation: bash(1), Here Documents)."""
    first, *rest = command.split("\n")
    return [((f"{indent}$ {first}", VERBATIM),)] + [((line, HEREDOC),) for line in rest]


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
        if not t.diagnosed:
            out += [f"**Could not diagnose**: {_md_escape(t.could_not_diagnose)}", ""]
        elif not t.findings:
            out += ["No problems found in what was examined.", ""]
        if t.examined:
            out += ["Examined: " + "; ".join(_md_code(e) for e in t.examined), ""]
        if t.withheld:
            out += [_md_escape(withheld_line(t)), ""]
        for sev in Severity:
            group = [f for f in t.findings if f.severity is sev]
            if group:
                out += [f"### {SEVERITY_HEADING[sev]}", ""]
                for f in group:
                    out += _md_finding(f, merged_into(t.changes, f))
        if t.changes:
            out += _md_changes(t.changes)
        gaps, errors = gaps_of(t), errors_of(t)
        if gaps or errors:
            out += ["### Not examined", ""]
            out += [f"- {unavailable_line(u.fact, u.reason)}" for u in gaps]
            out += [f"- error: {e}" for e in errors]
            out.append("")
    return "\n".join(out) + "\n"


def _md_summary_table(report: Report) -> list[str]:
    out = ["| host | engine | worst | causes |", "|---|---|---|---|"]
    for target, engine, worst, causes in _summary_rows(report):
        out.append(f"| {_md_escape(target)} | {engine} | {worst} | {causes} |")
    return out + [""]


def _use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


# A line of text output is a tuple of (text, style) segments; styles are rich's names.
Line = tuple[tuple[str, str], ...]
RULE_STYLE = "rule"  # a one-segment line with this style is a heading rule
VERBATIM = "verbatim"  # a command or a config line: wrapped only with a continuation backslash
HEREDOC = "heredoc"  # a here-document's line: never wrapped (inside `<<'EOF'` a backslash is written to the file)


def _lines(t: TargetReport) -> list[Line]:
    """One target's text output, as plain text with styles attached (never markup, so
    nothing in a log line can be mistaken for formatting)."""
    out: list[Line] = [((f"{t.target} · engine: {t.engine}", RULE_STYLE),)]
    out += [((f"  {label}: {value}", ""),) for label, value in t.summary]
    if t.examined:
        out.append(((f"  Examined: {'; '.join(t.examined)}", "dim"),))
    if t.withheld:
        out.append(((f"  {withheld_line(t)}", "dim"),))
    if t.summary or t.examined or t.withheld:
        out.append(())
    if not t.diagnosed:
        out += [(("  Could not diagnose: ", "bold yellow"), (t.could_not_diagnose, "")), ()]
    elif not t.findings:
        out += [(("  No problems found in what was examined.", "green") if not t.errors else ("  No findings.", ""),), ()]
    for sev in Severity:
        group = [f for f in t.findings if f.severity is sev]
        if not group:
            continue
        style = SEVERITY_STYLE[sev]
        out.append(((f"{SEVERITY_HEADING[sev]} ({len(group)})", style),))
        for f in group:
            out.append((("  ", ""), ("●", style), (" ", ""), (f.title, "bold"), (f"  {f.cause.value} · {f.check}" + (f" · {f.instance}" if f.instance else ""), "dim")))
            if f.caused_by:
                out.append(((f"      ↳ follows from {f.caused_by} (listed before it): change that first", "dim"),))
            out += [(("      ", ""), (f"{e.source}:", "dim"), (f" {e.text.strip()}", "")) for e in f.evidence]
            out.append((("    ", ""), ("Fix:", "green"), (f" {f.fix.summary}", "")))
            merged = merged_into(t.changes, f)
            if merged is not None:
                out.append(((f"      → part of What to change ({merged.place}), below", "dim"),))
            else:
                out += [line for c in f.fix.commands for line in command_lines(c)]
                if config := shown_config(f.fix.commands, f.fix.config):
                    out += [((f"      {line}", VERBATIM),) for line in config.rstrip().splitlines()]
            out.append(())
    if t.changes:
        out += _change_lines(t.changes)
    gaps, errors = gaps_of(t), errors_of(t)
    if gaps or errors:
        out.append((("Could not examine", "bold"),))
        out += [((f"  {unavailable_line(u.fact, u.reason)}", ""),) for u in gaps]
        out += [((f"  {e}", "red"),) for e in errors]
        out.append(())
    return out


def write_then_apply(c) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A change's commands in the order they are run: what prepares the file (the first
    command), then the file, then what loads and checks it."""
    if shown_config(c.commands, c.config) and len(c.commands) > 1 and c.commands[0].startswith(("mkdir ", "sudo mkdir ")):
        return c.commands[:1], c.commands[1:]
    return (), c.commands


def rules_sentence() -> str:
    from llmdoctor.judge.remedy import RULES

    return "Merged by these rules: " + " ".join(f"({i}) {r}" for i, r in enumerate(RULES, 1))


def _change_lines(changes) -> list[Line]:
    """The findings' settings merged: one change per place, then the rules that merged them."""
    out: list[Line] = [(("What to change", "bold"),)]
    for c in changes:
        out.append((("  ", ""), (c.place, "bold"), (f"  (from {', '.join(c.checks)})", "dim")))
        first, rest = write_then_apply(c)
        out += [line for cmd in first for line in command_lines(cmd)]
        if config := shown_config(c.commands, c.config):
            out += [((f"      {line}", VERBATIM),) for line in config.rstrip().splitlines()]
        out += [line for cmd in rest for line in command_lines(cmd)]
        out += [((f"    note: {n}", "dim"),) for n in c.notes]
        out += [(("    ", ""), ("held back:", "yellow"), (f" {h}", "")) for h in c.held_back]
    out.append(((f"  {rules_sentence()}", "dim"),))
    return out + [()]


def _md_changes(changes) -> list[str]:
    out = ["### What to change", ""]
    for c in changes:
        out += [f"**{_md_escape(c.place)}** (from {', '.join(f'`{x}`' for x in c.checks)})", ""]
        first, rest = write_then_apply(c)
        if first:
            out += ["```sh", *first, "```", ""]
        if config := shown_config(c.commands, c.config):
            out += ["```ini", config.rstrip(), "```", ""]
        if rest:
            out += ["```sh", *rest, "```", ""]
        out += [f"- note: {_md_escape(n)}" for n in c.notes]
        out += [f"- held back: {_md_escape(h)}" for h in c.held_back]
        if c.notes or c.held_back:
            out.append("")
    out += [rules_sentence(), ""]
    return out


def _summary_rows(report: Report) -> list[tuple[str, str, str, str]]:
    rows = []
    for t in report.targets:
        worst = t.worst.value if t.worst else ("error" if t.errors and not t.reachable else
                                                 "unknown" if not t.diagnosed else "ok")
        causes = ", ".join(sorted({f.cause.value for f in t.findings})) or "-"
        rows.append((t.target, t.engine, worst, causes))
    return rows


def _fleet_table(report: Report) -> list[Line]:
    rows = [("host", "engine", "worst", "causes")] + _summary_rows(report)
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    table = [("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[3],) for r in rows]
    return [((table[0][0], "bold"),)] + [((r[0], ""),) for r in table[1:]] + [()]


def _hang(line: Line) -> int:
    """How far a wrapped line's continuations hang in: under the title after a bullet,
    under the text after "Fix:", a little further in for an evidence line."""
    label = line[1][0] if len(line) > 1 and not line[0][0].strip() else ""
    return {"●": 2, "Fix:": 5}.get(label, 4 if label.endswith(":") else 2)


def layout(report: Report, width: int | None) -> list[Line]:
    """The report's lines at `width` columns (None: never wrapped)."""
    from llmdoctor.render.layout import rule, wrap, wrap_continued

    lines = _fleet_table(report) if len(report.targets) > 1 else []
    for t in report.targets:
        lines += _lines(t)
    if width is None:
        return [line if not (len(line) == 1 and line[0][1] == RULE_STYLE) else ((f"── {line[0][0]} ──", RULE_STYLE),)
                for line in lines]
    out: list[Line] = []
    for line in lines:
        if len(line) == 1 and line[0][1] == RULE_STYLE:
            out += rule(line[0][0], width)
        elif any(style == HEREDOC for _, style in line):
            out.append(tuple((text, VERBATIM if style == HEREDOC else style) for text, style in line))
        elif any(style == VERBATIM for _, style in line):
            out += wrap_continued(line, width)
        else:
            out += wrap(line, width, hang=_hang(line))
    return out


def render_text(report: Report, color: bool | None = None, width: int | None = 0) -> str:
    """Text at the real width (terminal, COLUMNS, else 80; None: no wrapping), coloured only
    on a terminal without NO_COLOR: colour never changes the layout."""
    from llmdoctor.render.layout import output_width, paint

    color = _use_color(sys.stdout) if color is None else color
    width = output_width(sys.stdout) if width == 0 else width
    return "\n".join(paint(line, color) for line in layout(report, width)) + "\n"


def render_nagios(report: Report) -> str:
    from llmdoctor.render.oneline import render_nagios as nagios

    return nagios(report)


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "nagios": render_nagios,
}
