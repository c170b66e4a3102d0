"""Several `ollama ps` / /api/ps snapshots read as a time series: what changed between them.

One snapshot says how a model is loaded now; two say what moved it. A keep-alive that went
from `Forever` to a countdown was replaced by a client's `keep_alive` (a request's value wins
over OLLAMA_KEEP_ALIVE); a context or size that changed is a reload with other options (a
client's `num_ctx`); a larger CPU share is the model spilling. A countdown that only moved on
is time passing, and says nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:
    from llmdoctor.knowledge.ollama.ps import LoadedModel, PsChange


def _ev(c: PsChange) -> list[Evidence]:
    return [Evidence(c.before.source or "ollama ps", f"{c.before.line}  [earlier snapshot]"),
            Evidence(c.after.source or "ollama ps", f"{c.after.line}  [later snapshot]")]


@check(id="ollama-ps-keepalive-shortened", cause=Cause.MODEL_UNLOAD,
       purpose="A model kept Forever in one `ollama ps` snapshot counts down in a later one: a client's keep_alive replaced the server's",
       engines=("ollama",))
def keepalive_shortened(ollama_ps: tuple[LoadedModel, ...]):
    from llmdoctor.knowledge.ollama.ps import compare

    for c in compare(ollama_ps):
        if c.kind == "keep_alive_shortened":
            yield Finding(
                Cause.MODEL_UNLOAD, Severity.WARNING,
                f"{c.model} was kept loaded forever, then its keep-alive became a countdown "
                f"('{c.after.until or c.after.expires_at}'): a request's keep_alive replaced the server's; it will "
                "unload and the next request reloads it",
                _ev(c),
                Fix("A request's keep_alive overrides OLLAMA_KEEP_ALIVE for the model it loads or touches. Make the "
                    "client omit keep_alive or send -1 (Open WebUI: Settings > Models > keep_alive; the OpenAI-"
                    "compatible API cannot send it, so set it on the native API callers).",
                    "ollama ps  # UNTIL should stay Forever after the clients' next requests"),
            )
            return


@check(id="ollama-ps-reloaded-other-options", cause=Cause.MODEL_UNLOAD,
       purpose="The same model shows another context or size in a later `ollama ps` snapshot: it was reloaded with other options",
       engines=("ollama",))
def reloaded_other_options(ollama_ps: tuple[LoadedModel, ...]):
    from llmdoctor.knowledge.ollama.ps import compare

    for c in compare(ollama_ps):
        if c.kind in ("context_changed", "size_changed"):
            what = (f"context {c.before.context_length} -> {c.after.context_length}" if c.kind == "context_changed"
                    else f"size {c.before.size / 1e9:.1f} GB -> {c.after.size / 1e9:.1f} GB")
            yield Finding(
                Cause.MODEL_UNLOAD, Severity.WARNING,
                f"{c.model} was reloaded between snapshots with other options ({what}): clients asking for "
                "different num_ctx (or num_parallel) make Ollama unload and load it again",
                _ev(c),
                Fix("Give every client the same options: set the context once on the server (OLLAMA_CONTEXT_LENGTH, "
                    "or a Modelfile PARAMETER num_ctx) and stop clients sending their own num_ctx.",
                    "ollama ps  # SIZE and CONTEXT should stay the same between runs"),
            )
            return


@check(id="ollama-ps-moved-to-cpu", cause=Cause.CPU_SPILL,
       purpose="A later `ollama ps` snapshot shows more of the same model in system memory than an earlier one",
       engines=("ollama",))
def moved_to_cpu(ollama_ps: tuple[LoadedModel, ...]):
    from llmdoctor.knowledge.ollama.ps import compare

    for c in compare(ollama_ps):
        if c.kind == "moved_to_cpu":
            yield Finding(
                Cause.CPU_SPILL, Severity.WARNING,
                f"{c.model} moved from {c.before.processor} to {c.after.processor} between snapshots: "
                "a reload with a larger context (or less free VRAM) put layers on the CPU",
                _ev(c),
                Fix("Find what the reload asked for (a client's num_ctx, more slots, another model holding VRAM) and "
                    "keep the load inside the GPU: a smaller context, OLLAMA_KV_CACHE_TYPE=q8_0 with "
                    "OLLAMA_FLASH_ATTENTION=1, or fewer models at once (OLLAMA_MAX_LOADED_MODELS).",
                    "ollama ps  # PROCESSOR should read 100% GPU"),
            )
            return
