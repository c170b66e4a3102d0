"""The first request after an idle gap took many times longer than the ones after it (a reload, or an uncached prompt)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import OLLAMA_KEEP_FOREVER_S

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-slow-after-idle", cause=Cause.MODEL_UNLOAD,
       purpose="The first request after an idle gap took many times longer than the ones after it (a reload, or an uncached prompt)",
       engines=("ollama",))
def slow_after_idle(
    ollama_log: OllamaLogSummary,
    ollama_config: OllamaConfig | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.knowledge.ollama.env import format_seconds
    from llmdoctor.judge.ollama import cold_starts, config_evidence, keep_alive_seconds
    from llmdoctor.judge.fixes import env, remedy_fix

    cold = cold_starts(ollama_log.requests)
    if not cold:
        return
    if any(ld.idle_before_s is not None for ld in ollama_log.loads):
        return  # the log shows the loads themselves: ollama-keepalive-unload reads those
    keep = keep_alive_seconds(ollama_config)
    c = max(cold, key=lambda x: x.seconds - x.typical_s)
    ev = [Evidence(c.example.source, f"{c.example.line}  [after {format_seconds(c.idle_s)} without a request]")]
    ev += [Evidence(e.source, e.line) for e in c.warm[:2]]
    ev.append(Evidence("ollama access log", f"{len(cold)} request(s) after a pause took {min(x.seconds for x in cold):.1f}-"
                                            f"{max(x.seconds for x in cold):.1f} s; requests without a pause took "
                                            f"{c.typical_s:.1f} s (median)"))
    forever = keep >= OLLAMA_KEEP_FOREVER_S and ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE")
    if ollama_config is not None and not ollama_config.is_default("OLLAMA_KEEP_ALIVE"):
        ev.append(config_evidence(ollama_config, "OLLAMA_KEEP_ALIVE"))
    alternatives = ("It may also be a prompt the server had not cached (a new conversation's long system prompt "
                    "is computed in full once) or a client that sends its first request with more work.")
    if not forever:
        why = (f"after the {format_seconds(keep)} keep-alive ran out" if c.idle_s > keep else
               "sooner than the server's keep-alive: a client's own keep_alive, or another model that took its place")
        yield Finding(
            Cause.MODEL_UNLOAD, Severity.WARNING,
            f"Requests after a pause take {c.seconds / max(c.typical_s, 0.1):.0f}x as long as the others "
            f"({c.seconds:.1f} s after {format_seconds(c.idle_s)} idle, {c.typical_s:.1f} s warm): most likely the "
            f"model was unloaded and loaded again",
            ev,
            remedy_fix(f"The usual reason is a reload, {why}. Keep the model in memory across the gaps: a longer "
                "OLLAMA_KEEP_ALIVE (24h, or -1 for ever), keep_alive in the requests (clients may send a short one), "
                "enough room for every model in use (OLLAMA_MAX_LOADED_MODELS), or a warm-up request on a timer. "
                + alternatives + " A debug log (OLLAMA_DEBUG=1) shows the unload ('timer expired, expiring to unload').",
                env(ollama_deployment, verify=("curl http://127.0.0.1:11434/api/generate -d '{\"model\":\"MODEL\",\"keep_alive\":-1}'",), OLLAMA_KEEP_ALIVE="24h")),
            confidence=Confidence.MEDIUM)
    else:
        yield Finding(
            Cause.PREFILL, Severity.INFO,
            f"Requests after a pause take {c.seconds / max(c.typical_s, 0.1):.0f}x as long as the others, although the "
            f"keep-alive ({format_seconds(keep)}) keeps the model loaded",
            ev,
            Fix("With the model still loaded, the usual reason is a prompt that was not cached: the slot's cache "
                "was reused by another conversation, or the prompt's beginning changed. Keep fixed content (system "
                "prompt, tools) first and identical; more slots (OLLAMA_NUM_PARALLEL) keep more conversations cached.",
                ("journalctl -u ollama | grep -E 'starting (llama server|runner|llama-server)|started in'",)),
            confidence=Confidence.LOW)
