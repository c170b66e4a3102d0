"""Map diagnosis results to Prometheus metric families. Pure: no I/O, no clocks.

Figures come from the facts of a run, by fact name. Those facts are written by
other modules and may be missing, partial or reshaped over time, so every
reader here looks fields up defensively (attribute or mapping key, several
spellings) and one unreadable fact drops only its own series, never a scrape.

Conventions (prometheus/client_python, "exporters done right"): base units
(seconds, bytes, tokens), `_total` counters, a fixed label set per family with
bounded values (enums, check ids, model names, GPU indexes), no free text and
no secrets in labels. `target` is added only when several hosts are exported.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from ..model import Cause, Severity

GAUGE, COUNTER = "gauge", "counter"


@dataclass(frozen=True)
class FamilySpec:
    kind: str
    help: str
    labels: tuple[str, ...] = ()


# Every family the exporter can emit. Counter names are given without `_total`
# (prometheus_client appends it). The dashboard and rule tests check against this.
SPECS: dict[str, FamilySpec] = {
    "llmdoctor_up": FamilySpec(GAUGE, "1 when the last diagnosis of the target ran, 0 when the target could not be examined."),
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
    "llmdoctor_preemptions": FamilySpec(COUNTER, "Requests preempted for lack of KV cache (never decreases, even when the engine restarts).", ("engine",)),
    "llmdoctor_model_loads": FamilySpec(COUNTER, "Model loads seen in the server log (reload churn when it keeps rising).", ("engine",)),
    "llmdoctor_queue_depth_requests": FamilySpec(GAUGE, "Requests waiting for a slot (vLLM waiting, llama-server deferred).", ("engine",)),
    "llmdoctor_requests_running": FamilySpec(GAUGE, "Requests being served now.", ("engine",)),
    "llmdoctor_kv_demand_tokens": FamilySpec(GAUGE, "KV-cache tokens the configured concurrency and context need."),
    "llmdoctor_kv_capacity_tokens": FamilySpec(GAUGE, "KV-cache tokens the server has room for."),
    "llmdoctor_kv_usage_ratio": FamilySpec(GAUGE, "Fraction of the KV cache in use (0-1), as the engine reports it.", ("engine",)),
    "llmdoctor_probe_ttft_seconds": FamilySpec(GAUGE, "Time to first token measured by the last probe, at the 50th and 95th percentile.", ("percentile",)),
    "llmdoctor_probe_itl_seconds": FamilySpec(GAUGE, "Inter-token latency measured by the last probe, at the 50th and 95th percentile.", ("percentile",)),
    "llmdoctor_probe_last_timestamp_seconds": FamilySpec(GAUGE, "Unix time of the last probe."),
}

MAX_MODELS = 16  # bound on the `model` label: a host loads a handful of models at most
MAX_GPUS = 64
_LABEL_SAFE = re.compile(r"[^A-Za-z0-9._:/@+-]")


def exported_names() -> set[str]:
    """Sample names as they appear in the exposition (counters with `_total`)."""
    return {n + "_total" if s.kind == COUNTER else n for n, s in SPECS.items()}


def label_value(value: Any, limit: int = 64) -> str:
    """A bounded, printable label value: no spaces, quotes or control characters."""
    return _LABEL_SAFE.sub("_", str(value if value is not None else ""))[:limit]


# -- defensive field access ------------------------------------------------------------

_MISSING = object()


def pick(obj: Any, *names: str, default: Any = None) -> Any:
    """The first present, non-None field among `names`, from a mapping or an object."""
    if obj is None:
        return default
    for name in names:
        if isinstance(obj, Mapping):
            value = obj.get(name, _MISSING)
        else:
            value = getattr(obj, name, _MISSING)
        if value is not _MISSING and value is not None:
            return value
    return default


def number(value: Any) -> float | None:
    """A finite-or-infinite float from an int, float or numeric string; None otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    value = pick(value, "value") if not isinstance(value, (int, float, str)) else value
    if isinstance(value, (int, float)):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.strip().strip("\"'"))
        except ValueError:
            return None
    else:
        return None
    return None if math.isnan(result) else result


