"""Ollama dropped the oldest chat messages so the conversation fits the context: the model no longer
sees them, and nothing tells the user."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-history-truncated", cause=Cause.CONTEXT_TRUNCATION,
       purpose="Ollama dropped the oldest messages of chats that no longer fit the context (DEBUG log)",
       engines=("ollama",))
def history_truncated(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None,
                      ollama_deployment: str | None = None):
    signal = ollama_log.history_truncations
    if not signal.count:
        return
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.ollama import evs
    from llmdoctor.knowledge.ollama.marks import messages_kept, trained_context

    kept = [k for k in (messages_kept(e.line) for e in signal.examples) if k is not None]
    least = f" (as few as the last {min(kept)} message(s) kept)" if kept else ""
    limits = sorted(set(ollama_log.truncation_limits))
    limit = f"the {limits[-1]:,}-token context" if limits else "the context"
    # twice the context in force, where it is known, and never above what the model was trained for
    now = limits[-1] if limits else _context(ollama_config)
    trained = trained_context(ollama_log.ctx_clamped.examples)
    target = min(2 * now, trained) if now and trained else 2 * now if now else None
    change = env(ollama_deployment, OLLAMA_CONTEXT_LENGTH=target) if target and target > now else None
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"{signal.count} chat request(s) lost their oldest messages to fit {limit}{least}: the model answered "
        f"without them",
        evs(signal.examples[:3]),
        remedy_fix("Conversations outgrew the context. Raise it within what the model was trained for and what memory "
            "holds (num_ctx per request or Modelfile, or OLLAMA_CONTEXT_LENGTH in the server's environment; the KV "
            "cache grows with it, so check `ollama ps` still shows 100% GPU), or have the client summarise or trim "
            "its history. The log line's `truncated=` counts the messages kept, not the ones dropped.",
            change),
    )


def _context(config) -> int | None:
    value = (config.get("OLLAMA_CONTEXT_LENGTH") or "") if config is not None else ""
    return int(value) if value.isdecimal() and int(value) > 0 else None
