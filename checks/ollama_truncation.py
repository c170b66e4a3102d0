"""CONTEXT_TRUNCATION in Ollama: prompts cut to the context window, shifted, or rejected as too long."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-context-truncation", cause=Cause.CONTEXT_TRUNCATION,
       purpose="Ollama truncated prompts to the context window, shifted a full context, or rejected prompts longer than it",
       engines=("ollama",))
def context_truncation(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None,
                       ollama_config: OllamaConfig | None = None):
    t, errors, cpp = ollama_log.truncations, ollama_log.context_errors, ollama_log.cpp
    if not (t.count or errors.count or cpp.shift_count or cpp.exceeded_count):
        return
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.knowledge.ollama.marks import trained_context
    src = ollama_log.sources[0] if ollama_log.sources else "ollama log"
    cut = [s for s in cpp.shifts if s.kind == "truncated"]
    limits = sorted(set(ollama_log.truncation_limits) | {s.n_ctx for s in cpp.shifts if s.n_ctx})
    biggest = max([ollama_log.truncation_max_prompt]
                  + [(s.n_ctx or 0) + (s.dropped or 0) for s in cut] + [(cpp.exceeded_max or (0, 0))[0]])
    need = max(biggest, 4096)
    target = 1 << (need - 1).bit_length()
    lim = ", ".join(f"{n:,}" for n in limits) or "?"
    if t.count or cut:
        n = t.count + len(cut) if not t.count else t.count
        title = (f"{n} prompt(s) were silently cut to the {lim}-token context window"
                 + (f" (the largest had about {biggest:,} tokens)" if biggest else ""))
    elif cpp.shift_count:
        title = f"The {lim}-token context filled and the runner dropped older tokens {cpp.shift_count} time(s) (context shift)"
    else:
        title = f"{errors.count + cpp.exceeded_count} request(s) were rejected: the prompt is longer than the context length"
    ev = evs(t.examples[:3]) + [Evidence(src, s.text) for s in cpp.shifts[:3]] + evs(errors.examples[:2]) \
        + [Evidence(src, x) for x in cpp.exceeded[:2]]
    server = _server_context(ollama_config)
    overridden = bool(server and limits and server > max(limits))  # the server's default did not govern them
    trained = trained_context(ollama_log.ctx_clamped.examples)
    if trained and biggest > trained:  # no context setting lets the model see these prompts whole
        fix = Fix(f"The model saw part of these prompts, longer than the {trained:,} tokens it was trained for (a larger "
                  f"context is cut to that): use a model trained for longer, or shorter prompts.", ("ollama show MODEL",))
    elif overridden:
        ev.append(Evidence(ollama_config.server_config_line.source if ollama_config.server_config_line else src,
                           f"OLLAMA_CONTEXT_LENGTH:{server} in the server config line"))
        fix = Fix(f"The model only saw part of these prompts. OLLAMA_CONTEXT_LENGTH is already {server:,} in the "
                  f"server's environment, yet these requests ran with {lim}: a num_ctx given per request (the "
                  f"client's options.num_ctx) or per model (PARAMETER num_ctx in its Modelfile) wins over the "
                  f"server's default. Find it and raise it to about {target:,} tokens or remove it; some builds "
                  f"(ipex-llm's Ollama: IPEX_LLM_NUM_CTX) cap the context themselves.",
                  ("ollama show MODEL --parameters  # a num_ctx here overrides OLLAMA_CONTEXT_LENGTH",))
    else:
        target = min(target, trained) if trained else target
        fix = remedy_fix(f"The model only saw part of these prompts. Raise the context to fit them (about {target:,} tokens, "
                  f"within what the model was trained for): num_ctx in the request's options, PARAMETER num_ctx in a "
                  f"Modelfile, or OLLAMA_CONTEXT_LENGTH in the server's own environment (Ollama >= 0.5.13). `/set "
                  f"parameter num_ctx` in `ollama run` changes only that interactive session, and the "
                  f"OpenAI-compatible endpoints send no num_ctx. KV memory grows with the context, so check "
                  f"`ollama ps` still shows 100% GPU - or send shorter prompts.",
                  env(ollama_deployment, OLLAMA_CONTEXT_LENGTH=target))
    yield Finding(Cause.CONTEXT_TRUNCATION, Severity.WARNING, title, ev, fix,
                  confidence=Confidence.MEDIUM if overridden else Confidence.HIGH)


def _server_context(config) -> int | None:
    """OLLAMA_CONTEXT_LENGTH as the server printed it (so its version knows the variable)."""
    if config is None or config.origin("OLLAMA_CONTEXT_LENGTH") != "server config log line":
        return None
    value = config.get("OLLAMA_CONTEXT_LENGTH") or ""
    return int(value) if value.isdecimal() and int(value) > 0 else None


@check(id="ollama-prefill", cause=Cause.PREFILL,
       purpose="The runner's timing lines show prompt evaluation taking most of each request",
       engines=("ollama",))
def prefill(ollama_log: OllamaLogSummary):
    c = ollama_log.cpp
    found = c.prefill_dominates()
    if found is None:
        return
    share, worst = found
    src = ollama_log.sources[0] if ollama_log.sources else "ollama log"
    yield Finding(
        Cause.PREFILL, Severity.WARNING,
        f"Prompt evaluation takes {share:.0%} of the runner's request time ({c.requests_timed} requests)",
        [Evidence(src, worst.text),
         Evidence(src, f"prompt eval {c.prompt_ms_total / 1000:.1f} s vs generation {c.eval_ms_total / 1000:.1f} s "
                       f"over {c.requests_timed} requests")],
        Fix("Long prompts dominate, so every request waits for its prompt to be computed. Keep the fixed part of "
            "the prompt (system prompt, tools, documents) first and identical so the slot's cache serves it, give "
            "each conversation its own slot (OLLAMA_NUM_PARALLEL) so caches are not overwritten, offload all layers "
            "to the GPU, and trim what is sent. Engine timings are hints: time the client side too.",
            ("journalctl -u ollama | grep 'prompt eval time'",)),
        confidence=Confidence.MEDIUM)
