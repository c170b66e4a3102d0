"""PREFILL in llama-server: prompt evaluation takes most of each request (print_timing lines)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import LLAMACPP_CACHE_MISS_TOKENS, LLAMACPP_PREFILL_MIN_REQUESTS, LLAMACPP_PREFILL_SHARE
from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog


@check(id="llamacpp-prefill", cause=Cause.PREFILL,
       purpose="llama-server spends most of each request evaluating the prompt",
       engines=("llamacpp",))
def prefill(llamacpp_log: LlamaLog):
    for scan in llamacpp_log.scans:
        found = scan.cpp.prefill_dominates(LLAMACPP_PREFILL_MIN_REQUESTS, LLAMACPP_PREFILL_SHARE)
        if found is None:
            continue
        share, worst = found
        yield Finding(
            Cause.PREFILL, Severity.WARNING,
            f"Prompt evaluation takes {share:.0%} of llama-server's request time ({scan.requests_timed} requests)",
            [Evidence(scan.source, worst.text),
             Evidence(scan.source, f"prompt eval {scan.prompt_ms_total / 1000:.1f} s vs generation "
                                   f"{scan.eval_ms_total / 1000:.1f} s over {scan.requests_timed} requests")],
            remedy_fix("Long prompts dominate. Reuse what is cached: keep the fixed part of the prompt first and identical "
                "so the slot's prompt cache serves it (cache_prompt is on by default; pin a client to a slot with "
                "id_slot), raise the batch sizes for prompt processing (-b 2048 -ub 512, or higher on GPU), "
                "offload all layers to the GPU (-ngl 999), and trim prompts. Engine timings are hints: time the "
                "client side too.",
                llama({"-ngl": 999, "-b": 2048, "-ub": 512})),
            confidence=Confidence.MEDIUM)
        return


@check(id="llamacpp-prompt-cache-miss", cause=Cause.PREFILL,
       purpose="llama-server re-processes a prompt it had cached: the client changed its beginning",
       engines=("llamacpp",))
def prompt_cache_miss(llamacpp_log: LlamaLog):
    for scan in llamacpp_log.scans:
        c = scan.cpp
        w = c.worst_miss
        if w is None:
            continue
        lost = (w.cached - w.matched) if w.cached is not None else None
        share = scan.prompt_ms_total / (scan.prompt_ms_total + scan.eval_ms_total) \
            if scan.prompt_ms_total + scan.eval_ms_total > 0 else None
        full = "re-processing" in w.text
        if not full and (lost is None or lost <= 0 or (lost < LLAMACPP_CACHE_MISS_TOKENS and not (share and share >= LLAMACPP_PREFILL_SHARE))):
            continue
        ev = [Evidence(scan.source, m.text) for m in c.cache_misses[:3]]
        if lost:
            ev.append(Evidence(scan.source, f"the slot held {w.cached:,} tokens; only the first {w.matched:,} still "
                                            f"matched, so {lost:,} were processed again"))
        if share is not None and scan.requests_timed:
            ev.append(Evidence(scan.source, f"prompt evaluation {share:.0%} of request time over "
                                            f"{scan.requests_timed} request(s)"))
        yield Finding(
            Cause.PREFILL, Severity.WARNING,
            (f"llama-server re-processed {lost:,} cached prompt tokens: the prompt stopped matching its cache "
             f"after token {w.matched:,}" if lost else "llama-server re-processes whole prompts: its prompt cache is not reused"),
            ev,
            remedy_fix("The prompt cache only serves an identical prefix. Something before the new message changes on "
                "every turn - a timestamp or date in the system prompt, reordered or rewritten history, tools "
                "listed in a different order, a chat template that drops the reasoning of earlier turns - so "
                "everything after it is computed again. Keep the head of the "
                "prompt byte-identical across turns; send cache_prompt: true on /completion (old builds default to "
                "false); pin a conversation to its slot (id_slot). 'forcing full prompt re-processing' on sliding-"
                "window or hybrid models is a limit of the architecture: --swa-full, or shorter prompts.",
                llama({"--cache-reuse": 256})),
            confidence=Confidence.MEDIUM)
        return
