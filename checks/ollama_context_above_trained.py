"""A context asked for above what the model was trained for: Ollama cuts it to the trained length,
so raising it further changes nothing and longer prompts are still truncated."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-context-above-trained", cause=Cause.CONTEXT_TRUNCATION,
       purpose="A num_ctx or OLLAMA_CONTEXT_LENGTH above the model's trained context, which Ollama cuts to it",
       engines=("ollama",))
def context_above_trained(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None,
                          ollama_deployment: str | None = None):
    signal = ollama_log.ctx_clamped
    if not signal.count:
        return
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.ollama import evs
    from llmdoctor.knowledge.ollama.marks import context_clamp, trained_context

    pairs = [p for p in (context_clamp(e.line) for e in signal.examples) if p]
    if not pairs:
        return
    asked = max(a for a, _ in pairs)
    trained = trained_context(signal.examples)
    longest = ollama_log.truncation_max_prompt
    truncated = bool(ollama_log.truncations.count) and longest > trained
    title = (f"The context asked for ({asked:,} tokens) is above the {trained:,} the model was trained for: Ollama "
             f"cut it to {trained:,}" + (f", and prompts of up to {longest:,} tokens were truncated" if truncated else ""))
    server = (ollama_config.get("OLLAMA_CONTEXT_LENGTH") or "") if ollama_config is not None else ""
    why = (f"This model cannot attend to more than {trained:,} tokens, whatever num_ctx or OLLAMA_CONTEXT_LENGTH "
           f"says. For longer prompts use a model trained for a longer context; otherwise ")
    if server.isdecimal() and int(server) > trained:  # the server's own default asks too much: lower it
        fix = remedy_fix(why + "set OLLAMA_CONTEXT_LENGTH to at most that, so the memory planned is the memory used.",
                         env(ollama_deployment, OLLAMA_CONTEXT_LENGTH=trained))
    else:  # a client's num_ctx (or a Modelfile's): a server setting would change other models too
        fix = Fix(why + "lower the num_ctx the client sends (or the Modelfile's PARAMETER num_ctx) to at most that, "
                  "so the memory planned is the memory used.", ("ollama show MODEL  # its context length, and any num_ctx",))
    evidence = evs(signal.examples[:2]) + (evs(ollama_log.truncations.examples[:1]) if truncated else [])
    yield Finding(Cause.CONTEXT_TRUNCATION, Severity.WARNING if truncated else Severity.INFO, title, evidence, fix)
