"""knowledge/prom_window.py and the window checks: series -> targets, stretches, replicas."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.knowledge.prom_window import (PromTarget, episodes, increases, targets, wanted_queries)
from llmdoctor.knowledge.promql import Series, parse_range

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "prometheus"
T0 = 1_796_000_000.0


def pts(*values, start=T0, step=1.0):
    return tuple((start + i * step, float(v)) for i, v in enumerate(values))


def series(points, **labels):
    return Series(tuple(sorted(labels.items())), points)


def test_queries_only_for_series_prometheus_holds_with_the_selector():
    present = {"vllm:num_requests_waiting", "vllm:time_to_first_token_seconds_bucket", "node_vmstat_pswpin",
               "llamacpp:requests_deferred"}
    qs = {(k, q): e for k, q, e in wanted_queries(present, 'job="vllm"', 15.0)}
    assert set(qs) == {("vllm", "waiting"), ("vllm", "ttft"), ("host", "swap_in"), ("llamacpp", "waiting")}
    assert qs[("vllm", "waiting")] == 'sum by (instance, pod, job, model_name, model) (vllm:num_requests_waiting{job="vllm"})'
    assert "histogram_quantile(0.95" in qs[("vllm", "ttft")] and '_bucket{job="vllm"}[60s]' in qs[("vllm", "ttft")]
    assert "node_vmstat_pswpin[60s]" in qs[("host", "swap_in")]  # host series: not under the engines' selector


def test_renamed_series_are_ored():
    qs = {q: e for _, q, e in wanted_queries({"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, "", 600.0)}
    assert qs["kv"].count(" or ") == 1


def test_real_answer_becomes_a_target_with_its_queue_stretch():
    answer = parse_range((FIX / "range_waiting_vllm032.json").read_bytes())
    (t,) = targets([("vllm", "waiting", answer)], T0, T0 + 30, 1.0, "Prometheus http://p:9090")
    assert (t.kind, t.model, t.job) == ("vllm", "tiny", "vllm") and t.key.startswith("127.0.0.1:")
    (ep,) = episodes(t.points("waiting"), t.step)
    assert ep.peak == 7 and ep.points == 4


def test_episodes_split_at_gaps_and_drops():
    p = pts(0, 3, 4, 0, 0, 2, 2, 2, 0)
    eps = episodes(p, 1.0)
    assert [(e.points, e.peak) for e in eps] == [(2, 4), (3, 2)]
    gap = ((T0, 1.0), (T0 + 1, 1.0), (T0 + 10, 1.0))  # a scrape gap ends a stretch
    assert [e.points for e in episodes(gap, 1.0)] == [2, 1]
    assert episodes((), 1.0) == []


def test_counter_increases_across_a_restart():
    assert increases(pts(0, 0, 3, 3, 5, 1, 1)) == [(T0 + 2, 3.0), (T0 + 4, 2.0), (T0 + 5, 1.0)]


def test_pods_are_targets_and_host_series_join_by_host():
    answers = [
        ("vllm", "waiting", (series(pts(0, 1), instance="10.0.0.5:8000", pod="vllm-a", model_name="m"),
                             series(pts(0, 0), instance="10.0.0.6:8000", pod="vllm-b", model_name="m"))),
        ("host", "swap_in", (series(pts(5, 5), instance="10.0.0.5:9100"),)),
        ("host", "throttle", (series(pts(0, 8), instance="10.0.0.5:9400", gpu="0"),
                              series(pts(0, 32), instance="10.0.0.5:9400", gpu="1"))),
    ]
    a, b = targets(answers, T0, T0 + 2, 1.0, "P")
    assert (a.key, b.key) == ("vllm-a", "vllm-b")
    assert len(a.replicas) == 2 and a.replicas == b.replicas
    # pods: no host to join by, two host series sources would be a guess; here one host: joined
    assert a.points("swap_in") == pts(5, 5)
    assert a.points("throttle") == pts(0, 32)  # max over GPUs


def test_exporter_series_are_a_target_of_the_engine_they_name():
    answers = [("llmdoctor", "waiting", (series(pts(0, 2, 2), instance="127.0.0.1:9877", engine="ollama"),))]
    (t,) = targets(answers, T0, T0 + 3, 1.0, "P")
    assert t.kind == "ollama" and t.key == "127.0.0.1:9877 (llmdoctor exporter)"


def test_host_series_alone_are_a_target_per_host():
    (t,) = targets([("host", "swap_in", (series(pts(1, 2), instance="gpu1:9100"),))], T0, T0 + 2, 1.0, "P")
    assert (t.kind, t.key) == ("none", "gpu1")


def test_garbage_labels_and_empty_series_give_no_target():
    answers = [("vllm", "waiting", (series((), instance="x"), series(pts(1)))),
               ("llmdoctor", "waiting", (series(pts(1), instance="y"),))]  # exporter series without engine
    (t,) = targets(answers, T0, T0 + 1, 1.0, "P")
    assert t.key == "?"  # a series without instance, pod or job still counts, under a mark


def _store(t: PromTarget):
    from llmdoctor.app.prometheus import WindowHost
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.knowledge.engines import EngineInstance

    host = WindowHost(t.key)
    return host, FactStore(Context(host=host), preset={"engines": (EngineInstance(t.kind),), "prom_window": t})


def diagnose_window(t: PromTarget):
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target

    host, store = _store(t)
    return diagnose_target(host, DiagnoseOptions(), store=store).report


def test_queue_stretch_is_a_finding_that_says_when():
    t = PromTarget("10.0.0.5:8000", "vllm", "m", "vllm",
                   {"waiting": pts(0, 0, 5, 9, 7, 0), "running": pts(1, 2, 4, 4, 4, 1),
                    "ttft": pts(0.1, 0.1, 3.0, 8.2, 6.0, 0.2)}, {}, T0, T0 + 6, 1.0, "Prometheus http://p:9090")
    report = diagnose_window(t)
    (f,) = [f for f in report.findings if f.check == "prom-queueing"]
    text = f.evidence[0].text
    assert "vllm:num_requests_waiting > 0 for 3 s" in text and "peak 9" in text and "p95 TTFT 8.20 s then" in text
    assert f.severity.value == "warning" and not report.not_diagnosed


def test_idle_window_is_examined_and_healthy():
    t = PromTarget("10.0.0.5:8000", "vllm", "m", "vllm", {"waiting": pts(0, 0, 0), "running": pts(0, 1, 0)}, {},
                   T0, T0 + 3, 1.0, "Prometheus http://p:9090")
    report = diagnose_window(t)
    assert not report.findings and not report.not_diagnosed and report.examined


def test_one_point_of_waiting_is_not_a_queue():
    t = PromTarget("a:1", "sglang", "m", "", {"waiting": pts(0, 3, 0)}, {}, T0, T0 + 3, 1.0, "P")
    assert not [f for f in diagnose_window(t).findings if f.check == "prom-queueing"]


def test_preemptions_swap_and_gpu_clocks_in_the_window():
    t = PromTarget("gpu1:30000", "sglang", "m", "", {"preemptions": pts(4, 4, 6, 9)},
                   {"swap_in": pts(0, 400, 500, 0), "throttle": pts(1, 1, 0x40, 0x40)}, T0, T0 + 4, 1.0, "P")
    found = {f.check: f for f in diagnose_window(t).findings}
    assert "retracted 5 request(s)" in found["prom-preemption"].title
    assert found["prom-swap"].cause.value == "SWAP"
    assert "HW thermal slowdown" in found["prom-gpu-slowed"].title
    idle_only = PromTarget("g:1", "vllm", "", "", {}, {"throttle": pts(1, 1, 1)}, T0, T0 + 3, 1.0, "P")
    assert not diagnose_window(idle_only).findings  # idle clocks are not a slowed GPU


def test_replica_taking_most_of_the_load_is_found_once():
    busy = series(pts(2, 2, 2, 2), instance="a:8080", job="llama")
    idle = series(pts(0, 0, 1, 0), instance="b:8080", job="llama")
    answers = [("llamacpp", "running", (busy, idle)),
               ("llamacpp", "waiting", (series(pts(0, 3, 4, 0), instance="a:8080", job="llama"),
                                        series(pts(0, 0, 0, 0), instance="b:8080", job="llama")))]
    a, b = targets(answers, T0, T0 + 4, 1.0, "P")
    fa = [f for f in diagnose_window(a).findings if f.check == "prom-replica-imbalance"]
    fb = [f for f in diagnose_window(b).findings if f.check == "prom-replica-imbalance"]
    assert len(fa) == 1 and not fb
    assert "job llama" in fa[0].title and len(fa[0].evidence) == 2
    assert any("a:8080: load 3.75 requests" in e.text for e in fa[0].evidence)


def test_balanced_replicas_are_not_a_finding():
    answers = [("vllm", "tokens", (series(pts(10, 12), instance="a:1", model_name="m"),
                                   series(pts(11, 10), instance="b:1", model_name="m")))]
    for t in targets(answers, T0, T0 + 2, 1.0, "P"):
        assert not diagnose_window(t).findings


def test_replica_with_a_smaller_kv_pool_stands_apart():
    answers = [("vllm", "kv", (series(pts(0.5, 0.99), instance="a:1", model_name="m"),
                               series(pts(0.2, 0.3), instance="b:1", model_name="m")))]
    a, b = targets(answers, T0, T0 + 2, 1.0, "P")
    (f,) = [f for f in diagnose_window(a).findings if f.check == "prom-replica-imbalance"]
    assert "KV cache to 99%" in f.title


def test_the_exporters_findings_are_in_its_targets_summary():
    answers = [("llmdoctor", "waiting", (series(pts(0, 0), instance="h:9877", engine="vllm"),)),
               ("llmdoctor", "findings", (series(pts(1, 1), instance="h:9877", check="vllm-kv-pinned",
                                                 cause="PREEMPTION", severity="warning"),))]
    (t,) = targets(answers, T0, T0 + 2, 1.0, "P")
    (line,) = t.summary()
    assert "the exporter reported vllm-kv-pinned (warning) from" in line[1]


def test_the_read_stops_at_its_whole_deadline():
    import pytest

    from llmdoctor.hosts.prometheus import PrometheusClient, PrometheusError

    client = PrometheusClient("http://127.0.0.1:9", deadline=0.0)
    with pytest.raises(PrometheusError, match="ran past its 0 s deadline after 0 queries"):
        client.get("/api/v1/query_range", [])


def test_auth_file_forms(tmp_path):
    import pytest

    from llmdoctor.hosts.prometheus import PrometheusError, auth_headers

    f = tmp_path / "a"
    f.write_text("eyJhbGciOi.token\n")
    assert auth_headers(str(f), {}) == {"Authorization": "Bearer eyJhbGciOi.token"}
    f.write_text("# ours\ntoken=abc\n")
    assert auth_headers(str(f), {}) == {"Authorization": "Bearer abc"}
    f.write_text("user=u\npassword=p\n")
    assert auth_headers(str(f), {}) == {"Authorization": "Basic dTpw"}
    f.write_text("password=only\n")
    with pytest.raises(PrometheusError) as e:
        auth_headers(str(f), {})
    assert "only" not in str(e.value)
    with pytest.raises(PrometheusError):
        auth_headers(str(tmp_path / "missing"), {})
    assert auth_headers(None, {"LLMDOCTOR_PROMETHEUS_USER": "u", "LLMDOCTOR_PROMETHEUS_PASSWORD": "p"}) == \
        {"Authorization": "Basic dTpw"}
    assert auth_headers(None, {}) == {}


def test_a_recorded_window_round_trips_and_garbage_is_one_line():
    import json

    import pytest

    from llmdoctor.knowledge.prom_window import window_from_json, window_to_json
    from llmdoctor.parsing import ParseError

    doc = json.loads((FIX.parent / "evidence" / "prom-window-vllm-queue" / "prometheus_window.json").read_text())
    t = window_from_json(doc)
    assert window_to_json(t) == doc and len(t.replicas) == 2
    for bad in (None, [], {}, {"key": "k"}, {"key": "k", "kind": "vllm", "step": 0},
                {"key": "k", "kind": "vllm", "start": 5, "end": 1}, {"key": "k", "kind": "vllm", "start": "x"},
                {"key": "k", "kind": "vllm", "series": {"waiting": [[1]]}},
                {"key": "k", "kind": "vllm", "series": {"waiting": "x"}},
                {"key": "k", "kind": "vllm", "series": []},
                {"key": "k", "kind": "vllm", "replicas": [["a", "x", "u", 1, 1, 1]]},
                {"key": "k", "kind": "vllm", "replicas": [[1, 2]]}):
        with pytest.raises(ParseError):
            window_from_json(bad)
