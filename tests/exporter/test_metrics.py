"""The pure mapping from diagnosis results to metric families."""
from __future__ import annotations

import math
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.app.exporter import counters as c
from llmdoctor.app.exporter import metrics as m
from llmdoctor.app.exporter import readings as r
from llmdoctor.app.exporter.collector import dedicated_registry, exposition
from tests.exporter.conftest import finding, full_facts, result


def expose(families) -> str:
    registry, collector = dedicated_registry()
    collector.publish(families)
    return exposition(registry).decode()


def samples(families) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


def snapshot(res, target="gpu-box", totals=None, **kw):
    totals = totals or c.MonotonicTotals()
    outcome = m.RunOutcome(target, 1_700_000_000.0, 0.25, res)
    if outcome.up:
        totals.feed(target, r.counter_readings(outcome.facts))
    return m.families({target: outcome}, totals, 60.0, **kw)


def test_full_facts_export_every_family():
    fams = snapshot(result(full_facts(), [finding()]), runs={"gpu-box": (3, 1)},
                    queue_trends={"gpu-box": [("vllm", "growing")]},  # a shape needs a history of cycles
                    settings={"gpu-box": [("OLLAMA_NUM_PARALLEL", "4", 1_700_000_000.0)]})  # ... and so does a change
    names = {s.name for f in fams for s in f.samples}
    assert names == m.exported_names() - {"llmdoctor_down_info"}  # only while a target is down


def test_a_down_target_says_why():
    from llmdoctor.app.exporter.metrics import RunOutcome, families
    from llmdoctor.app.exporter.counters import MonotonicTotals

    outcome = RunOutcome("gpu1", 0.0, 1.0, None, "ssh: connect to host gpu1 port 22: Connection refused")
    got = {(s.name, tuple(sorted(s.labels.items()))): s.value
           for f in families({"gpu1": outcome}, MonotonicTotals(), 60) for s in f.samples}
    assert got[("llmdoctor_up", ())] == 0.0
    assert got[("llmdoctor_down_info", (("reason", "ssh:_connect_to_host_gpu1_port_22:_Connection_refused"),))] == 1.0


def test_figures_in_base_units():
    got = samples(snapshot(result(full_facts(), [finding()])))
    assert got[("llmdoctor_up", ())] == 1.0
    assert got[("llmdoctor_ollama_keep_alive_seconds", ())] == 300.0
    assert got[("llmdoctor_ollama_num_parallel", ())] == 4.0
    assert got[("llmdoctor_model_memory_bytes", (("device", "gpu"), ("model", "llama3.1:70b")))] == 20e9
    assert got[("llmdoctor_model_memory_bytes", (("device", "cpu"), ("model", "llama3.1:70b")))] == 28e9
    assert got[("llmdoctor_queue_depth_requests", (("engine", "vllm"),))] == 5.0
    assert got[("llmdoctor_queue_depth_requests", (("engine", "llamacpp"),))] == 2.0
    assert got[("llmdoctor_preemptions_total", (("engine", "vllm"),))] == 12.0
    assert got[("llmdoctor_probe_ttft_seconds", (("engine", "ollama"), ("percentile", "95")))] == 2.5
    assert got[("llmdoctor_probe_ttft_seconds", (("engine", "ollama"), ("percentile", "50")))] == 0.4
    assert abs(got[("llmdoctor_probe_itl_seconds", (("engine", "ollama"), ("percentile", "50")))] - 0.03) < 1e-9
    assert got[("llmdoctor_swap_out_bytes_per_second", ())] == 8192.0
    assert got[("llmdoctor_gpu_memory_total_bytes", (("gpu", "0"),))] == 24e9
    assert got[("llmdoctor_kv_capacity_tokens", ())] == 65536.0
    assert got[("llmdoctor_kv_demand_tokens", ())] == (8 + 5) * 8192.0
    assert got[("llmdoctor_model_loads_total", (("engine", "ollama"),))] == 3.0
    assert got[("llmdoctor_finding", (("cause", "CPU_SPILL"), ("check", "ollama-cpu-spill"), ("severity", "warning")))] == 1.0
    assert got[("llmdoctor_findings_active", (("severity", "warning"),))] == 1.0
    assert got[("llmdoctor_engine_info", (("engine", "ollama"), ("version", "0.12.3")))] == 1.0


def test_no_facts_gives_only_run_metrics_and_no_target_label():
    got = samples(snapshot(result({}, [])))
    assert {k[0] for k in got} == {"llmdoctor_up", "llmdoctor_last_run_timestamp_seconds", "llmdoctor_run_duration_seconds",
                                   "llmdoctor_run_interval_seconds", "llmdoctor_runs_total", "llmdoctor_run_failures_total",
                                   "llmdoctor_findings_active"}
    assert all("target" not in dict(labels) for _, labels in got)


def test_unreachable_target_is_down():
    got = samples(snapshot(result({}, [], engine="unreachable")))
    assert got[("llmdoctor_up", ())] == 0.0
    failed = m.RunOutcome("x", 1.0, 0.1, None, "HostUnreachable: no route")
    assert not failed.up


