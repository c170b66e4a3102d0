"""vLLM facts and checks end to end on hand-made hosts: two /metrics scrapes (produced by
prometheus_client, as vLLM produces them) give a rate; one scrape (evidence) gives none."""
from __future__ import annotations

from llmdoctor.hosts.live import BaseHost
from pathlib import Path

import pytest

from llmdoctor.plugins import load_checks, run_check
from llmdoctor.knowledge.engines import OLLAMA, VLLM, EngineInstance
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.hosts.base import HostUnreachable, HttpResponse
from llmdoctor.hosts.evidence import EvidenceHost

EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"


def exposition(preemptions: float, waiting: float, kv: float, queue_s: float, prefill_s: float, itl_s: float) -> bytes:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

    reg = CollectorRegistry()
    labels = ["model_name", "engine"]
    Counter("vllm:num_preemptions", "preemptions", labels, registry=reg).labels("m", "0").inc(preemptions)
    Gauge("vllm:num_requests_waiting", "waiting", labels, registry=reg).labels("m", "0").set(waiting)
    Gauge("vllm:num_requests_running", "running", labels, registry=reg).labels("m", "0").set(8)
    Gauge("vllm:kv_cache_usage_perc", "kv", labels, registry=reg).labels("m", "0").set(kv)
    for name, value in (("vllm:request_queue_time_seconds", queue_s), ("vllm:request_prefill_time_seconds", prefill_s),
                        ("vllm:inter_token_latency_seconds", itl_s)):
        Histogram(name, name, labels, registry=reg).labels("m", "0").observe(value)
    return generate_latest(reg)


class ScrapeHost(BaseHost):
    """Answers GET /metrics with the next of the given bodies (a vLLM we cannot run here)."""

    kind = "local"
    name = "stub"

    def __init__(self, *bodies: bytes) -> None:
        self.bodies = list(bodies)

    def http(self, method, port, path, body=None, timeout=5.0, headers=None):
        if port != 8000 or path != "/metrics":
            raise HostUnreachable(f":{port}{path}: connection refused")
        return HttpResponse(200, self.bodies.pop(0) if len(self.bodies) > 1 else self.bodies[0])


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs}


def store(host, engines=(EngineInstance(VLLM, port=8000, found_by="test"),), sample=0.01) -> FactStore:
    return FactStore(Context(host, sample_seconds=sample), preset={"engines": engines})


def test_rising_counter_is_a_rate(specs):
    s = store(ScrapeHost(exposition(100, 0, 0.5, 0.1, 0.2, 0.03), exposition(112, 0, 0.5, 0.1, 0.2, 0.03)))
    m = s.get("vllm_metrics")
    rate = m.preemption_rate()
    assert rate.preemptions == 12 and rate.seconds > 0
    findings = run_check(specs["vllm-preemption-rate"], s).findings
    assert [f.cause.value for f in findings] == ["PREEMPTION"]
    assert "100 -> 112" in findings[0].evidence[0].text


def test_large_but_flat_counter_is_no_finding(specs):
    s = store(ScrapeHost(exposition(5000, 0, 0.5, 0.1, 0.2, 0.03)))
    assert run_check(specs["vllm-preemption-rate"], s).findings == ()


def test_single_scrape_from_evidence_has_no_rate_but_a_lifetime_count(tmp_path, specs):
    # One scrape gives no rate; its counter still says preemptions happened since the start (a real
    # vLLM 0.32 preempted 11 times and said so only in /metrics).
    (tmp_path / "meta.json").write_text('{"engine": "vllm"}')
    (tmp_path / "metrics.prom").write_bytes(exposition(5000, 3, 0.99, 0.1, 0.2, 0.03))
    s = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})
    assert s.get("vllm_metrics").preemption_rate() is None
    [f] = run_check(specs["vllm-preemption-rate"], s).findings
    assert "5000" in f.title and "since it started" in f.title and f.confidence == "medium"
    pinned = run_check(specs["vllm-kv-pinned"], s).findings
    assert pinned and pinned[0].confidence == "medium"


