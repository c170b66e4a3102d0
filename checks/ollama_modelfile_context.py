"""CONFIG_NOT_APPLIED in Ollama: a model's own num_ctx (PARAMETER num_ctx in its Modelfile) decides
its context, not OLLAMA_CONTEXT_LENGTH, and a loaded model can run with yet another one.

Ollama builds a request's options as its defaults (num_ctx = OLLAMA_CONTEXT_LENGTH) < the model's
parameters < the request's options (server/routes.go modelOptions, every version), so the
server-wide setting never reaches a model whose Modelfile sets num_ctx; v0.11.0-v0.12.10 also
raise gpt-oss to at least 8192 unless VRAM is low (server/routes.go, `max(opts.NumCtx, 8192)`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import OLLAMA_GPT_OSS_MIN_CONTEXT

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.ps import LoadedModel

SHOW = "ollama show MODEL --parameters  # the model's own num_ctx: it beats OLLAMA_CONTEXT_LENGTH"
GPT_OSS = ("gptoss", "gpt-oss")


@check(id="ollama-modelfile-context", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="A model's own num_ctx (Modelfile PARAMETER) overrides OLLAMA_CONTEXT_LENGTH, or the loaded model "
               "runs with another context than it",
       engines=("ollama",))
def modelfile_context(ollama_show: dict, ollama_config: OllamaConfig | None = None,
                      ollama_ps: tuple[LoadedModel, ...] | None = None):
    from llmdoctor.knowledge.ollama.show import model_parameters, same_model

    for p in model_parameters(ollama_show):
        n = p.num_ctx()
        if n is None or "num_ctx" in p.session:
            continue  # (a session's /set parameter num_ctx is that session's own)
        name = p.model or "this model"
        ev = Evidence(p.source, p.lines["num_ctx"])
        ran = [m for m in ollama_ps or () if m.context_length and m.context_length != n and same_model(m.name, p.model)]
        if ran:
            m = ran[0]
            why = (f"gpt-oss is raised to at least {OLLAMA_GPT_OSS_MIN_CONTEXT:,} on Ollama 0.11.0-0.12.10 unless VRAM is low, and "
                   if p.architecture in GPT_OSS and m.context_length == OLLAMA_GPT_OSS_MIN_CONTEXT > n else
                   "Ollama caps num_ctx at the context the model was trained for, and " if m.context_length < n else "")
            yield Finding(
                Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
                f"{m.name} runs with {m.context_length:,} tokens of context although its Modelfile sets num_ctx {n:,}",
                (ev, Evidence(m.source, m.line)),
                Fix(f"The loaded context is not the model's num_ctx: {why}a num_ctx in a request's options beats "
                    "the Modelfile (a client that sends its own). KV memory grows with the context (check PROCESSOR "
                    "in `ollama ps`): make clients send the num_ctx you want, or none.", (SHOW, "ollama ps")))
            continue
        env = _server_context(ollama_config)
        if env is not None and env == n:
            continue
        if env is None and _known(ollama_config):
            continue  # the server sets no context of its own: the Modelfile's is simply the model's
        said = f"OLLAMA_CONTEXT_LENGTH={env:,} does not apply to {name}" if env else \
            f"{name} ignores OLLAMA_CONTEXT_LENGTH"
        yield Finding(
            Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
            f"{said}: its Modelfile sets num_ctx {n:,}, which wins over the server-wide setting",
            (ev,),
            Fix(f"Ollama takes num_ctx from the request, else the model's Modelfile, and only then from "
                f"OLLAMA_CONTEXT_LENGTH, so the server's environment cannot change {name}'s context. Pass num_ctx "
                "in the request's options, or create a derived model with another `PARAMETER num_ctx` "
                "(`ollama create NAME -f Modelfile`).", (SHOW,)),
            confidence=Confidence.HIGH if env else Confidence.MEDIUM)


def _server_context(config) -> int | None:
    """OLLAMA_CONTEXT_LENGTH as someone set it (not the version's default)."""
    if config is None or config.is_default("OLLAMA_CONTEXT_LENGTH"):
        return None
    value = (config.get("OLLAMA_CONTEXT_LENGTH") or "").strip().strip('"')
    return int(value) if value.isdecimal() and int(value) > 0 else None


def _known(config) -> bool:
    """The server's environment was seen (its config line, or a setting from a unit or process)."""
    return config is not None and (config.server_config_line is not None
                                   or any(not o.startswith("default") for o in config.origins.values()))
