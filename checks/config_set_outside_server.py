"""An engine variable set only in a shell or console session, which a server running as a service or app never reads."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.declared import DeclaredSettings
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

MAX_EVIDENCE = 6
SESSION = {"export": "a shell (export)", "shell": "a shell, not even exported", "cmd-set": "a cmd.exe console (set)",
           "powershell": "a PowerShell session ($env:)"}


def _contradiction(a, ollama_config, ollama_log):
    """(evidence, proven) that the server runs with another value than the line sets: proven by
    the server config line; inferred from a truncation limit (a client's num_ctx, a Modelfile or
    an Ollama older than 0.5.13 would show the same)."""
    if ollama_config is not None and ollama_config.origin(a.name) == "server config log line":
        have = ollama_config.get(a.name)
        if have is not None and have.strip('"') != (a.value or "").strip('"'):
            line = ollama_config.server_config_line
            return Evidence(line.source if line else "server config", f"{a.name}:{have} in the server config line"), True
    if a.name == "OLLAMA_CONTEXT_LENGTH" and ollama_log is not None and ollama_log.truncation_limits:
        try:
            wanted = int(a.value or "")
        except ValueError:
            return None
        limits = [n for n in ollama_log.truncation_limits if n < wanted]
        if limits and ollama_log.truncations.examples:
            ex = ollama_log.truncations.examples[0]
            return Evidence(ex.source, f"{ex.line}  [prompts cut at {limits[0]:,} tokens, not {wanted:,}]"), False
    return None


@check(id="config-set-outside-server", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="An engine variable set only in a shell or console session, which a server running as a service or app never reads",
       needs=("declared_settings",))
def set_outside_server(
    declared_settings: DeclaredSettings | None = None,
    ollama_config: OllamaConfig | None = None,
    ollama_log: OllamaLogSummary | None = None,
    ollama_deployment: str | None = None,
):
    if declared_settings is None:
        return
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.weighing import confirmed_by_server

    session = [a for a in declared_settings.assignments if a.problem is None and a.value is not None
               and a.session_only and not declared_settings.reaches_server(a)]
    confirmed = [(a, e) for a, e in ((a, confirmed_by_server(a, ollama_config)) for a in session) if e is not None]
    if confirmed:
        yield Finding(
            Cause.CONFIG_NOT_APPLIED, Severity.INFO,
            f"{', '.join(dict.fromkeys(a.name for a, _ in confirmed))} set in a shell, and the server runs with "
            "the same value: applied (the server's own record outweighs the shell line)",
            [x for a, e in confirmed[:MAX_EVIDENCE // 2] for x in (Evidence(f"{a.source}:{a.lineno}", a.line), e)],
            Fix("Nothing to change for these. Keep the value in the server's own environment (service, app or "
                "container), so it survives a restart that does not come from this shell."))
    loose = [a for a in session if all(a is not b for b, _ in confirmed)]
    if not loose:
        return
    proofs = [p for p in (_contradiction(a, ollama_config, ollama_log) for a in loose) if p is not None]
    ev = [Evidence(f"{a.source}:{a.lineno}", a.line) for a in loose[:MAX_EVIDENCE]] + [p for p, _ in proofs[:2]]
    remedy = env(ollama_deployment, **{a.name: a.value for a in loose if a.name.startswith("OLLAMA_")}) \
        if any(a.name.startswith("OLLAMA_") for a in loose) else None
    names = ", ".join(dict.fromkeys(a.name for a in loose))
    title = (f"{names} {'is' if len(loose) == 1 else 'are'} set only in {SESSION[loose[0].form]}, "
             f"which the server does not read")
    if proofs:
        title += ": it runs with another value" if proofs[0][1] else ", and the log shows another value in effect"
    summary = (f"A variable set with `{loose[0].form}` reaches only {loose[0].reaches}. Ollama started as a service "
            f"(systemd on Linux), as the desktop app (Windows, macOS) or in a container has its own environment: "
            f"set it there and restart the server"
            + ("." if proofs else ", then confirm it in the start-up log (the `server config` line). If the server "
               "was started by hand from that same shell, the value did reach it."))
    yield Finding(
        Cause.CONFIG_NOT_APPLIED, Severity.WARNING, title, ev,
        remedy_fix(summary, remedy) if remedy is not None else
        Fix(summary, ("# set it in the server's own environment (systemd drop-in, app environment, or container)",)),
        confidence=Confidence.HIGH if any(proven for _, proven in proofs) else Confidence.MEDIUM)
