"""A line meant to set an engine variable assigns nothing (export A:B, set A = B, curly quotes, setx A=B),
or sets it with cmd.exe's quotes kept in the value (set LLAMA_ARG_HOST="0.0.0.0")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import replace

from llmdoctor.judge.fixes import OLLAMA_UNIT, assignment_line, env, remedy_fix
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.declared import DeclaredSettings
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

MAX_EVIDENCE = 6


def _value(a) -> str:
    """The value the line meant to assign."""
    return a.intended if a.intended is not None else a.value if a.value is not None else "VALUE"


def _dropped_by_systemd(warned) -> list:
    """Assignments named in systemd's "Invalid environment assignment, ignoring: ..." lines."""
    from llmdoctor.knowledge.env_forms import assignments_in

    out = []
    for e in warned.examples if warned is not None else ():
        body = e.line.split("ignoring:", 1)[-1]
        out += [a for a in assignments_in("Environment=" + body.strip(), e.source) if a.problem or a.value]
    return out


@check(id="config-assignment-ignored", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="A line meant to set an engine variable assigns nothing (export A:B, set A = B, curly quotes, setx A=B)",
       needs=("declared_settings", "ollama_log"))
def assignment_ignored(
    declared_settings: DeclaredSettings | None = None,
    ollama_log: OllamaLogSummary | None = None,
    ollama_config: OllamaConfig | None = None,
):
    bad = [a for a in (declared_settings.assignments if declared_settings is not None else ()) if a.problem]
    warned = ollama_log.unit_warnings if ollama_log is not None else None
    if not bad and not (warned and warned.count):
        return
    ev = [Evidence(f"{a.source}:{a.lineno}", a.line) for a in bad[:MAX_EVIDENCE]]
    if warned is not None:
        ev += [Evidence(e.source, e.line) for e in warned.examples[:2]]
    dropped = _dropped_by_systemd(warned)
    for a in dropped:
        if ollama_config is not None and ollama_config.origin(a.name) == "server config log line":
            line = ollama_config.server_config_line
            ev.append(Evidence(line.source if line else "server config",
                               f"{a.name}:{ollama_config.get(a.name)} in the server config line"))
    bad += dropped
    names = ", ".join(dict.fromkeys(a.name for a in bad)) or "an Environment= line"
    why = bad[0].problem if bad else ("systemd dropped an Environment= line it could not parse (typographic "
                                      "quotes, a missing '=', an unbalanced quote)")
    fixed = tuple(assignment_line(a.form, a.name, _value(a)) for a in bad[:MAX_EVIDENCE] if a.form != "systemd")
    unit = {a.name: _value(a) for a in bad[:MAX_EVIDENCE] if a.form == "systemd"}
    kept = bad and all(a.value is not None for a in bad)  # set, but as cmd.exe keeps it: quotes included
    yield Finding(
        Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
        f"{names} {'is' if len(bad) <= 1 else 'are'} set with the quotes in the value: the server reads "
        f"{bad[0].value}, not {bad[0].intended}" if kept else
        f"{names} {'is' if len(bad) <= 1 else 'are'} never set: the line assigns nothing, so the server runs with "
        f"its default",
        ev,
        _fix(f"{why[0].upper() + why[1:]}. Write each as below, restart the server, and check the value in its "
             f"start-up log (Ollama: the `server config` line).", fixed, unit))


def _fix(summary: str, fixed: tuple[str, ...], unit: dict[str, str]) -> Fix:
    """The corrected lines in their own forms; a unit's in llmdoctor's drop-in, as a remedy the merge takes."""
    if not unit:
        return Fix(summary, fixed)
    fix = remedy_fix(summary, env("systemd", unit=OLLAMA_UNIT, restart="edit+reload", **unit))
    return replace(fix, commands=fixed) if fixed else fix
