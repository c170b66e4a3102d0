"""SGLang's /metrics (`--enable-metrics`), across its renames.

Gauges are summed over label sets (tp_rank, dp_rank, model_name); token usage and cache
hit rate take the largest. Names from python/sglang/srt/metrics/collector.py; the inter-token
histogram was `sglang:time_per_output_token_seconds` before `sglang:inter_token_latency_seconds`.
"""
from __future__ import annotations

from llmdoctor.model import Record, record
from llmdoctor.knowledge.prom import Exposition, Histo, histo, parse_exposition

ITL = ("sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds")
RETRACTED_TOTAL = ("sglang:num_retracted_requests_total",)
RETRACTED_GAUGE = ("sglang:num_retracted_reqs",)


# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class SglangMetrics(Record):
    running: float | None = None
    queued: float | None = None
    token_usage: float | None = None  # 0..1
    cache_hit_rate: float | None = None  # 0..1, of the last prefill batch
    max_total_num_tokens: float | None = None
    retracted_total: float | None = None  # counter, since start
    retracted_now: float | None = None  # gauge: retracted in the last logged interval
    prompt_tokens: float | None = None
    cached_tokens: float | None = None
    requests: float | None = None
    ttft: Histo | None = None
    itl: Histo | None = None
    itl_name: str | None = None
    queue_time: Histo | None = None

    @property
    def mean_prompt_tokens(self) -> float | None:
        """Prompt tokens per request since start: prompt_tokens_total / requests (or TTFT count)."""
        n = self.requests or (self.ttft.count if self.ttft else None)
        return self.prompt_tokens / n if self.prompt_tokens is not None and n else None


def _max(exp: Exposition, name: str) -> float | None:
    return max((s.value for s in exp.get(name)), default=None)


def metrics_from_exposition(exp: Exposition) -> SglangMetrics:
    itl, itl_name = histo(exp, *ITL)
    return SglangMetrics(
        running=exp.total("sglang:num_running_reqs"),
        queued=exp.total("sglang:num_queue_reqs"),
        token_usage=_max(exp, "sglang:token_usage"),
        cache_hit_rate=_max(exp, "sglang:cache_hit_rate"),
        max_total_num_tokens=exp.total("sglang:max_total_num_tokens"),
        retracted_total=exp.total(*RETRACTED_TOTAL),
        retracted_now=exp.total(*RETRACTED_GAUGE),
        prompt_tokens=exp.total("sglang:prompt_tokens_total"),
        cached_tokens=exp.total("sglang:cached_tokens_total"),
        requests=exp.total("sglang:num_requests_total"),
        ttft=histo(exp, "sglang:time_to_first_token_seconds")[0],
        itl=itl, itl_name=itl_name,
        queue_time=histo(exp, "sglang:queue_time_seconds")[0],
    )


def parse_sglang_metrics(text: str) -> SglangMetrics:
    """Raises ParseError when the text holds no samples at all."""
    return metrics_from_exposition(parse_exposition(text))


def is_sglang_exposition(text: str) -> bool:
    return "sglang:" in text
