"""A KV cache type (or flash attention) the operator set that Ollama did not apply: the cache
stays f16, so each slot takes two to four times the memory the setting was chosen to save."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

CHECK_LOAD = "journalctl -u ollama | grep -iE 'flash attention|kv cache'  # what the last loads applied"
# f16 against each quantized type's bits per element (ggml: q8_0 8.5, q4_0 4.5)
GROWTH = {"q8_0": "about twice", "q4_0": "about 3.5 times"}


@check(id="ollama-kv-type-not-applied", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="OLLAMA_KV_CACHE_TYPE was set but Ollama kept an f16 KV cache (flash attention off or unsupported, "
               "or a type this model or version refuses)",
       engines=("ollama",))
def kv_type_not_applied(ollama_log: OllamaLogSummary, ollama_config: OllamaConfig | None = None,
                        ollama_deployment: str | None = None):
    signal = ollama_log.settings_ignored
    if not signal.count:
        return
    from llmdoctor.judge.fixes import env, remedy_fix
    from llmdoctor.judge.ollama import config_evidence, evs
    from llmdoctor.knowledge.ollama.marks import (FLASH_ATTENTION_OFF, FLASH_ATTENTION_UNSUPPORTED, TYPE_UNSUPPORTED,
                                                  kv_refusal)

    read = [(e, kv_refusal(e.line)) for e in signal.examples]
    why = {r[0] for _, r in read if r}
    asked = next((r[1] for _, r in read if r and r[1] not in ("", "f16")), "")
    if not asked:  # no quantized type was asked for (type="" lines; flash attention alone is Ollama's own default)
        return
    evidence = evs([e for e, r in read if r][:3])
    if ollama_config is not None and ollama_config.get("OLLAMA_KV_CACHE_TYPE"):
        evidence.append(config_evidence(ollama_config, "OLLAMA_KV_CACHE_TYPE"))
    grows = GROWTH.get(asked, "more than")
    title = (f"OLLAMA_KV_CACHE_TYPE={asked} never took effect: Ollama kept an f16 KV cache, {grows} the memory "
             f"per slot that {asked} would take")
    if FLASH_ATTENTION_UNSUPPORTED in why:
        fix = Fix("Flash attention cannot run on this GPU or model, and Ollama quantizes the KV cache only with it: "
                  "the cache stays f16 whatever OLLAMA_KV_CACHE_TYPE says. Size OLLAMA_NUM_PARALLEL and the context "
                  "for an f16 cache (`llmdoctor plan`), and remove OLLAMA_KV_CACHE_TYPE so the setting says what runs.",
                  (CHECK_LOAD,))
    elif FLASH_ATTENTION_OFF in why:
        fix = remedy_fix(f"A quantized KV cache ({asked}) needs flash attention, and it was off. Turn it on in the "
                         f"server's own environment and restart; the next load should log no such warning (if it says "
                         f"flash attention is not supported by the GPU or model, the cache can only be f16).",
                         env(ollama_deployment, verify=(CHECK_LOAD,), OLLAMA_FLASH_ATTENTION=1, OLLAMA_KV_CACHE_TYPE=asked))
    elif TYPE_UNSUPPORTED in why and asked not in GROWTH:
        fix = remedy_fix(f"{asked!r} is not a KV cache type Ollama knows: use q8_0 (half of f16, little quality "
                         f"loss), q4_0 or f16.", env(ollama_deployment, verify=(CHECK_LOAD,), OLLAMA_KV_CACHE_TYPE="q8_0"))
    else:
        fix = Fix(f"This model cannot use a {asked} KV cache (Ollama's runner for it supports f16 only): size "
                  f"OLLAMA_NUM_PARALLEL and the context for an f16 cache (`llmdoctor plan`), or use a model whose "
                  f"runner quantizes its cache.", (CHECK_LOAD,))
    yield Finding(Cause.CONFIG_NOT_APPLIED, Severity.WARNING, title, evidence, fix)
