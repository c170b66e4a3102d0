from llmdoctor.judge.probe import thresholds as T
from llmdoctor.judge.probe.verdicts import (HEALTHY, INCONCLUSIVE, PROBLEM, batching, load_concurrency, model_unload,
                                      prefill, prefill_stall, queue_full, queueing)

from .factories import light, parallel_pair, queued_pair, result, sample


def test_queued_pair_is_queueing_with_figures():
    v = queueing(light(queued_pair(), slots=1))
    assert v.kind == PROBLEM
    assert v.figures["overlap_fraction"] == 0.0
    assert "1 slot)" in v.title
    assert any("overlapped 0%" in line for line in v.evidence)


def test_parallel_pair_is_not_queueing():
    assert queueing(light(parallel_pair())).kind == HEALTHY


def test_short_streams_on_a_fast_server_are_not_misread():
    # back to back by a hair, but no extra wait worth the name
    pair = [sample("pair-1", "pair", 2.0, ttft=0.01, n=2, itl=0.001),
            sample("pair-2", "pair", 2.0, ttft=0.012, n=2, itl=0.001)]
    assert queueing(light(pair)).kind == HEALTHY


def test_batching_shares():
    # single stream: 200 tokens/s (itl 5 ms); pair at 190 -> healthy, 100 -> shared, 140 -> in between
    assert batching(light(parallel_pair(itl=1 / 190))).kind == HEALTHY
    shared = batching(light(parallel_pair(itl=1 / 100)))
    assert shared.kind == PROBLEM and shared.figures["share"] == 0.5
    assert batching(light(parallel_pair(itl=1 / 140))).kind == INCONCLUSIVE
    assert batching(light(queued_pair())) is None  # queueing is the answer there


def test_prefill():
    assert prefill(light(parallel_pair())).kind == HEALTHY
    slow = prefill(light(parallel_pair(), long_ttft=T.PREFILL_TTFT_WARN_S + 0.5, long_prefill=400))
    assert slow.kind == PROBLEM and "idle server" in slow.title
    # fast enough for the probe's prompt, but a 2048-token context would wait > 10 s
    est = prefill(light(parallel_pair(), long_ttft=1.5, long_prefill=150))
    assert est.kind == PROBLEM and est.confidence == "medium"


def test_model_unload_ollama_load_duration_and_cold_start():
    assert model_unload(light(parallel_pair(), engine="ollama", load=0.02)).kind == HEALTHY
    v = model_unload(light(parallel_pair(), engine="ollama", load=8.2))
    assert v.kind == PROBLEM and v.figures["load_duration_s"] == 8.2
    # An engine that reports no loads: a slow first request may be a wait behind others on a
    # busy server, so it is inconclusive, never MODEL_UNLOAD.
    cold = model_unload(light(parallel_pair(), warm_ttft=3.0))
    assert cold.kind == INCONCLUSIVE and "busy server" in cold.title
    assert model_unload(light(parallel_pair(), warm_ttft=0.06)).kind == HEALTHY


def test_queue_full_needs_the_busy_body():
    body = "HTTP 503 Service Unavailable: server busy, please try again.  maximum pending requests exceeded"
    r = result([sample("warmup", "warmup", n=0, status="http_error", http_status=503, error=body)], engine="ollama")
    assert queue_full(r).kind == PROBLEM
    loading = "HTTP 503 Service Unavailable: Loading model"
    r = result([sample("warmup", "warmup", n=0, status="http_error", http_status=503, error=loading)])
    assert queue_full(r) is None


def load_run(gap_at=None, gap=0.0, slots=4, streams=5, start_offsets=None):
    out = [sample("single", "single", 0.2, ttft=0.05)]
    for i in range(streams):
        s = sample(f"load-{i}", "load", 1.0, ttft=0.1 + (start_offsets[i] if start_offsets else 0), itl=0.01)
        if gap_at is not None and i == 0:
            chunks = list(s.chunk_s)
            chunks = chunks[:gap_at] + [t + gap for t in chunks[gap_at:]]
            s = sample(f"load-{i}", "load", 1.0, ttft=0.1, itl=0.01)
            object.__setattr__(s, "chunk_s", tuple(chunks))
        out.append(s)
    out.append(sample("load-long", "load-long", 1.2, ttft=0.9, n=8, prefill=2000, prompt_tokens=1600))
    return result(out, slots=slots)


def test_prefill_stall_in_load_mode():
    assert prefill_stall(load_run()).kind == HEALTHY
    v = prefill_stall(load_run(gap_at=30, gap=0.8))
    assert v.kind == PROBLEM and v.figures["longest_gap_s"] > 0.8


def test_load_concurrency():
    assert load_concurrency(load_run()).kind == HEALTHY
    serial = load_run(slots=4, streams=3, start_offsets=[0, 0.7, 1.4])
    v = load_concurrency(serial)
    assert v.kind == PROBLEM and v.figures["max_concurrent"] == 1


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from llmdoctor.knowledge.probe.result import ProbeResult, StreamSample  # noqa: E402
from llmdoctor.judge.probe.verdicts import assess, summary_lines  # noqa: E402

times = st.floats(min_value=-1.0, max_value=100.0, allow_nan=False)
maybe = lambda s: st.none() | s  # noqa: E731
samples = st.builds(
    StreamSample,
    id=st.text(max_size=5), scenario=st.sampled_from(["warmup", "single", "long", "pair", "load", "load-long", "x"]),
    sent_s=times, status=st.sampled_from(["ok", "http_error", "stalled"]), http_status=maybe(st.integers(100, 599)),
    error=st.text(max_size=20), ttfb_s=maybe(times), ttft_s=maybe(times),
    chunk_s=st.lists(times, max_size=8).map(lambda xs: tuple(sorted(xs))), prompt_tokens=maybe(st.integers(0, 10**6)),
    completion_tokens=maybe(st.integers(0, 10**6)), decode_tps=maybe(times), prefill_tps=maybe(times),
    load_s=maybe(times))


@settings(max_examples=300)
@given(st.lists(samples, max_size=8), st.sampled_from(["ollama", "llamacpp", "vllm"]), maybe(st.integers(0, 64)),
       maybe(st.integers(0, 10**6)))
def test_verdicts_never_crash_on_odd_results(xs, engine, slots, context):
    r = ProbeResult(url="http://x", engine=engine, slots=slots, context=context, samples=tuple(xs))
    for v in assess(r):
        assert v.evidence and v.title
    assert summary_lines(r)
