"""Map diagnosis results to Prometheus metric families. Pure: no I/O, no clocks.

Conventions (prometheus/client_python, "exporters done right"): base units
(seconds, bytes, tokens), `_total` counters, a fixed label set per family with
bounded values (enums, check ids, model names, GPU indexes), no free text and
no secrets in labels. `target` is added only when several hosts are exported.
The figures themselves are read from the facts in readings.py.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from llmdoctor.redact import redact_text
from llmdoctor.model import Cause, Severity
from llmdoctor.app.exporter.counters import MonotonicTotals
from llmdoctor.app.exporter.readings import Sample, gauge_samples, label_value

GAUGE, COUNTER = "gauge", "counter"


@dataclass(frozen=True)
class FamilySpec:
    kind: str
    help: str
    labels: tuple[str, ...] = ()


# Every family the exporter can emit. Counter names are given without `_total`
# (prometheus_client appends it). The dashboard and rule tests check against this.
SPECS: dict[str, FamilySpec] = {
    "llmdoctor_up": FamilySpec(GAUGE, "1 when the last diagnosis of the target ran, 0 when the target could not be examined (llmdoctor_down_info says why)."),
    "llmdoctor_down_info": FamilySpec(GAUGE, "1 while llmdoctor_up is 0, with the reason (redacted, cut at 128 characters).", ("reason",)),
    "llmdoctor_last_run_timestamp_seconds": FamilySpec(GAUGE, "Unix time the last diagnosis run started; alert when it stops moving."),
    "llmdoctor_run_duration_seconds": FamilySpec(GAUGE, "Wall-clock duration of the last diagnosis run."),
    "llmdoctor_run_interval_seconds": FamilySpec(GAUGE, "Configured time between diagnosis runs (for staleness rules)."),
    "llmdoctor_runs": FamilySpec(COUNTER, "Diagnosis runs completed by this exporter."),
    "llmdoctor_run_failures": FamilySpec(COUNTER, "Diagnosis runs that could not examine the target."),
    "llmdoctor_finding": FamilySpec(GAUGE, "1 while a check reports this cause at this severity.", ("check", "cause", "severity")),
    "llmdoctor_findings_active": FamilySpec(GAUGE, "Number of active findings by severity.", ("severity",)),
    "llmdoctor_engine_info": FamilySpec(GAUGE, "LLM server found on the target (value is always 1).", ("engine", "version")),
    "llmdoctor_ollama_num_parallel": FamilySpec(GAUGE, "Effective OLLAMA_NUM_PARALLEL: requests served at once per loaded model."),
    "llmdoctor_ollama_max_queue": FamilySpec(GAUGE, "Effective OLLAMA_MAX_QUEUE: pending requests before Ollama answers 503."),
    "llmdoctor_ollama_context_length_tokens": FamilySpec(GAUGE, "Effective OLLAMA_CONTEXT_LENGTH (0 = automatic by VRAM tier)."),
    "llmdoctor_ollama_keep_alive_seconds": FamilySpec(GAUGE, "Effective OLLAMA_KEEP_ALIVE in seconds (+Inf = never unload, 0 = unload after each request)."),
    "llmdoctor_model_memory_bytes": FamilySpec(GAUGE, "Memory held by a loaded model (weights and KV cache) by device.", ("model", "device")),
    "llmdoctor_swap_in_bytes_per_second": FamilySpec(GAUGE, "Swap-in rate sampled during the last run."),
    "llmdoctor_swap_out_bytes_per_second": FamilySpec(GAUGE, "Swap-out rate sampled during the last run."),
    "llmdoctor_gpu_memory_used_bytes": FamilySpec(GAUGE, "GPU memory in use.", ("gpu",)),
    "llmdoctor_gpu_memory_total_bytes": FamilySpec(GAUGE, "GPU memory installed.", ("gpu",)),
    "llmdoctor_preemptions": FamilySpec(COUNTER, "Requests preempted for lack of KV cache (SGLang: retracted; never decreases, even when the engine restarts).", ("engine",)),
    "llmdoctor_model_loads": FamilySpec(COUNTER, "Model loads seen in the server log (reload churn when it keeps rising).", ("engine",)),
    "llmdoctor_queue_depth_requests": FamilySpec(GAUGE, "Requests waiting for a slot (vLLM waiting, llama-server deferred, SGLang #queue-req).", ("engine",)),
    "llmdoctor_queue_trend_info": FamilySpec(GAUGE, "1 for the shape of the waiting count over the exporter's last cycles: growing (arrivals outpace service: more slots or a replica), bursts (drains between: shape the bursts or cap the queue), spike (nothing structural) or steady.", ("engine", "shape")),
    "llmdoctor_requests_running": FamilySpec(GAUGE, "Requests being served now.", ("engine",)),
    "llmdoctor_engine_progress": FamilySpec(GAUGE, "1 while the engine shows progress or nothing to make progress on (idle), 0 while it is stalled: requests in flight and no token across the run's sampling window, or a port that takes connections while its API answers nothing (ENGINE_STALLED says which).", ("engine", "port")),
    "llmdoctor_engine_requests_in_flight": FamilySpec(GAUGE, "Most requests in flight at once, rebuilt from the access log read (Ollama: each line's end minus its duration).", ("engine",)),
    "llmdoctor_engine_request_wait_seconds": FamilySpec(GAUGE, "Longest wait for a turn rebuilt from the access log: one slot finishing overlapping requests one after another, or a back-to-back chain whose clients hit one deadline (0 when none).", ("engine",)),
    "llmdoctor_kv_demand_tokens": FamilySpec(GAUGE, "KV-cache tokens asked for: Ollama slots x context, vLLM sequences running or waiting x tokens per request."),
    "llmdoctor_kv_capacity_tokens": FamilySpec(GAUGE, "KV-cache tokens the server has room for (Ollama: next to the weights on the GPU; vLLM: its start-up KV cache size)."),
    "llmdoctor_kv_usage_ratio": FamilySpec(GAUGE, "Fraction of the KV cache in use (0-1), as the engine reports it.", ("engine",)),
    "llmdoctor_probe_ttft_seconds": FamilySpec(GAUGE, "Time to first token measured by the last probe, at the 50th and 95th percentile.", ("engine", "percentile")),
    "llmdoctor_probe_itl_seconds": FamilySpec(GAUGE, "Inter-token latency measured by the last probe, at the 50th and 95th percentile.", ("engine", "percentile")),
    "llmdoctor_probe_last_timestamp_seconds": FamilySpec(GAUGE, "Unix time of the last probe."),
    "llmdoctor_setting_info": FamilySpec(GAUGE, "1 for each effective setting of the target (environment variable, `--flag@engine`, `version@engine`, `models@ollama`) with its value where the keep-list shows it, else a keyed digest; a new series marks a change (dashboard annotations; `llmdoctor history` tells the transitions).", ("setting", "value")),
    "llmdoctor_setting_changed_timestamp_seconds": FamilySpec(GAUGE, "Unix time the exporter first saw the setting's current value differ from the previous one (absent until it changes).", ("setting",)),
}


def exported_names() -> set[str]:
    """Sample names as they appear in the exposition (counters with `_total`)."""
    return {n + "_total" if s.kind == COUNTER else n for n, s in SPECS.items()}


@dataclass(frozen=True)
class RunOutcome:
    """One diagnosis of one target, as the scheduler saw it."""

    target: str
    started: float  # unix time
    duration: float  # seconds
    result: Any = None  # llmdoctor.app.diagnose.TargetResult, or None when the run itself failed
    error: str = ""

    @property
    def up(self) -> bool:
        if self.result is None or self.error:
            return False
        report = getattr(self.result, "report", None)
        return getattr(report, "reachable", True)

    @property
    def down_reason(self) -> str:
        """Why the target could not be examined: the run's error, or the report's first one."""
        if self.up:
            return ""
        errors = tuple(getattr(getattr(self.result, "report", None), "errors", ()) or ())
        return self.error or (errors[0] if errors else "") or "unknown"

    @property
    def facts(self) -> Mapping[str, Any]:
        facts = getattr(self.result, "facts", None)
        return facts if isinstance(facts, Mapping) else {}


def finding_samples(result: Any, carried: Iterable[Any] = ()) -> list[Sample]:
    """Active findings of the run, plus `carried` ones (from the last probe run)."""
    report = getattr(result, "report", None)
    active: set[tuple[tuple[str, str], ...]] = set()
    by_severity = {s.value: 0 for s in Severity}
    findings = list(getattr(report, "findings", ()) or ())
    checks = {f.check for f in findings}
    findings += [f for f in carried if f.check not in checks]
    for f in findings:
        cause = f.cause.value if isinstance(f.cause, Cause) else label_value(f.cause, 32)
        severity = f.severity.value if isinstance(f.severity, Severity) else label_value(f.severity, 16)
        active.add((("check", label_value(f.check or "unnamed", 64)), ("cause", cause), ("severity", severity)))
        by_severity[severity] = by_severity.get(severity, 0) + 1
    out: list[Sample] = [("llmdoctor_finding", labels, 1.0) for labels in sorted(active)]
    out.extend(("llmdoctor_findings_active", (("severity", s),), float(n)) for s, n in sorted(by_severity.items()))
    return out


# -- families ------------------------------------------------------------------------


def families(
    outcomes: Mapping[str, RunOutcome],
    totals: MonotonicTotals,
    interval_seconds: float,
    runs: Mapping[str, tuple[int, int]] | None = None,
    probes: Mapping[str, Mapping[str, Any]] | None = None,
    multi_target: bool | None = None,
    probe_findings: Mapping[str, Iterable[Any]] | None = None,
    queue_trends: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    settings: Mapping[str, Iterable[tuple[str, str, float]]] | None = None,
) -> list[Metric]:
    """Metric families for the latest run of every target.

    `runs` maps target -> (runs, failures) so far; `probes` maps target -> facts
    of its last probe run and `probe_findings` target -> the findings of the checks
    that need the probe, both kept between the cheaper runs without a probe; `queue_trends`
    maps target -> [(engine, shape)] of its waiting count over the cycles (queue_history.py);
    `settings` target -> [(setting, value, unix time it last changed or 0)] (history.py)."""
    multi = len(outcomes) > 1 if multi_target is None else multi_target
    samples: dict[str, list[tuple[tuple[tuple[str, str], ...], float]]] = {name: [] for name in SPECS}

    def add(target: str, name: str, labels: tuple[tuple[str, str], ...], value: float) -> None:
        spec = SPECS[name]
        if tuple(k for k, _ in labels) != spec.labels:
            raise ValueError(f"{name}: labels {labels} do not match {spec.labels}")
        samples[name].append(((("target", label_value(target, 128)),) + labels if multi else labels, value))

    for target, o in sorted(outcomes.items()):
        add(target, "llmdoctor_up", (), 1.0 if o.up else 0.0)
        if not o.up:
            add(target, "llmdoctor_down_info", (("reason", label_value(redact_text(o.down_reason), 128)),), 1.0)
        add(target, "llmdoctor_last_run_timestamp_seconds", (), o.started)
        add(target, "llmdoctor_run_duration_seconds", (), o.duration)
        add(target, "llmdoctor_run_interval_seconds", (), interval_seconds)
        n_runs, n_failed = (runs or {}).get(target, (0, 0))
        add(target, "llmdoctor_runs", (), float(n_runs))
        add(target, "llmdoctor_run_failures", (), float(n_failed))
        facts = dict(o.facts)
        for key, value in ((probes or {}).get(target) or {}).items():
            facts.setdefault(key, value)
        found, _failed = gauge_samples(facts)
        carried = (probe_findings or {}).get(target, ()) if o.up else ()
        for name, labels, value in found + finding_samples(o.result, carried):
            add(target, name, labels, value)
        for engine, shape in (queue_trends or {}).get(target, ()) if o.up else ():
            add(target, "llmdoctor_queue_trend_info", (("engine", label_value(engine, 16)),
                                                       ("shape", label_value(shape, 16))), 1.0)
        for setting, value, changed in (settings or {}).get(target, ()) if o.up else ():
            key = (("setting", label_value(setting, 64)),)
            add(target, "llmdoctor_setting_info", key + (("value", label_value(value, 128)),), 1.0)
            if changed:
                add(target, "llmdoctor_setting_changed_timestamp_seconds", key, changed)
    for target, name, labels, value in totals.values():
        if target in outcomes:
            add(target, name, labels, value)

    out: list[Metric] = []
    for name, rows in samples.items():
        if not rows:
            continue
        spec = SPECS[name]
        labelnames = (["target"] if multi else []) + list(spec.labels)
        family_cls = CounterMetricFamily if spec.kind == COUNTER else GaugeMetricFamily
        family = family_cls(name, spec.help, labels=labelnames)
        seen = set()
        for labels, value in rows:
            values = [v for _, v in labels]
            if tuple(values) in seen:  # one series per label set: first reading wins
                continue
            seen.add(tuple(values))
            family.add_metric(values, value)
        out.append(family)
    return out
