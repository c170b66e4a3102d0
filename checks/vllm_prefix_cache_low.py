"""vLLM prefix-cache hit rate is low while it processes many prompt tokens."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import VLLM_LOW_PREFIX_HIT_PCT, VLLM_PREFIX_MIN_LINES, VLLM_PREFIX_MIN_QUERIED_TOKENS
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample


def _low(pct, ev):
    return Finding(
        Cause.PREFILL, Severity.INFO, f"vLLM's prefix cache hits only {pct:.1f} % of prompt tokens", ev,
        Fix("Prompts rarely share a cached head. Put the long, fixed part (system prompt, tools, documents) first "
            "and keep it byte-identical across requests - no timestamps or user ids before it - so vLLM reuses "
            "its KV blocks instead of recomputing them."),
        confidence=Confidence.LOW)


@check(id="vllm-prefix-cache-low", cause=Cause.PREFILL,
       purpose="vLLM prefix-cache hit rate is low while it processes many prompt tokens",
       engines=("vllm",), needs=("vllm_log", "vllm_metrics"))
def prefix_cache_low(vllm_log: VllmLog | None = None, vllm_metrics: VllmMetricsSample | None = None):
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        busy = [s for s in scan.recent_stats if s.prefix_hit_pct is not None and (s.prompt_tps or 0) > 0]
        if len(busy) >= VLLM_PREFIX_MIN_LINES:
            mean = sum(s.prefix_hit_pct for s in busy) / len(busy)
            prompt = sum(s.prompt_tps for s in busy) / len(busy)
            gen = sum(s.generation_tps or 0 for s in busy) / len(busy)
            if mean < VLLM_LOW_PREFIX_HIT_PCT and prompt > gen:
                yield _low(mean, [Evidence(scan.source, busy[-1].text),
                                  Evidence(scan.source, f"mean prefix cache hit rate {mean:.1f} % over {len(busy)} "
                                                        f"stats lines; prompt {prompt:.0f} tokens/s vs generation "
                                                        f"{gen:.0f} tokens/s")])
                return
    if vllm_metrics is not None and vllm_metrics.second is not None:
        from llmdoctor.knowledge.vllm.metrics import prefix_hit_rate_between

        rate = prefix_hit_rate_between(vllm_metrics.first, vllm_metrics.second)
        pct = None if rate is None else rate * 100
        dq = (vllm_metrics.second.prefix_queries or 0) - (vllm_metrics.first.prefix_queries or 0)
        if pct is not None and pct < VLLM_LOW_PREFIX_HIT_PCT and dq >= VLLM_PREFIX_MIN_QUERIED_TOKENS:
            yield _low(pct, [Evidence(vllm_metrics.source, f"prefix cache hits/queries {pct:.1f} % "
                                                           f"over {dq:g} queried tokens")])
