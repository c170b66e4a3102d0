"""What Ollama's answers say about themselves: the figures every /api/generate, /api/chat and
/api/embed answer ends with (prompt_eval_count, prompt_eval_duration, total_duration, ...; or
`ollama run --verbose`'s summary), pasted in a ticket or kept as evidence
(knowledge/ollama/response.py). They hold two causes no log line needs to show: a prompt cut to
the context (its token count is exactly the size a runner cuts to), and prompts whose
evaluation is most of the wait."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


def _source(log) -> str:
    return log.sources[0] if log.sources else "ollama answer"


@check(id="ollama-answer-truncated", cause=Cause.CONTEXT_TRUNCATION,
       purpose="An answer's prompt_eval_count is exactly the size Ollama's runner cuts an over-long prompt to",
       engines=("ollama",))
def answer_truncated(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None,
                     ollama_deployment: str | None = None):
    log = ollama_log
    if not log.answers or log.truncations.count or any(s.kind == "truncated" for s in log.cpp.shifts):
        return  # no answer, or the log's own truncation lines say it (ollama-context-truncation)
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.ollama import answer_contexts, cut_answers

    cut = cut_answers(log.answers, answer_contexts(log, ollama_config))
    if not cut:
        return
    first = cut[0]
    a, n = first.answer, first.n_ctx
    ev = [Evidence(c.answer.source, c.answer.line) for c in cut[:3]]
    ev.append(Evidence(a.source, f"prompt_eval_count {a.prompt_tokens:,}: {first.how}"
                                 + ("" if first.known else f" ({n:,} was Ollama's default num_ctx)")))
    target = 4 * n  # how much longer the prompt was, the count cannot tell: room for 4x what was kept
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING,
        f"{len(cut)} answer(s) evaluated {a.prompt_tokens:,} prompt tokens, exactly what Ollama keeps of a prompt "
        f"longer than a {n:,}-token context: the model saw only part of it",
        ev,
        remedy_fix(f"The request ran with a {n:,}-token context and the runner cut the prompt to fit, silently. Raise "
                   f"the context to hold the whole prompt and the answer (about {target:,} tokens, within what the "
                   f"model was trained for): OLLAMA_CONTEXT_LENGTH in the server's environment (Ollama >= 0.5.13) or "
                   f"PARAMETER num_ctx in the model's Modelfile. A num_ctx sent per request works too, but a client "
                   f"that sends different values reloads the model at each change; the OpenAI-compatible endpoints "
                   f"send none. KV memory grows with the context: check `ollama ps` still shows 100% GPU.",
                   env(ollama_deployment, OLLAMA_CONTEXT_LENGTH=target)),
        confidence=Confidence.HIGH if first.known else Confidence.MEDIUM)


@check(id="ollama-answer-prefill", cause=Cause.PREFILL,
       purpose="Ollama's answers spent most of their time evaluating the prompt (prompt_eval_duration)",
       engines=("ollama",))
def answer_prefill(ollama_log: OllamaLogSummary):
    log = ollama_log
    if not log.answers or log.cpp.prefill_dominates() is not None:
        return  # no answer, or the runner's timing lines say it (ollama-prefill)
    from llmdoctor.judge.ollama import answer_prefill as judge

    w = judge(log.answers)
    if w is None:
        return
    a = w.worst
    rate = f" at {w.rate:,.0f} tokens/s" if w.rate else ""
    gen = f"; generation ran at {w.eval_rate:,.1f} tokens/s" if w.eval_rate else ""
    ev = [Evidence(a.source, a.line),
          Evidence(_source(log), f"prompt evaluation {w.prompt_s:.1f} s of {w.busy_s:.1f} s ({w.share:.0%}) over "
                                 f"{w.answers} answer(s): {w.tokens:,} prompt tokens{rate}{gen}")]
    yield Finding(
        Cause.PREFILL, Severity.WARNING,
        f"Evaluating the prompt took {w.share:.0%} of the answers' time ({w.prompt_s:.1f} s for {w.tokens:,} "
        f"tokens{rate})",
        ev,
        Fix("The wait is the prompt, not the answer. Send less of it or let the cache serve it: keep the fixed "
            "part (system prompt, tools, documents) first and byte-identical from request to request so the "
            "runner reuses it, and trim history and retrieved text. A smaller context (num_ctx) keeps prompts "
            "short and the KV cache on the GPU; and layers left on the CPU evaluate prompts many times slower: "
            "`ollama ps` should show 100% GPU (lower num_ctx or OLLAMA_NUM_PARALLEL, or use a smaller model, "
            "until every layer fits).",
            ("ollama ps  # PROCESSOR: 100% GPU means every layer is offloaded",)),
        confidence=Confidence.MEDIUM if w.answers > 1 else Confidence.LOW)