def test_waiting_with_long_queue_time_is_queueing_not_prefill(specs):
    body = exposition(0, 6, 0.4, queue_s=8.0, prefill_s=0.3, itl_s=0.03)
    s = store(ScrapeHost(body, body))
    q = run_check(specs["vllm-queueing"], s).findings
    assert [f.check for f in q] == ["vllm-queueing"]
    assert "mean queue time 8.00 s vs mean prefill time 0.30 s" in q[0].evidence[-1].text
    assert run_check(specs["vllm-prefill-interference"], s).findings == ()


def test_waiting_with_long_prefill_is_prefill_interference(specs):
    body = exposition(0, 6, 0.4, queue_s=0.2, prefill_s=5.0, itl_s=0.3)
    s = store(ScrapeHost(body, body))
    assert [f.check for f in run_check(specs["vllm-prefill-interference"], s).findings] == ["vllm-prefill-interference"]
    assert run_check(specs["vllm-queueing"], s).findings == ()


def test_not_a_vllm_host_is_quiet():
    s = store(ScrapeHost(b""), engines=(EngineInstance(OLLAMA, port=11434),))
    for fact in ("vllm_metrics", "vllm_log", "vllm_cmdline", "llamacpp_state", "llamacpp_log", "llamacpp_cmdline"):
        with pytest.raises(FactUnavailable) as e:
            s.get(fact)
        assert e.value.quiet, fact


def test_server_down_is_an_unavailable_line():
    class Down(ScrapeHost):
        def http(self, *a, **k):
            raise HostUnreachable("http://127.0.0.1:8000/metrics: connection refused")

    with pytest.raises(FactUnavailable) as e:
        store(Down()).get("vllm_metrics")
    assert "connection refused" in e.value.reason and not e.value.quiet


def test_log_fact_on_an_evidence_dir_and_client_errors():
    host = EvidenceHost(EVIDENCE / "vllm-queue-overflow")
    s = FactStore(Context(host), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})
    log = s.get("vllm_log")
    assert [scan.source for scan in log.scans] == ["vllm.log", "client_errors.txt"]
    assert log.scans[1].queue_overflows == 1 and log.scans[0].stats_lines == 3


# The stats line of vllm-project/vllm#11517 ("Requests stuck in pending state despite available
# resources"), repeated with the time advanced 5 s per line: 1 running, 3 pending, KV 3.1 %.
STUCK_LINE = ("2024-12-23 18:28:{:02d} - vllm.engine.metrics - INFO - Avg prompt throughput: 0.0 tokens/s, Avg "
              "generation throughput: 45.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV "
              "cache usage: 3.1%, CPU KV cache usage: 0.0%.")


def log_store(tmp_path, lines, cmdline: str = "") -> FactStore:
    """Facts of an evidence directory holding these vllm.log lines (and a command line)."""
    (tmp_path / "meta.json").write_text('{"engine": "vllm"}')
    (tmp_path / "vllm.log").write_text("\n".join(lines) + "\n")
    if cmdline:
        (tmp_path / "cmdline.txt").write_text(cmdline + "\n")
    return FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})


@pytest.mark.parametrize("cmdline,room", [("", True), ("vllm serve Qwen/Qwen2.5-32B-Instruct --max-num-seqs 1", False)])
def test_waiting_while_the_batch_has_room_is_not_called_a_full_batch(tmp_path, specs, cmdline, room):
    s = log_store(tmp_path, [STUCK_LINE.format(5 * i) for i in range(4)], cmdline)
    [f] = run_check(specs["vllm-queueing"], s).findings
    assert f.fix.summary.startswith("Requests wait although the batch has room") is room
    assert ("--max-loras" in f.fix.summary) is room and ("full batch" in f.fix.summary) is not room
    assert (f.fix.commands == ()) is room  # more replicas would not help while a limit other than capacity holds


# The stats lines of vllm-project/vllm#1734 (V0, AWQ, "each input temporarily halts" generation):
# prompt throughput over 1000 tokens/s with generation at 0 while 9, 7, 5 requests are pending.
HALT_LINES = (
    "INFO 11-21 00:12:08 llm_engine.py:624] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 122.2 "
    "tokens/s, Running: 20 reqs, Swapped: 0 reqs, Pending: 9 reqs, GPU KV cache usage: 24.8%, CPU KV cache usage: 0.0%",
    "INFO 11-21 00:12:13 llm_engine.py:624] Avg prompt throughput: 1032.4 tokens/s, Avg generation throughput: 0.0 "
    "tokens/s, Running: 22 reqs, Swapped: 0 reqs, Pending: 7 reqs, GPU KV cache usage: 27.1%, CPU KV cache usage: 0.0%",
    "INFO 11-21 00:12:18 llm_engine.py:624] Avg prompt throughput: 1096.2 tokens/s, Avg generation throughput: 0.0 "
    "tokens/s, Running: 24 reqs, Swapped: 0 reqs, Pending: 5 reqs, GPU KV cache usage: 29.4%, CPU KV cache usage: 0.0%",
)