def items(value: Any) -> list[Any]:
    """A fact that is a sequence of records, or a record wrapping one (`.models`, `.gpus`...)."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        inner = pick(value, "models", "gpus", "devices", "items")
        return list(inner) if isinstance(inner, (list, tuple)) else [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    inner = pick(value, "models", "gpus", "devices", "items")
    return list(inner) if isinstance(inner, (list, tuple)) else []


_GO_DURATION = re.compile(r"(-?\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def keep_alive_seconds(value: Any) -> float | None:
    """OLLAMA_KEEP_ALIVE as seconds: a Go duration ("5m", "1h30m", "-1m") or integer
    seconds ("3600"); negative means never unload (FACTS.md §1), exported as +Inf."""
    if not isinstance(value, (str, int, float)):
        value = pick(value, "value")
    n = number(value)
    if n is None:
        if not isinstance(value, str):
            return None
        text = value.strip().strip("\"'")
        negative = text.startswith("-")
        body = text.lstrip("+-")
        parts = _GO_DURATION.findall(body)
        if not parts or "".join(a + u for a, u in parts) != body:
            return None
        n = sum(float(a) * _UNIT_SECONDS[u] for a, u in parts)
        n = -n if negative else n
    return math.inf if n < 0 else n


# -- run outcomes and counters that never go down -----------------------------------------


@dataclass(frozen=True)
class RunOutcome:
    """One diagnosis of one target, as the scheduler saw it."""

    target: str
    started: float  # unix time
    duration: float  # seconds
    result: Any = None  # llmdoctor.diagnose.TargetResult, or None when the run itself failed
    error: str = ""

    @property
    def up(self) -> bool:
        if self.result is None or self.error:
            return False
        report = getattr(self.result, "report", None)
        return getattr(report, "engine", "") != "unreachable"

    @property
    def facts(self) -> Mapping[str, Any]:
        facts = getattr(self.result, "facts", None)
        return facts if isinstance(facts, Mapping) else {}


@dataclass(frozen=True)
class CounterReading:
    """A counter as a source reports it.

    `mode="total"`: cumulative at the source (an engine's own counter, a log scan
    over the whole log); it may drop when the source restarts. `mode="delta"`: new
    events since the previous run (a resumable log scan)."""

    name: str
    labels: tuple[tuple[str, str], ...]
    value: float
    mode: str = "total"
    source: str = ""


@dataclass
class _CounterState:
    source: str
    last: float
    total: float


@dataclass
class MonotonicTotals:
    """Exported counters that only grow, whatever their sources do.

    A source total that drops is a restart: what it reports after the drop is new.
    A change of source (engine counter one run, log scan the next) re-bases
    without adding anything, so nothing is counted twice."""

    _state: dict[tuple[str, str, tuple[tuple[str, str], ...]], _CounterState] = field(default_factory=dict)

    def feed(self, target: str, readings: Iterable[CounterReading]) -> None:
        for r in readings:
            if not math.isfinite(r.value) or r.value < 0:  # a garbled reading counts nothing
                continue
            key = (target, r.name, r.labels)
            state = self._state.get(key)
            if r.mode == "delta":
                if state is None:
                    self._state[key] = _CounterState(r.source, 0.0, r.value)
                else:
                    state.total += r.value
                continue
            if state is None:
                self._state[key] = _CounterState(r.source, r.value, r.value)
            elif state.source != r.source:
                state.source, state.last = r.source, r.value
            else:
                state.total += r.value - state.last if r.value >= state.last else r.value
                state.last = r.value

    def values(self) -> list[tuple[str, str, tuple[tuple[str, str], ...], float]]:
        return [(t, n, labels, s.total) for (t, n, labels), s in sorted(self._state.items())]

    def forget(self, targets: Iterable[str]) -> None:
        gone = set(targets)
        for key in [k for k in self._state if k[0] in gone]:
            del self._state[key]


# -- readings from facts --------------------------------------------------------------

Sample = tuple[str, tuple[tuple[str, str], ...], float]


def _engines(facts: Mapping[str, Any]) -> list[Any]:
    return items(facts.get("engines"))


def engine_samples(facts: Mapping[str, Any]) -> list[Sample]:
    seen = set()
    out: list[Sample] = []
    for e in _engines(facts):
        labels = (("engine", label_value(pick(e, "kind"), 16)), ("version", label_value(pick(e, "version", default=""), 32)))
        if labels not in seen:
            seen.add(labels)
            out.append(("llmdoctor_engine_info", labels, 1.0))
    return out


def _setting(config: Any, name: str) -> Any:
    """A value from the effective Ollama configuration, however it is wrapped."""
    for holder in (config, pick(config, "values", "effective", "env", "settings")):
        if holder is None:
            continue
        value = pick(holder, name, name.lower(), name.removeprefix("OLLAMA_").lower())
        if value is not None:
            return pick(value, "value", default=value) if not isinstance(value, (str, int, float)) else value
    return None


def ollama_config_samples(facts: Mapping[str, Any]) -> list[Sample]:
    config = facts.get("ollama_config")
    if config is None:
        return []
    out: list[Sample] = []
    for var, name in (
        ("OLLAMA_NUM_PARALLEL", "llmdoctor_ollama_num_parallel"),
        ("OLLAMA_MAX_QUEUE", "llmdoctor_ollama_max_queue"),
        ("OLLAMA_CONTEXT_LENGTH", "llmdoctor_ollama_context_length_tokens"),
    ):
        value = number(_setting(config, var))
        if value is not None and value >= 0:
            out.append((name, (), value))
    keep = _setting(config, "OLLAMA_KEEP_ALIVE")
    seconds = keep_alive_seconds(keep) if keep is not None else None
    if seconds is not None:
        out.append(("llmdoctor_ollama_keep_alive_seconds", (), seconds))
    return out


def model_memory_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """Per loaded model: bytes on GPU (size_vram) and on CPU (size - size_vram)."""
    out: list[Sample] = []
    for m in items(facts.get("ollama_ps"))[:MAX_MODELS]:
        name = label_value(pick(m, "name", "model"), 128)
        size = number(pick(m, "size", "size_bytes"))
        vram = number(pick(m, "size_vram", "vram_bytes", "gpu_bytes"))
        if not name:
            continue
        if vram is not None:
            out.append(("llmdoctor_model_memory_bytes", (("model", name), ("device", "gpu")), vram))
        if size is not None:
            out.append(("llmdoctor_model_memory_bytes", (("model", name), ("device", "cpu")), max(size - (vram or 0.0), 0.0)))
    return out


def swap_samples(facts: Mapping[str, Any]) -> list[Sample]:
    mem = facts.get("memory")
    if mem is None:
        return []
    out: list[Sample] = []
    page = number(pick(mem, "page_size", "page_bytes")) or 4096.0
    for direction, name in (("in", "llmdoctor_swap_in_bytes_per_second"), ("out", "llmdoctor_swap_out_bytes_per_second")):
        rate = number(pick(mem, f"swap_{direction}_bytes_per_second", f"swap_{direction}_bytes_per_s", f"swap_{direction}_bps"))
        if rate is None:
            pages = number(pick(mem, f"swap_{direction}_pages_per_second", f"pswp{direction}_per_second"))
            rate = pages * page if pages is not None else None
        if rate is not None and rate >= 0:
            out.append((name, (), rate))
    return out


def gpu_samples(facts: Mapping[str, Any]) -> list[Sample]:
    out: list[Sample] = []
    for i, g in enumerate(items(facts.get("gpu"))[:MAX_GPUS]):
        idx = label_value(pick(g, "index", "id", "minor", default=i), 8)
        for field_names, name in (
            (("memory_used_bytes", "memory_used", "used_bytes", "mem_used"), "llmdoctor_gpu_memory_used_bytes"),
            (("memory_total_bytes", "memory_total", "total_bytes", "mem_total"), "llmdoctor_gpu_memory_total_bytes"),
        ):
            value = number(pick(g, *field_names))
            if value is not None and value >= 0:
                out.append((name, (("gpu", idx),), value))
    return out


def queue_samples(facts: Mapping[str, Any]) -> list[Sample]:
    out: list[Sample] = []
    vm = facts.get("vllm_metrics")
    waiting = number(pick(vm, "num_requests_waiting", "waiting", "requests_waiting"))
    if waiting is None:
        waiting = number(pick(facts.get("vllm_log"), "last_waiting", "waiting"))
    if waiting is not None:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "vllm"),), waiting))
    running = number(pick(vm, "num_requests_running", "running", "requests_running"))
    if running is not None:
        out.append(("llmdoctor_requests_running", (("engine", "vllm"),), running))
    usage = number(pick(vm, "kv_cache_usage_perc", "gpu_cache_usage_perc", "kv_usage", "kv_cache_usage"))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "vllm"),), usage))
    ls = facts.get("llamacpp_state")
    deferred = number(pick(ls, "requests_deferred", "deferred"))
    if deferred is None:
        deferred = number(pick(pick(ls, "metrics"), "requests_deferred", "llamacpp:requests_deferred"))
    if deferred is not None:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "llamacpp"),), deferred))
    processing = number(pick(ls, "requests_processing", "processing", "busy_slots"))
    if processing is not None:
        out.append(("llmdoctor_requests_running", (("engine", "llamacpp"),), processing))
    return out


def kv_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """KV demand vs capacity in tokens, from whichever fact carries them."""
    demand = capacity = None
    for name in ("kv_budget", "kv_capacity", "capacity", "vllm_log", "llamacpp_state", "ollama_log"):
        fact = facts.get(name)
        if fact is None:
            continue
        if demand is None:
            demand = number(pick(fact, "demand_tokens", "kv_demand_tokens", "needed_tokens"))
        if capacity is None:
            capacity = number(pick(fact, "capacity_tokens", "kv_capacity_tokens", "kv_cache_tokens", "gpu_kv_cache_tokens"))
    out: list[Sample] = []
    if demand is not None and demand >= 0:
        out.append(("llmdoctor_kv_demand_tokens", (), demand))
    if capacity is not None and capacity >= 0:
        out.append(("llmdoctor_kv_capacity_tokens", (), capacity))
    return out


def probe_samples(facts: Mapping[str, Any]) -> list[Sample]:
    probe = facts.get("probe")
    if probe is None:
        return []
    out: list[Sample] = []
    for metric, prefixes in (("llmdoctor_probe_ttft_seconds", ("ttft",)), ("llmdoctor_probe_itl_seconds", ("itl", "inter_token"))):
        # `quantile` is reserved for summaries (promtool check metrics), hence `percentile`.
        for q, suffix in (("50", "p50"), ("95", "p95")):
            names = [f"{p}_{suffix}_seconds" for p in prefixes] + [f"{p}_{suffix}" for p in prefixes]
            value = number(pick(probe, *names))
            if value is None:  # nested: probe.ttft.p50
                for p in prefixes:
                    value = number(pick(pick(probe, p, f"{p}_seconds"), suffix, f"{suffix}_seconds"))
                    if value is not None:
                        break
            if value is not None and value >= 0:
                out.append((metric, (("percentile", q),), value))
    ts = number(pick(probe, "timestamp", "started", "finished_at", "time"))
    if ts is not None and ts > 0:
        out.append(("llmdoctor_probe_last_timestamp_seconds", (), ts))
    return out


def counter_readings(facts: Mapping[str, Any]) -> list[CounterReading]:
    """Preemptions and model loads, preferring an engine's own counter to the log."""
    out: list[CounterReading] = []
    engine = (("engine", "vllm"),)
    total = number(pick(facts.get("vllm_metrics"), "num_preemptions_total", "preemptions_total", "num_preemptions", "preemptions"))
    if total is not None:
        out.append(CounterReading("llmdoctor_preemptions", engine, total, "total", "vllm_metrics"))
    else:
        vlog = facts.get("vllm_log")
        new = number(pick(vlog, "preemptions_new", "new_preemptions"))
        if new is not None:
            out.append(CounterReading("llmdoctor_preemptions", engine, new, "delta", "vllm_log"))
        else:
            seen = number(pick(vlog, "preemptions_total", "preemptions", "preemption_count", "total_preemptions"))
            if seen is not None:
                out.append(CounterReading("llmdoctor_preemptions", engine, seen, "total", "vllm_log"))
    olog = facts.get("ollama_log")
    new_loads = number(pick(olog, "loads_new", "new_loads"))
    if new_loads is not None:
        out.append(CounterReading("llmdoctor_model_loads", (("engine", "ollama"),), new_loads, "delta", "ollama_log"))
    else:
        loads = number(pick(olog, "loads", "load_count", "model_loads", "loads_total"))
        if loads is None and isinstance(pick(olog, "loads"), (list, tuple)):
            loads = float(len(pick(olog, "loads")))
        if loads is not None:
            out.append(CounterReading("llmdoctor_model_loads", (("engine", "ollama"),), loads, "total", "ollama_log"))
    return out


