"""One model is loaded again and again with different context sizes (clients sending different num_ctx)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import OLLAMA_RELOAD_CHURN_LOADS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-reload-churn", cause=Cause.MODEL_UNLOAD,
       purpose="One model is loaded again and again with different context sizes (clients sending different num_ctx)",
       engines=("ollama",))
def reload_churn(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    from llmdoctor.judge.ollama import evs
    from llmdoctor.judge.fixes import env, remedy_fix

    for model, sizes in ollama_log.ctx_sizes_by_model.items():
        loads = sum(sizes.values())
        if len(sizes) <= 1 or loads < OLLAMA_RELOAD_CHURN_LOADS:
            continue
        examples = [e for ld in ollama_log.loads if ld.model == model for e in ld.examples[:1]]
        figures = ", ".join(f"{c} ({n}x)" for c, n in sorted(sizes.items()))
        yield Finding(
            Cause.MODEL_UNLOAD, Severity.WARNING,
            f"Model {model} was loaded {loads} times with {len(sizes)} different context sizes: each change restarts the runner",
            [Evidence("ollama log", f"runner context sizes for {model}: {figures}")] + evs(examples[-4:]),
            remedy_fix("Clients send different num_ctx (or parallel settings change), and every change reloads the model. "
                "Pin the context on the server (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile) and "
                "make every client send the same num_ctx or none.",
                env(ollama_deployment, OLLAMA_CONTEXT_LENGTH=max(sizes))),
        )
        return