@pytest.mark.parametrize("cmdline,v0_fix", [("", True), ("python -m vllm.entrypoints.openai.api_server --model m "
                                                            "--enable-chunked-prefill", False)])
def test_prefill_on_a_v0_engine_turns_chunked_prefill_on(tmp_path, specs, cmdline, v0_fix):
    s = log_store(tmp_path, HALT_LINES, cmdline)
    [f] = run_check(specs["vllm-prefill-interference"], s).findings
    assert ("--enable-chunked-prefill, off by default in V0" in f.fix.summary) is v0_fix
    assert ("--enable-chunked-prefill" in f.fix.commands[0]) is v0_fix
    assert ("--max-num-partial-prefills" in f.fix.summary) is not v0_fix  # with chunked prefill on


def test_waiting_while_nothing_runs_says_the_engine_admits_nothing(tmp_path, specs):
    # vllm-project/vllm#8378 (a load test that "just hangs"): Running 0, Pending 12, then 22, KV 0 %
    lines = [STUCK_LINE.format(0).replace("Running: 1 reqs", "Running: 2 reqs").replace("Pending: 3", "Pending: 0"),
             STUCK_LINE.format(5).replace("Running: 1 reqs", "Running: 0 reqs").replace("Pending: 3", "Pending: 12"),
             STUCK_LINE.format(10).replace("Running: 1 reqs", "Running: 0 reqs").replace("Pending: 3", "Pending: 22")]
    s = log_store(tmp_path, lines)
    [f] = run_check(specs["vllm-queueing"], s).findings
    assert f.fix.summary.startswith("Requests wait while nothing runs: on 2 stats line(s) Running was 0 with up to 22")
    assert "stuck" in f.fix.summary and f.fix.commands == ()


def test_waiting_behind_one_request_that_fills_the_kv_cache(tmp_path, specs):
    # intel/llm-scaler#391 ("VLLM seems be hang"): Running 1, Waiting 14 for an hour, KV 76.5-76.8 %
    line = ("(APIServer pid=851) INFO 04-28 22:54:{:02d} [loggers.py:257] Engine 000: Avg prompt throughput: 0.0 "
            "tokens/s, Avg generation throughput: 5.4 tokens/s, Running: 1 reqs, Waiting: 14 reqs, GPU KV cache "
            "usage: 76.{}%, Prefix cache hit rate: 92.0%")
    s = log_store(tmp_path, [line.format(32 + 10 * i, 5 + i) for i in range(3)])
    [f] = run_check(specs["vllm-queueing"], s).findings
    assert f.title == "vLLM requests are waiting for KV cache space that a few long requests hold"
    assert "at most 1 ran (below --max-num-seqs) and held up to 77 % of the KV cache" in f.fix.summary
    assert "full batch" not in f.fix.summary and f.fix.commands == ("vllm serve MODEL --kv-cache-dtype fp8",)


class SecondScrapeTimesOut(ScrapeHost):
    """A vLLM too busy to answer the second /metrics in time."""

    def http(self, method, port, path, body=None, timeout=5.0, headers=None):
        if getattr(self, "answered", False):
            raise HostUnreachable(f":{port}{path}: timed out after {timeout:g} s")
        self.answered = True
        return super().http(method, port, path, body, timeout, headers)


def test_a_missed_second_scrape_keeps_what_the_first_showed(specs):
    s = store(SecondScrapeTimesOut(exposition(0, 6, 0.4, queue_s=8.0, prefill_s=0.3, itl_s=0.03)))
    m = s.get("vllm_metrics")
    assert m.second is None and m.latest.waiting == 6 and m.preemption_rate() is None
    [f] = run_check(specs["vllm-queueing"], s).findings
    assert f.confidence == "medium"  # one scrape proves less than two
