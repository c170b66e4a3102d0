"""/metrics across vLLM versions (real excerpts in tests/fixtures/vllm/*.prom), prometheus_client's own
exposition for two-sample rates, and truncated or garbage text."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.prom import parse_exposition
from llmdoctor.knowledge.vllm.metrics import parse_vllm_metrics, preemption_rate, prefix_hit_rate_between
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "vllm"


def test_v1_0_10_renamed_and_deprecated_names_with_engine_label():
    m = parse_vllm_metrics((FIX / "metrics_v1_0.10_ps617.prom").read_text())
    assert m.kv_usage_name == "vllm:kv_cache_usage_perc"
    assert m.kv_usage == pytest.approx(9.75010481363281e-06)
    assert m.prefix_queries == 32.0 and m.prefix_hits == 0.0  # new name preferred over the deprecated gpu_ one
    assert m.engines == 1


def test_early_v1_old_names():
    m = parse_vllm_metrics((FIX / "metrics_v1_early_ps318.prom").read_text())
    assert m.kv_usage_name == "vllm:gpu_cache_usage_perc" and m.kv_usage == 0.0
    assert m.running == 0.0 and m.waiting == 0.0


def test_v0_help_only_and_cut_off_type_line():
    exp = parse_exposition((FIX / "metrics_v0_help_functionary263.prom").read_text())
    assert exp.samples == ()  # HELP/TYPE only, the last one truncated: nothing to read, no error


def test_histogram_buckets_of_a_second_engine():
    exp = parse_exposition((FIX / "metrics_dp_buckets_22227.prom").read_text())
    assert {s.label("engine") for s in exp.samples} == {"1"}
    assert parse_vllm_metrics((FIX / "metrics_dp_buckets_22227.prom").read_text()).engines == 1


def test_counter_exposed_with_total_suffix():
    m = parse_vllm_metrics((FIX / "metrics_counter_prometheus_client.prom").read_text())
    assert m.preemptions_total == 3.0


def _exposition(preemptions: float, queries: float, hits: float, prefix_caching: str = "True") -> str:
    """What vLLM V1 exposes, produced by prometheus_client itself (as vLLM does)."""
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

    reg = CollectorRegistry()
    labels = ["model_name", "engine"]
    Counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", labels, registry=reg) \
        .labels("m", "0").inc(preemptions)
    Counter("vllm:prefix_cache_queries", "Prefix cache queries", labels, registry=reg).labels("m", "0").inc(queries)
    Counter("vllm:prefix_cache_hits", "Prefix cache hits", labels, registry=reg).labels("m", "0").inc(hits)
    Gauge("vllm:num_requests_waiting", "waiting", labels, registry=reg).labels("m", "0").set(4)
    Gauge("vllm:kv_cache_usage_perc", "KV", labels, registry=reg).labels("m", "0").set(0.97)
    info = Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
                 ["block_size", "enable_prefix_caching", "gpu_memory_utilization", "num_gpu_blocks"], registry=reg)
    info.labels("16", prefix_caching, "0.9", "2666").set(1)
    h = Histogram("vllm:request_queue_time_seconds", "queue", labels, registry=reg)
    h.labels("m", "0").observe(4.0)
    p = Histogram("vllm:request_prefill_time_seconds", "prefill", labels, registry=reg)
    p.labels("m", "0").observe(0.5)
    return generate_latest(reg).decode()


def test_rate_between_two_samples_never_a_raw_total():
    a = parse_vllm_metrics(_exposition(100, 1000, 100))
    b = parse_vllm_metrics(_exposition(130, 3000, 200))
    r = preemption_rate(a, b, 10.0)
    assert r.preemptions == 30 and r.per_minute == pytest.approx(180.0) and not r.restarted
    assert prefix_hit_rate_between(a, b) == pytest.approx(0.05)
    assert preemption_rate(a, a, 10.0).preemptions == 0  # a large total alone is no rate
    assert preemption_rate(b, a, 10.0).restarted  # counter went back: restart


def test_cache_config_and_histograms():
    m = parse_vllm_metrics(_exposition(0, 0, 0, prefix_caching="False"))
    assert m.prefix_caching_enabled is False
    assert m.cache_config["num_gpu_blocks"] == "2666"
    assert m.queue_time.mean == 4.0 and m.prefill_time.mean == 0.5
    assert m.kv_usage == 0.97 and m.waiting == 4


def test_truncated_and_mixed_garbage_keeps_the_good_lines():
    text = _exposition(5, 0, 0) + "vllm:num_requests_running{engine=\"0\" 3\n<html>proxy error</html>\n# TYPE x coun"
    m = parse_vllm_metrics(text)
    assert m.preemptions_total == 5 and m.waiting == 4


def test_nothing_but_garbage_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_exposition("<html><body>502 Bad Gateway</body></html>")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_garbage_gives_parse_error_or_samples(text):
    try:
        parse_vllm_metrics(text)
    except ParseError:
        pass