def test_finding_text_and_secrets_never_reach_labels():
    secret = finding(title='OLLAMA_API_KEY="sk-live-123" leaked "quote"\nnewline')
    text = expose(snapshot(result({"ollama_config": {"OLLAMA_API_KEY": "sk-live-123"}}, [secret])))
    assert "sk-live-123" not in text and "leaked" not in text and "size_vram" not in text


def test_label_values_are_bounded_and_printable():
    weird = {"ollama_ps": [{"name": 'evil" model\n' + "x" * 500, "size": 10, "size_vram": 5}] * 40}
    fams = snapshot(result(weird))
    models = [dict(s.labels)["model"] for f in fams if f.name == "llmdoctor_model_memory_bytes" for s in f.samples]
    assert models and all(len(v) <= 128 and '"' not in v and "\n" not in v and " " not in v for v in models)
    assert len(set(models)) == 1  # duplicates collapse to one series per label set


def test_several_targets_carry_a_target_label():
    totals = c.MonotonicTotals()
    outcomes = {t: m.RunOutcome(t, 1.0, 0.1, result(full_facts(), [finding()], target=t)) for t in ("a", "b")}
    for t, o in outcomes.items():
        totals.feed(t, r.counter_readings(o.facts))
    fams = m.families(outcomes, totals, 60.0)
    for f in fams:
        for s in f.samples:
            assert s.labels["target"] in ("a", "b"), s
    ups = [s for f in fams for s in f.samples if s.name == "llmdoctor_up"]
    assert len(ups) == 2


def test_keep_alive_parsing():
    assert r.keep_alive_seconds("5m") == 300
    assert r.keep_alive_seconds("1h30m") == 5400
    assert r.keep_alive_seconds("3600") == 3600
    assert r.keep_alive_seconds('"10m"') == 600
    assert r.keep_alive_seconds("0") == 0
    assert r.keep_alive_seconds("-1") == math.inf
    assert r.keep_alive_seconds("-1m") == math.inf
    assert r.keep_alive_seconds("soon") is None
    assert r.keep_alive_seconds("5m garbage") is None
    assert r.keep_alive_seconds(SimpleNamespace(value="24h")) == 86400


def test_facts_are_read_by_their_catalogued_fields_and_a_misshapen_one_drops_only_its_series():
    from llmdoctor.facts.memory import MemoryFact
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.memory import SwapInterval

    facts = {
        "ollama_config": OllamaConfig("0.12.0", {"OLLAMA_NUM_PARALLEL": "2"}, {"OLLAMA_NUM_PARALLEL": "unit files"}),
        "memory": MemoryFact(intervals=(SwapInterval(40960.0, 0.0),), intervals_source="/proc/vmstat"),
        "gpu": {"not": "a GpuFact"},
    }
    got = samples(snapshot(result(facts)))
    assert got[("llmdoctor_ollama_num_parallel", ())] == 2.0
    assert got[("llmdoctor_swap_in_bytes_per_second", ())] == 40960.0
    assert not any(name.startswith("llmdoctor_gpu_") for name, _ in got)


# -- counters never decrease -------------------------------------------------------


def test_preemptions_survive_an_engine_restart():
    totals = c.MonotonicTotals()
    seq = []
    for source_total in (10, 15, 3, 7):  # engine restarted between 15 and 3
        totals.feed("h", [c.CounterReading("llmdoctor_preemptions", (("engine", "vllm"),), source_total, "total", "vllm_metrics")])
        seq.append(totals.values()[0][3])
    assert seq == [10, 15, 18, 22]


def test_switching_source_does_not_double_count():
    totals = c.MonotonicTotals()
    key = (("engine", "vllm"),)
    totals.feed("h", [c.CounterReading("llmdoctor_preemptions", key, 10, "total", "vllm_metrics")])
    totals.feed("h", [c.CounterReading("llmdoctor_preemptions", key, 50, "total", "vllm_log")])
    totals.feed("h", [c.CounterReading("llmdoctor_preemptions", key, 52, "total", "vllm_log")])
    assert totals.values()[0][3] == 12


def test_delta_readings_accumulate():
    totals = c.MonotonicTotals()
    for delta in (4, 0, 2):
        totals.feed("h", [c.CounterReading("llmdoctor_model_loads", (("engine", "ollama"),), delta, "delta", "ollama_log")])
    assert totals.values()[0][3] == 6


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=-5, max_value=1e9) | st.floats(),
                          st.sampled_from(["total", "delta"]), st.sampled_from(["vllm_metrics", "vllm_log"])),
                max_size=30))
def test_exported_counter_never_decreases(readings):
    totals = c.MonotonicTotals()
    last = 0.0
    for value, mode, source in readings:
        totals.feed("h", [c.CounterReading("llmdoctor_preemptions", (("engine", "vllm"),), value, mode, source)])
        now = totals.values()[0][3] if totals.values() else 0.0
        assert now >= last and not math.isnan(now)
        last = now


# -- garbage facts never break a scrape ---------------------------------------------

junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    | st.builds(lambda d: SimpleNamespace(**{f"f{i}": v for i, v in enumerate(d)}), st.lists(inner, max_size=3)),
    max_leaves=12,
)
fact_names = st.sampled_from(["engines", "ollama_config", "ollama_show", "ollama_ps", "ollama_log", "memory", "gpu", "vllm_metrics",
                              "vllm_log", "llamacpp_state", "kv_budget", "probe"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(fact_names, junk, max_size=6))
def test_garbage_facts_never_raise_and_expose_valid_text(facts):
    fams = snapshot(result(facts))
    text = expose(fams)
    assert "llmdoctor_up 1.0" in text


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["OLLAMA_NUM_PARALLEL", "OLLAMA_MAX_QUEUE", "OLLAMA_CONTEXT_LENGTH", "OLLAMA_KEEP_ALIVE"]),
                       st.text(max_size=12) | st.integers() | st.floats()))
def test_garbage_settings_are_skipped_not_fatal(config):
    got = samples(snapshot(result({"ollama_config": config})))
    for (name, _), value in got.items():
        assert not math.isnan(value), name


def test_engine_version_from_the_engines_own_facts():
    from llmdoctor.knowledge.engines import EngineInstance
    from llmdoctor.knowledge.llamacpp.endpoints import LlamaProps, LlamaState

    facts = {"engines": (EngineInstance("ollama", unit="ollama.service"), EngineInstance("llamacpp", port=8080)),
             "ollama_version": "0.32.15",
             "llamacpp_state": LlamaState(8080, props=LlamaProps(total_slots=4, build_info="b7079-1f5accb8d"))}
    got = samples(snapshot(result(facts)))
    assert got[("llmdoctor_engine_info", (("engine", "ollama"), ("version", "0.32.15")))] == 1.0
    assert got[("llmdoctor_engine_info", (("engine", "llamacpp"), ("version", "b7079-1f5accb8d")))] == 1.0


def test_vllm_log_preemptions_v0_cumulative_and_v1_intervals():
    from llmdoctor.facts.vllm import VllmLog

    def log(**kw):
        scan = dict(last_cumulative=None, v1_preemptions=0, preemptions_at_least=0, recent_stats=(), kv_capacity=None)
        scan.update(kw)
        return {"vllm_log": VllmLog((SimpleNamespace(**scan),))}

    totals = c.MonotonicTotals()
    # V0, resumed scans: the engine's cumulative count carries the total (only every 50th is logged)
    for facts in (log(last_cumulative=51, preemptions_at_least=1), log(), log(last_cumulative=151, preemptions_at_least=1)):
        totals.feed("v0", r.counter_readings(facts, "delta"))
    # V1, resumed scans: per-interval counts add up
    for n in (4, 0, 3):
        totals.feed("v1", r.counter_readings(log(v1_preemptions=n), "delta"))
    got = {t: v for t, _, _, v in totals.values()}
    assert got == {"v0": 151.0, "v1": 7.0}


@settings(max_examples=100, deadline=None)
@given(junk)
def test_counter_state_from_garbage_json_never_raises(data):
    totals = c.MonotonicTotals.from_json(data)
    assert all(v >= 0 for *_, v in totals.values())


def test_ints_beyond_any_float_do_not_raise():
    """JSON carries ints of any size; float() of one past ~1.8e308 raises OverflowError."""
    huge = 10**400
    row = {"target": "h", "name": "llmdoctor_preemptions", "labels": [], "source": "vllm_metrics",
           "last": huge, "total": 1}
    assert c.MonotonicTotals.from_json([row]).values() == []
    assert r.number(huge) == math.inf and r.number(-huge) == -math.inf


def test_counter_state_round_trips():
    totals = c.MonotonicTotals()
    totals.feed("h", [c.CounterReading("llmdoctor_preemptions", (("engine", "vllm"),), 10, "total", "vllm_metrics")])
    again = c.MonotonicTotals.from_json(totals.to_json())
    again.feed("h", [c.CounterReading("llmdoctor_preemptions", (("engine", "vllm"),), 13, "total", "vllm_metrics")])
    assert again.values()[0][3] == 13


def test_access_log_concurrency_is_exported():
    """Three requests sent at once to one slot (spans [0,10], [0,20], [0,30]): three in flight,
    the last waited 20 s; a log without access lines exports neither."""
    got = {name: value for name, _, value in r.access_log_samples(full_facts())}
    assert got == {"llmdoctor_engine_requests_in_flight": 3.0, "llmdoctor_engine_request_wait_seconds": 20.0}
    assert r.access_log_samples({"ollama_log": None}) == [] and r.access_log_samples({}) == []


def test_access_log_chain_wait_is_exported_from_a_real_log():
    from pathlib import Path

    from llmdoctor.knowledge.ollama.log import OllamaLogScanner

    log = Path(__file__).resolve().parent.parent / "fixtures" / "evidence" / "ollama-healthy" / "journal.log"
    summary = OllamaLogScanner().feed_all(log.read_text().splitlines(), "journal.log").summary()
    got = {name: value for name, _, value in r.access_log_samples({"ollama_log": summary})}
    assert got == {"llmdoctor_engine_requests_in_flight": 1.0, "llmdoctor_engine_request_wait_seconds": 0.0}
