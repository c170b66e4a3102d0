"""PREFILL in SGLang: long prompts, and the radix cache serves little of them - every request
pays its whole prompt's prefill (agent fleets sharing a long system prompt should hit it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import long_prefills, setting
from llmdoctor.judge.thresholds import SGLANG_LONG_PROMPT, SGLANG_LOW_HIT, SGLANG_PREFILL_LINES
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog, SglangMetricsSample
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-prefix-cache-low", cause=Cause.PREFILL,
       purpose="SGLang prefills long prompts with a low radix-cache hit rate (#cached-token, sglang:cache_hit_rate)",
       engines=("sglang",), needs=("sglang_log", "sglang_metrics"))
def prefix_cache_low(
    sglang_log: SglangLog | None = None,
    sglang_metrics: SglangMetricsSample | None = None,
    sglang_cmdline: SglangCmdline | None = None,
    sglang_server_info: dict | None = None,
):
    off, _ = setting("disable_radix_cache", sglang_cmdline, sglang_server_info, sglang_log)
    if off:
        return  # sglang-radix-cache-off says so
    ev = []
    for scan in (sglang_log.scans if sglang_log is not None else ()):
        long = long_prefills(scan)
        if len(long) < SGLANG_PREFILL_LINES:
            continue
        new = sum(b.new_tokens for b in long)
        cached = sum(b.cached_tokens or 0 for b in long)
        if cached / (new + cached) < SGLANG_LOW_HIT:
            ev += [Evidence(scan.source, long[0].text), Evidence(scan.source, long[-1].text)]
            ev.append(Evidence(scan.source, f"{len(long)} prefill batches of prompts >= {SGLANG_LONG_PROMPT} tokens: "
                                            f"{cached:,} of {new + cached:,} prompt tokens from the radix cache "
                                            f"({cached / (new + cached):.0%})"))
            break
    m = sglang_metrics.latest if sglang_metrics is not None else None
    if not ev and m is not None and m.cache_hit_rate is not None and m.cache_hit_rate < SGLANG_LOW_HIT \
            and (m.mean_prompt_tokens or 0) >= SGLANG_LONG_PROMPT:
        ev.append(Evidence(sglang_metrics.source, f"sglang:cache_hit_rate {m.cache_hit_rate:.3f} with "
                                                  f"{m.mean_prompt_tokens:,.0f} prompt tokens per request"))
    if not ev:
        return
    yield Finding(
        Cause.PREFILL, Severity.WARNING,
        "SGLang recomputes long prompts: its radix cache serves little of them", ev,
        remedy_fix("Time to first token is spent prefilling prompts the cache could have served. Put what requests "
            "share (system prompt, tool definitions, documents) first and byte-identical - a timestamp or "
            "request id near the top defeats the cache - and let requests sharing a prefix run together with "
            "--schedule-policy lpm (default fcfs). A smaller --chunked-prefill-size keeps streams flowing while "
            "long prompts prefill.", sglang(sglang_cmdline, schedule_policy="lpm")),
        confidence=Confidence.MEDIUM)
