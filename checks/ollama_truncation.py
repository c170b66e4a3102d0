"""CONTEXT_TRUNCATION in Ollama: prompts cut to the context window, or rejected as too long."""
from llmdoctor.checks import check
from llmdoctor.model import Cause, Finding, Fix, Severity


@check(id="ollama-context-truncation", cause=Cause.CONTEXT_TRUNCATION,
       purpose="Ollama truncated prompts to the context window or rejected prompts longer than the context")
def context_truncation(ollama_log):
    t, errors = ollama_log.truncations, ollama_log.context_errors
    if not (t.count or errors.count):
        return
    from llmdoctor.engines.ollama_figures import dropin, dropin_commands, evs

    limits = ", ".join(str(n) for n in ollama_log.truncation_limits) or "?"
    need = max(ollama_log.truncation_max_prompt, 4096)
    target = 1 << (need - 1).bit_length()
    title = (f"{t.count} prompt(s) were silently truncated to the context window (limit {limits} tokens, "
             f"prompts up to {ollama_log.truncation_max_prompt})" if t.count else
             f"{errors.count} request(s) were rejected: the prompt is longer than the context length")
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING, title, evs(t.examples[:3]) + evs(errors.examples[:2]),
        Fix(f"The model only saw the end of these prompts. Raise the context to fit them (about {target} tokens): "
            f"OLLAMA_CONTEXT_LENGTH on the server or num_ctx per request - KV memory grows with it, so check "
            f"`ollama ps` still shows 100% GPU - or send shorter prompts.",
            dropin_commands(), dropin(OLLAMA_CONTEXT_LENGTH=target)),
    )
