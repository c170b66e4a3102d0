"""One-line forms of a report: the monitoring-plugin line (`--format nagios`) and the
summary line `diagnose --quiet` prints.

The plugin line follows the Nagios plugin convention that Icinga, Checkmk, Sensu and
Zabbix read: `LLMDOCTOR <STATE> - <text> | <performance data>`, with the exit code of the
same state (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN). Performance data is
`'label'=value[unit];warn;crit;min;max`, taken from the report's figures.
"""
from __future__ import annotations

import re

from llmdoctor.model import ExitCode, Figure, Report, TargetReport

STATE = {ExitCode.OK: "OK", ExitCode.WARNING: "WARNING", ExitCode.CRITICAL: "CRITICAL", ExitCode.UNKNOWN: "UNKNOWN"}
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")


def _one_line(text: str) -> str:
    return " ".join(text.replace("|", "/").split())


def target_text(t: TargetReport) -> str:
    """A target in a few words: its worst finding, or why it could not be diagnosed."""
    if not t.reachable:
        return f"unreachable ({t.errors[0] if t.errors else 'no reason given'})"
    if not t.diagnosed:
        return f"could not diagnose ({t.could_not_diagnose})"
    if not t.findings:
        return "no problems found in what was examined"
    worst = t.findings[0]  # findings are sorted worst first
    more = f" (+{len(t.findings) - 1} more)" if len(t.findings) > 1 else ""
    return f"{worst.cause.value}: {worst.title}{more}"


def _texts(report: Report) -> str:
    if not report.targets:
        return "nothing was diagnosed"
    if len(report.targets) == 1:
        return _one_line(target_text(report.targets[0]))
    return "; ".join(_one_line(f"{t.target}: {target_text(t)}") for t in report.targets)


def _number(v: float) -> str:
    return f"{v:.6g}"


def _perf(label: str, f: Figure) -> str:
    levels = ";".join("" if v is None else _number(v) for v in (f.warn, f.crit))
    unit = f.unit if f.unit in ("s", "%", "B", "KB", "MB", "GB", "TB", "c") else ""
    minimum = ";0" if f.value >= 0 else ""
    return f"'{label}'={_number(f.value)}{unit};{levels}{minimum}"


def target_figures(t: TargetReport) -> list[Figure]:
    counts = [Figure(f"findings_{s}", float(sum(1 for f in t.findings if f.severity.value == s)))
              for s in ("critical", "warning", "info")]
    return counts + list(t.figures)


def render_nagios(report: Report) -> str:
    state = STATE[ExitCode(report.exit_code())]
    fleet = len(report.targets) > 1
    perf = [_perf(_LABEL_UNSAFE.sub("_", f"{t.target}_{f.name}" if fleet else f.name), f)
            for t in report.targets for f in target_figures(t)]
    return f"LLMDOCTOR {state} - {_texts(report)}" + (f" | {' '.join(perf)}" if perf else "") + "\n"


def render_summary_line(report: Report) -> str:
    return f"{STATE[ExitCode(report.exit_code())]}: {_texts(report)}\n"
