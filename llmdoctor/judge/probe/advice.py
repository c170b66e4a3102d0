"""The fix for each probe verdict, per engine: the setting, the command, the snippet.

Kept apart from the verdicts (which only measure and compare) so a check reads as
"this verdict -> this advice".
"""
from __future__ import annotations

from llmdoctor.judge.thresholds import LLAMACPP_SMALL_SLOT_TOKENS

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, SGLANG, VLLM
from llmdoctor.judge.fixes import OLLAMA_UNIT, env, flags, llama, remedy_fix, unit_file_name
from llmdoctor.model import Fix

OLLAMA_SERVICE = unit_file_name(OLLAMA_UNIT)


def _ollama(**values):
    """Ollama's variables in llmdoctor's drop-in for the service (written by one pasteable command)."""
    return env(None, unit=OLLAMA_SERVICE, restart="edit", **values)


def source(url: str) -> str:
    return f"probe {url}"


def parallel_fix(engine: str, slots: int | None, context: int | None) -> Fix:
    want = 4 if not slots or slots < 2 else slots * 2
    if engine == OLLAMA:
        return remedy_fix(f"Let Ollama serve {want} requests of a model at once (OLLAMA_NUM_PARALLEL). Each slot "
                   "reserves its own KV cache of num_ctx tokens: check `ollama ps` stays 100% GPU after the restart.",
                   _ollama(OLLAMA_NUM_PARALLEL=want))
    if engine == LLAMACPP:
        # each slot keeps its context, and no less than what llamacpp-slot-context calls small:
        # following this fix must not create that finding
        per_slot = max(context, LLAMACPP_SMALL_SLOT_TOKENS) if context else None
        return remedy_fix(f"Start llama-server with {want} slots. An explicit -np splits -c across the slots, so "
                   f"multiply -c to keep each request's context (or leave -np out: recent builds then use 4 "
                   "slots sharing one unified KV cache).",
                   llama({"-np": want, "-c": per_slot * want if per_slot else "<slots x per-request context>"},
                         model="..."))
    if engine == VLLM:
        return remedy_fix("vLLM ran one sequence at a time: raise --max-num-seqs (default 256, or 1024 on some GPUs).",
                   flags("vllm serve", {"--max-num-seqs": 64}, model="MODEL ..."))
    if engine == SGLANG:
        return remedy_fix("SGLang ran requests one after another: raise --max-running-requests (auto-sized when unset, "
                   "then capped by the KV pool: see its start-up `max_running_requests=` line).",
                   flags("SGLang", {"--max-running-requests": max(want, 32)}, model="MODEL ..."))
    return Fix("Raise the server's setting for parallel requests (slots, workers or max sequences).")


def bandwidth_fix(engine: str) -> Fix:
    return Fix("Nothing to tune in the server: concurrent streams already share the hardware (decoding is "
               "limited by memory bandwidth, or by compute on a CPU). A smaller or more quantized model, the "
               "whole model on the GPU, or more hardware makes each stream faster; fewer slots only trade "
               "speed per stream for queueing.")


def prefill_fix(engine: str) -> Fix:
    if engine == OLLAMA:
        return Fix("Shorten prompts or keep their beginning stable: Ollama reuses the cached prefix of the "
                   "previous prompt in a slot. Prefill is far faster with every layer on the GPU "
                   "(`ollama ps` should say 100% GPU); a larger num_batch helps on a GPU.",
                   ("ollama ps",))
    if engine == LLAMACPP:
        return remedy_fix("Keep the start of prompts stable so llama-server's prompt cache (cache_prompt, on by "
                   "default) skips it, add --cache-reuse 256 for shifted prefixes, offload every layer to "
                   "the GPU (-ngl 99) and use a larger batch (-b 2048 -ub 512) on a GPU.",
                   llama({"--cache-reuse": 256, "-ngl": 99}, model="..."))
    if engine == VLLM:
        return remedy_fix("Enable prefix caching (default in the V1 engine) and keep shared prompt prefixes "
                   "(system prompt, documents) identical at the start of each request.",
                   flags("vllm serve", {"--enable-prefix-caching": ""}, model="MODEL ..."))
    if engine == SGLANG:
        return remedy_fix("Keep shared prompt prefixes (system prompt, tools, documents) identical and first, so "
                   "SGLang's radix cache (on unless --disable-radix-cache) skips their prefill; "
                   "--schedule-policy lpm runs requests sharing a cached prefix together.",
                   flags("SGLang", {"--schedule-policy": "lpm"}, model="MODEL ..."))
    return Fix("Shorten prompts, or reuse a stable prompt prefix where the server caches prefixes.")


def stall_fix(engine: str) -> Fix:
    if engine == VLLM:
        return remedy_fix("Chunked prefill trades prompt speed for smooth streams: a smaller "
                   "--max-num-batched-tokens budget keeps each step short while a long prompt is processed.",
                   flags("vllm serve", {"--enable-chunked-prefill": "", "--max-num-batched-tokens": 2048},
                         model="MODEL ..."))
    if engine == LLAMACPP:
        return remedy_fix("A smaller batch makes llama-server process a long prompt in shorter pieces between "
                   "decode steps, at some cost in prefill speed.", llama({"-b": 512, "-ub": 256}, model="..."))
    if engine == OLLAMA:
        return Fix("A smaller num_batch (model parameter, default 512) processes long prompts in shorter "
                   "pieces between decode steps, at some cost in prefill speed.",
                   config='PARAMETER num_batch 256   # in a Modelfile; then `ollama create`')
    if engine == SGLANG:
        return remedy_fix("A smaller --chunked-prefill-size splits long prompts into shorter pieces between decode "
                   "steps, at some cost in prefill speed.",
                   flags("SGLang", {"--chunked-prefill-size": 2048}, model="MODEL ..."))
    return Fix("Process long prompts in smaller chunks (the server's batch or chunked-prefill setting).")


def unload_fix(engine: str) -> Fix:
    if engine == OLLAMA:
        return remedy_fix("Keep the model in memory between requests: OLLAMA_KEEP_ALIVE (default 5m) decides when "
                   "an idle model is unloaded; -1 keeps it loaded (or send \"keep_alive\": -1 with requests).",
                   _ollama(OLLAMA_KEEP_ALIVE=-1))
    return Fix("The first request paid for a cold start (model load or warm-up): keep the server and its "
               "model loaded, and warm it up after each restart with one short request.")


def queue_full_fix(engine: str) -> Fix:
    if engine == OLLAMA:
        return remedy_fix("Ollama refuses requests once OLLAMA_MAX_QUEUE (default 512) are waiting: serve more at "
                   "once (OLLAMA_NUM_PARALLEL). A deeper queue does not serve more, it turns refusals into "
                   "long waits (ollama-deep-queue): let clients retry a 503 with back-off instead.",
                   _ollama(OLLAMA_NUM_PARALLEL=4))
    return Fix("The server refuses requests when its queue or slots are full: add slots or queue capacity, "
               "or spread the load.")
