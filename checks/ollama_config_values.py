"""CONFIG_NOT_APPLIED in Ollama: values Ollama cannot parse, and OLLAMA_HOST with a scheme but no port."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-unparseable-value", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="An OLLAMA_* value Ollama cannot read (it uses the default, reads true, or binds another port)",
       engines=("ollama",))
def unparseable_value(ollama_config: OllamaConfig, ollama_log: OllamaLogSummary | None = None,
                      ollama_deployment: str | None = None):
    from llmdoctor.knowledge.ollama.env import parse_problem
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import OLLAMA_UNIT, container_env_recheck, edit, reload_and_restart
    from llmdoctor.knowledge.ollama.deployment import container_name

    unit = (getattr(ollama_deployment, "name", None) if ollama_deployment == "systemd" else None) or OLLAMA_UNIT

    problems = []
    for name, (value, where) in sorted(ollama_config.assigned.items()):
        why = parse_problem(name, value, ollama_config.version)
        if why:
            problems.append((name, value, where, why))
    warned = ollama_log.invalid_env if ollama_log is not None else None
    if not problems and not (warned and warned.count):
        return
    evidence = [Evidence(where, f"{name}={value}: {why}") for name, value, where, why in problems]
    if warned is not None:
        evidence += evs(warned.examples[:3])
    names = ", ".join(p[0] for p in problems) or "see the WARN line"
    yield Finding(
        Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
        f"Ollama does not read {names} the way it is written",
        evidence,
        Fix("Write numbers as plain digits, booleans as 1/0 or true/false, durations as Go durations (10m, 24h, -1) "
            "or seconds, and OLLAMA_HOST as host:port (0.0.0.0:11434, no http://). Then restart and compare the "
            "`server config` line in the log.",
            container_env_recheck(container_name(ollama_deployment)) if ollama_deployment == "container" else
            (edit(unit), reload_and_restart(unit), f"journalctl -u {unit} -b | grep 'server config'")),
    )
