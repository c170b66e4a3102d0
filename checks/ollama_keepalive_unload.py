"""Models reload after idle gaps longer than the keep-alive, or are being stopped now."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import OLLAMA_IDLE_RELOAD_MIN_S, OLLAMA_KEEP_ZERO_REPEATS, OLLAMA_SLOW_LOAD_S
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel


@check(id="ollama-keepalive-unload", cause=Cause.MODEL_UNLOAD,
       purpose="Models reload after idle gaps longer than the keep-alive, or are being stopped now",
       engines=("ollama",), needs=("ollama_config", "ollama_log", "ollama_ps"))
def keepalive_unload(
    ollama_config: OllamaConfig | None = None,
    ollama_log: OllamaLogSummary | None = None,
    ollama_ps: tuple[LoadedModel, ...] | None = None,
    ollama_deployment: str | None = None,
):
    if ollama_log is None and not ollama_ps:
        return  # nothing reloaded or stopping to show (and the figures module stays unimported)
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import config_evidence, evs, keep_alive_seconds
    from llmdoctor.judge.fixes import env, remedy_fix

    keep = keep_alive_seconds(ollama_config)
    evidence = []
    reloads = []
    if ollama_log is not None:
        reloads = [ld for ld in ollama_log.loads if ld.idle_before_s is not None
                   and ld.idle_before_s >= max(keep, OLLAMA_IDLE_RELOAD_MIN_S) and (ld.load_seconds or 0) >= OLLAMA_SLOW_LOAD_S]
        for ld in reloads[-3:]:
            line = next((e for e in ld.examples if "started in" in e.line), ld.examples[-1] if ld.examples else None)
            if line is not None:
                evidence.append(Evidence(line.source, f"{line.line}  [after {format_seconds(ld.idle_before_s)} idle]"))
    stopping = [m for m in ollama_ps or () if m.stopping]
    evidence += [Evidence(m.source, m.line) for m in stopping]
    # keep_alive 0 (a client's, or OLLAMA_KEEP_ALIVE=0): the scheduler unloads after every request
    # (server/sched.go, DEBUG), and each next request loads the model again
    zero = ollama_log.keep_alive_zero if ollama_log is not None else None
    unloaded_each_time = (not reloads and zero is not None and zero.count >= OLLAMA_KEEP_ZERO_REPEATS
                          and ollama_log.load_count >= OLLAMA_KEEP_ZERO_REPEATS)
    if unloaded_each_time:
        evidence += evs(zero.examples[:2]) + evs([e for ld in ollama_log.loads[-2:] for e in ld.examples[:1]])
    if not evidence:
        return
    if ollama_config is not None:
        evidence.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    worst = max((ld.load_seconds or 0 for ld in reloads), default=0)
    title = (f"The model was unloaded after {format_seconds(keep)} idle and reloaded {len(reloads)} time(s), "
             f"up to {worst:.1f} s each, before answering" if reloads else
             f"Requests run with keep_alive 0: the model was unloaded {zero.count} time(s) as soon as a request "
             f"finished, and loaded again for the next" if unloaded_each_time else
             "A model is being unloaded right now (`Stopping...`); the next request reloads it")
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING, title, evidence,
        remedy_fix("Keep the model in memory longer: set OLLAMA_KEEP_ALIVE (e.g. 24h, or -1 for forever) in the service, "
            "or send keep_alive with requests (a client that sends keep_alive 0 overrides the service's value); "
            "warm it after a restart with an empty request.",
            env(ollama_deployment, verify=("curl http://127.0.0.1:11434/api/generate -d '{\"model\":\"MODEL\",\"keep_alive\":-1}'",), OLLAMA_KEEP_ALIVE="24h")),
    )