GAUGE_READERS = (
    engine_samples,
    ollama_config_samples,
    model_memory_samples,
    swap_samples,
    gpu_samples,
    queue_samples,
    kv_samples,
    probe_samples,
)


def gauge_samples(facts: Mapping[str, Any]) -> tuple[list[Sample], list[str]]:
    """All gauge samples a run's facts yield, and which readers failed (and why)."""
    out: list[Sample] = []
    failed: list[str] = []
    for reader in GAUGE_READERS:
        try:
            out.extend(reader(facts))
        except Exception as e:  # a reshaped fact must never break a scrape
            failed.append(f"{reader.__name__}: {type(e).__name__}")
    return out, failed


def safe_counter_readings(facts: Mapping[str, Any]) -> list[CounterReading]:
    try:
        return counter_readings(facts)
    except Exception:
        return []


def finding_samples(result: Any) -> list[Sample]:
    report = getattr(result, "report", None)
    active: set[tuple[tuple[str, str], ...]] = set()
    by_severity = {s.value: 0 for s in Severity}
    for f in getattr(report, "findings", ()) or ():
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
) -> list[Metric]:
    """Metric families for the latest run of every target.

    `runs` maps target -> (runs, failures) so far; `probes` maps target -> facts
    of its last probe run, kept between the cheaper runs without a probe."""
    multi = len(outcomes) > 1 if multi_target is None else multi_target
    samples: dict[str, list[tuple[tuple[tuple[str, str], ...], float]]] = {name: [] for name in SPECS}

    def add(target: str, name: str, labels: tuple[tuple[str, str], ...], value: float) -> None:
        spec = SPECS[name]
        if tuple(k for k, _ in labels) != spec.labels:
            raise ValueError(f"{name}: labels {labels} do not match {spec.labels}")
        samples[name].append(((("target", label_value(target, 128)),) + labels if multi else labels, value))

    for target, o in sorted(outcomes.items()):
        add(target, "llmdoctor_up", (), 1.0 if o.up else 0.0)
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
        for name, labels, value in found + finding_samples(o.result):
            add(target, name, labels, value)
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
