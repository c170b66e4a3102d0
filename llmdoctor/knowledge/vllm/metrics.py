"""vLLM's /metrics, across the renames of every version.

`VllmMetrics` is one scrape reduced to the figures the checks use, whichever name the
running version exposes. Counters are only meaningful as a change between two scrapes:
`preemption_rate` turns two samples into a rate and never reports a raw total as a rate.
"""
from __future__ import annotations

from llmdoctor.model import Record
from llmdoctor.knowledge.prom import Exposition, Histo, histo, parse_exposition

KV_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
PREEMPTIONS = ("vllm:num_preemptions_total", "vllm:num_preemptions")
PREFIX_QUERIES = ("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total",
                  "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries")
PREFIX_HITS = ("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total",
               "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits")
ITL = ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds")


# The records here are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: a frozen dataclass costs ~1 ms of start-up to define.
class VllmMetrics(Record):
    __slots__ = ("running", "waiting", "swapped", "kv_usage", "kv_usage_name", "preemptions_total", "prefix_queries",
                 "prefix_hits", "prefix_hit_rate_v0", "queue_time", "prefill_time", "decode_time", "itl", "itl_name",
                 "cache_config", "engines")

    def __init__(
        self,
        running: float | None = None,
        waiting: float | None = None,
        swapped: float | None = None,
        kv_usage: float | None = None,
        kv_usage_name: str | None = None,
        preemptions_total: float | None = None,
        prefix_queries: float | None = None,
        prefix_hits: float | None = None,
        prefix_hit_rate_v0: float | None = None,
        queue_time: Histo | None = None,
        prefill_time: Histo | None = None,
        decode_time: Histo | None = None,
        itl: Histo | None = None,
        itl_name: str | None = None,
        cache_config: dict[str, str] | None = None,
        engines: int = 0,
    ) -> None:
        self.running = running
        self.waiting = waiting
        self.swapped = swapped  # V0 only
        self.kv_usage = kv_usage  # 0..1, max over engines
        self.kv_usage_name = kv_usage_name
        self.preemptions_total = preemptions_total
        self.prefix_queries = prefix_queries
        self.prefix_hits = prefix_hits
        self.prefix_hit_rate_v0 = prefix_hit_rate_v0  # V0 gauge, 0..1
        self.queue_time = queue_time
        self.prefill_time = prefill_time
        self.decode_time = decode_time
        self.itl = itl
        self.itl_name = itl_name
        self.cache_config = {} if cache_config is None else cache_config
        self.engines = engines  # distinct `engine` label values (data parallel)

    @property
    def prefix_caching_enabled(self) -> bool | None:
        v = self.cache_config.get("enable_prefix_caching")
        return None if v is None else v.strip().lower() in ("true", "1", "yes")


def metrics_from_exposition(exp: Exposition) -> VllmMetrics:
    kv_name = exp.first_present(*KV_USAGE)
    kv = max((s.value for s in exp.get(kv_name)), default=None) if kv_name else None
    itl, itl_name = histo(exp, *ITL)
    info = exp.get("vllm:cache_config_info")
    engines = {s.label("engine") for s in exp.samples if s.name.startswith("vllm:") and s.label("engine")}
    return VllmMetrics(
        running=exp.total("vllm:num_requests_running"),
        waiting=exp.total("vllm:num_requests_waiting"),
        swapped=exp.total("vllm:num_requests_swapped"),
        kv_usage=kv,
        kv_usage_name=kv_name,
        preemptions_total=exp.total(*PREEMPTIONS),
        prefix_queries=exp.total(*PREFIX_QUERIES),
        prefix_hits=exp.total(*PREFIX_HITS),
        prefix_hit_rate_v0=exp.total("vllm:gpu_prefix_cache_hit_rate"),
        queue_time=histo(exp, "vllm:request_queue_time_seconds")[0],
        prefill_time=histo(exp, "vllm:request_prefill_time_seconds")[0],
        decode_time=histo(exp, "vllm:request_decode_time_seconds")[0],
        itl=itl,
        itl_name=itl_name,
        cache_config={k: v for k, v in info[0].labels} if info else {},
        engines=len(engines),
    )


def parse_vllm_metrics(text: str) -> VllmMetrics:
    """Raises ParseError when the text holds no samples at all."""
    return metrics_from_exposition(parse_exposition(text))


def is_vllm_exposition(text: str) -> bool:
    return "vllm:" in text


class PreemptionRate(Record):
    __slots__ = ("preemptions", "seconds", "restarted")

    def __init__(self, preemptions: float, seconds: float, restarted: bool = False) -> None:
        self.preemptions = preemptions  # during the interval
        self.seconds = seconds
        self.restarted = restarted  # counter went backwards: the server restarted in between

    @property
    def per_minute(self) -> float:
        return self.preemptions * 60.0 / self.seconds if self.seconds > 0 else 0.0


def preemption_rate(first: VllmMetrics, second: VllmMetrics, seconds: float) -> PreemptionRate | None:
    """Preemptions per interval from two scrapes `seconds` apart; None without the counter."""
    a, b = first.preemptions_total, second.preemptions_total
    if a is None or b is None or seconds <= 0:
        return None
    if b < a:  # reset by a restart: all of b happened since then
        return PreemptionRate(b, seconds, restarted=True)
    return PreemptionRate(b - a, seconds)


def prefix_hit_rate_between(first: VllmMetrics, second: VllmMetrics) -> float | None:
    if None in (first.prefix_queries, second.prefix_queries, first.prefix_hits, second.prefix_hits):
        return None
    dq = second.prefix_queries - first.prefix_queries  # type: ignore[operator]
    dh = second.prefix_hits - first.prefix_hits  # type: ignore[operator]
    if dq <= 0 or dh < 0:
        return None
    return dh / dq
