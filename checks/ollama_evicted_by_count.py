"""MODEL_UNLOAD from the scheduler's bookkeeping: a runner for another model started and the count
of loaded runners did not grow, too soon for keep-alive to have unloaded the one before.

At INFO Ollama names no eviction before 0.11.5 (the scheduler's own lines are DEBUG), but it logs
`loaded runners count=N` after every load: two models taking turns at count=1 is the eviction,
and each return of a model is a full reload."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-evicted-by-count", cause=Cause.MODEL_UNLOAD,
       purpose="Another model's runner started while Ollama's loaded-runner count stayed put: a model was unloaded for it",
       engines=("ollama",))
def evicted_by_count(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None,
                     ollama_deployment: str | None = None):
    log = ollama_log
    if log.evictions.count:
        return  # the scheduler said so itself (ollama-model-evicted)
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.ollama import config_evidence, counted_evictions, embed_and_chat, keep_alive_seconds

    keep = keep_alive_seconds(ollama_config)
    found = counted_evictions(log, keep)
    if not found:
        return
    e = found[0]
    models = sorted({x.evicted for x in found} | {x.by.model for x in found})
    ev = [Evidence(x.source, x.line) for x in e.examples]
    new = e.by
    if new.ctx_size:
        slots = f"{new.parallel} slot(s) x {new.ctx_size // max(new.parallel or 1, 1):,} tokens" if new.parallel else ""
        ev.append(Evidence(log.sources[0] if log.sources else "ollama log",
                           f"the runner for {new.model} reserved KV for --ctx-size {new.ctx_size:,}"
                           + (f" ({slots})" if slots else "") + f"; loaded runners stayed at {e.count}, "
                           f"{e.after_s:g} s after {e.evicted} was loaded (keep-alive {keep:g} s)"))
    limit = ollama_config.get("OLLAMA_MAX_LOADED_MODELS") if ollama_config is not None else None
    at_limit = bool(limit and limit.isdecimal() and int(limit) == e.count)
    if at_limit:
        ev.append(config_evidence(ollama_config, "OLLAMA_MAX_LOADED_MODELS"))
    pair = embed_and_chat(log)
    why = (f"OLLAMA_MAX_LOADED_MODELS={limit} is reached, so each load unloads another model. " if at_limit else
           "The new runner's weights plus the KV cache it reserves (slots x context) did not fit next to the loaded "
           "model, so the scheduler unloaded it. ")
    why += ("An embedding model and a chat model are taking turns: every embedding call unloads the chat model and "
            "the next chat reloads it. Keep both: allow both loaded (OLLAMA_MAX_LOADED_MODELS), make each reserve "
            "less (fewer slots, OLLAMA_NUM_PARALLEL, and a smaller context: an embedding model needs neither "
            "many slots nor a chat-sized num_ctx), or give the embedding model the CPU (num_gpu 0 in its requests "
            "or Modelfile)." if pair else
            "Keep the models that alternate loaded together: allow as many loaded as you use "
            "(OLLAMA_MAX_LOADED_MODELS), and make each reserve less (OLLAMA_NUM_PARALLEL, num_ctx) so they fit, "
            "or use fewer models.")
    why += " A client that sends its own short keep_alive unloads models too: check what it sends."
    yield Finding(
        Cause.MODEL_UNLOAD, Severity.WARNING,
        f"Ollama unloaded a loaded model to load another {len(found)} time(s) ({', '.join(models[:4])}): "
        f"the loaded-runner count stayed at {e.count}",
        ev, remedy_fix(why, env(ollama_deployment, OLLAMA_MAX_LOADED_MODELS=max(len(models), e.count + 1))),
        confidence=Confidence.MEDIUM)
