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
    "llmdoctor_kv_demand_tokens": FamilySpec(GAUGE, "KV-cache tokens asked for: Ollama slots x context, vLLM sequences running or waiting x tokens per request."),
    "llmdoctor_kv_capacity_tokens": FamilySpec(GAUGE, "KV-cache tokens the server has room for (Ollama: next to the weights on the GPU; vLLM: its start-up KV cache size)."),
    "llmdoctor_kv_usage_ratio": FamilySpec(GAUGE, "Fraction of the KV cache in use (0-1), as the engine reports it.", ("engine",)),
    "llmdoctor_probe_ttft_seconds": FamilySpec(GAUGE, "Time to first token measured by the last probe, at the 50th and 95th percentile.", ("engine", "percentile")),
    "llmdoctor_probe_itl_seconds": FamilySpec(GAUGE, "Inter-token latency measured by the last probe, at the 50th and 95th percentile.", ("engine", "percentile")),
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

    def to_json(self) -> list[dict[str, Any]]:
        """A plain form to keep between processes (textfile mode under a timer)."""
        return [
            {"target": t, "name": n, "labels": [list(kv) for kv in labels], "source": st.source, "last": st.last, "total": st.total}
            for (t, n, labels), st in sorted(self._state.items())
        ]

    @classmethod
    def from_json(cls, data: Any) -> "MonotonicTotals":
        """The inverse of to_json; entries that do not parse are dropped (counting restarts)."""
        totals = cls()
        for row in data if isinstance(data, list) else ():
            try:
                labels = tuple((str(k), str(v)) for k, v in row["labels"])
                state = _CounterState(str(row["source"]), float(row["last"]), float(row["total"]))
                if not (math.isfinite(state.last) and math.isfinite(state.total)) or state.total < 0:
                    continue
                totals._state[(str(row["target"]), str(row["name"]), labels)] = state
            except (KeyError, TypeError, ValueError):
                continue
        return totals


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
    """Mean swap traffic over the run's sample window (MemoryFact.swap_in_bps/swap_out_bps)."""
    mem = facts.get("memory")
    if mem is None:
        return []
    out: list[Sample] = []
    page = number(pick(mem, "page_size", "page_bytes")) or 4096.0
    for direction, name in (("in", "llmdoctor_swap_in_bytes_per_second"), ("out", "llmdoctor_swap_out_bytes_per_second")):
        rate = number(pick(mem, f"swap_{direction}_bps", f"swap_{direction}_bytes_per_second"))
        if rate is None:
            pages = number(pick(mem, f"swap_{direction}_pages_per_second", f"pswp{direction}_per_second"))
            rate = pages * page if pages is not None else None
        if rate is not None and rate >= 0:
            out.append((name, (), rate))
    return out


def gpu_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """GpuFact.gpus: GpuDevice(index, used_bytes, total_bytes)."""
    out: list[Sample] = []
    for i, g in enumerate(items(facts.get("gpu"))[:MAX_GPUS]):
        idx = label_value(pick(g, "index", "id", "minor", default=i), 8)
        for field_names, name in (
            (("used_bytes", "memory_used_bytes", "memory_used"), "llmdoctor_gpu_memory_used_bytes"),
            (("total_bytes", "memory_total_bytes", "memory_total"), "llmdoctor_gpu_memory_total_bytes"),
        ):
            value = number(pick(g, *field_names))
            if value is not None and value >= 0:
                out.append((name, (("gpu", idx),), value))
    return out


def _vllm_now(facts: Mapping[str, Any]) -> tuple[float | None, float | None, float | None]:
    """(running, waiting, KV usage 0-1) now: /metrics first, else the log's last stats line."""
    vm = facts.get("vllm_metrics")
    latest = pick(vm, "latest", default=vm)
    running = number(pick(latest, "running", "num_requests_running"))
    waiting = number(pick(latest, "waiting", "num_requests_waiting"))
    usage = number(pick(latest, "kv_usage", "kv_cache_usage_perc", "gpu_cache_usage_perc"))
    if running is None and waiting is None:
        last = None
        for scan in items(pick(facts.get("vllm_log"), "scans")):
            stats = pick(scan, "recent_stats")
            if isinstance(stats, (list, tuple)) and stats:
                last = stats[-1]
        if last is not None:
            running = number(pick(last, "running"))
            waiting = number(pick(last, "waiting"))
            pct = number(pick(last, "kv_usage_pct"))
            usage = pct / 100.0 if pct is not None else usage
    return running, waiting, usage


def queue_samples(facts: Mapping[str, Any]) -> list[Sample]:
    out: list[Sample] = []
    running, waiting, usage = _vllm_now(facts)
    if waiting is not None and waiting >= 0:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "vllm"),), waiting))
    if running is not None and running >= 0:
        out.append(("llmdoctor_requests_running", (("engine", "vllm"),), running))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "vllm"),), usage))
    state = facts.get("llamacpp_state")
    lm = pick(state, "metrics")
    deferred = number(pick(lm, "requests_deferred"))
    if deferred is None:
        deferred = number(pick(state, "requests_deferred"))
    if deferred is not None and deferred >= 0:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "llamacpp"),), deferred))
    processing = number(pick(lm, "requests_processing"))
    if processing is None:
        processing = number(pick(state, "busy_slots", "requests_processing"))
    if processing is not None and processing >= 0:
        out.append(("llmdoctor_requests_running", (("engine", "llamacpp"),), processing))
    usage = number(pick(lm, "kv_cache_usage_ratio"))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "llamacpp"),), usage))
    return out


def _ollama_kv(facts: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """Ollama: slots x context (demand) vs tokens that fit next to the weights (capacity)."""
    if facts.get("ollama_show") is None or facts.get("ollama_config") is None:
        return None, None
    from ..engines.ollama_kv import kv_budget

    b = kv_budget(facts.get("ollama_show"), facts.get("ollama_config"), facts.get("ollama_ps"),
                  facts.get("ollama_log"), facts.get("gpu"))
    if b is None or not b.bytes_per_token:
        return None, None
    return float(b.slots * b.context), float(max(b.free, 0) // b.bytes_per_token)


def _vllm_kv(facts: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """vLLM: full-length sequences asked for now x tokens per request (demand) vs the
    KV cache size its start-up log printed (capacity)."""
    cap = None
    for scan in items(pick(facts.get("vllm_log"), "scans")):
        cap = pick(scan, "kv_capacity", default=cap)
    if cap is None:
        return None, None
    per_request = number(pick(cap, "tokens_per_request"))
    capacity = number(pick(cap, "kv_tokens"))
    concurrency = number(pick(cap, "max_concurrency"))
    if capacity is None and concurrency is not None and per_request:
        capacity = concurrency * per_request
    running, waiting, _ = _vllm_now(facts)
    demand = None
    if per_request and (running is not None or waiting is not None):
        demand = ((running or 0.0) + (waiting or 0.0)) * per_request
    return demand, capacity


def kv_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """KV-cache demand vs capacity in tokens (Ollama's budget, or vLLM's start-up line)."""
    demand = capacity = None
    for reader in (_ollama_kv, _vllm_kv):
        try:
            d, c = reader(facts)
        except Exception:
            continue
        demand = d if demand is None else demand
        capacity = c if capacity is None else capacity
    out: list[Sample] = []
    if demand is not None and demand >= 0:
        out.append(("llmdoctor_kv_demand_tokens", (), demand))
    if capacity is not None and capacity >= 0:
        out.append(("llmdoctor_kv_capacity_tokens", (), capacity))
    return out


def _percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (the probe's own statistics use the same idea)."""
    values = sorted(v for v in values if v is not None and math.isfinite(v) and v >= 0)
    if not values:
        return None
    rank = max(1, math.ceil(q / 100.0 * len(values)))
    return values[rank - 1]


def _unix_time(value: Any) -> float | None:
    n = number(value)
    if n is not None:
        return n
    if isinstance(value, str) and value:
        from datetime import datetime

        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def probe_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """TTFT and inter-token latency percentiles over the last probe's streams, per engine
    (ProbeRuns.results -> ProbeResult.samples -> StreamSample.ttft_s / .itl)."""
    runs = facts.get("probe")
    if runs is None:
        return []
    out: list[Sample] = []
    latest = None
    results = pick(runs, "results", default=runs if isinstance(runs, (list, tuple)) else ())
    for result in list(results)[:8]:
        engine = label_value(pick(result, "engine", default="unknown"), 16)
        ttfts: list[float] = []
        itls: list[float] = []
        for sample in pick(result, "samples", default=()) or ():
            if pick(sample, "status", default="ok") != "ok":
                continue
            ttft = number(pick(sample, "ttft_s"))
            if ttft is not None:
                ttfts.append(ttft)
            gaps = pick(sample, "itl", default=())
            if isinstance(gaps, (list, tuple)):
                itls.extend(g for g in (number(x) for x in gaps) if g is not None)
        for metric, values in (("llmdoctor_probe_ttft_seconds", ttfts), ("llmdoctor_probe_itl_seconds", itls)):
            # `quantile` is reserved for summaries (promtool check metrics), hence `percentile`.
            for q in (50, 95):
                value = _percentile(values, q)
                if value is not None:
                    out.append((metric, (("engine", engine), ("percentile", str(q))), value))
        started = _unix_time(pick(result, "started_at"))
        if started is not None and started > 0:
            latest = started if latest is None else max(latest, started)
    if latest is not None:
        out.append(("llmdoctor_probe_last_timestamp_seconds", (), latest))
    return out


def counter_readings(facts: Mapping[str, Any], log_mode: str = "total") -> list[CounterReading]:
    """Preemptions (vLLM's own counter first, else its log) and model loads (Ollama's log).

    `log_mode` says what a log count means: "total" when every run reads the whole
    window again (an evidence directory), "delta" when the scan resumes where the
    previous run stopped (a live host with a state directory)."""
    out: list[CounterReading] = []
    engine = (("engine", "vllm"),)
    vm = facts.get("vllm_metrics")
    total = number(pick(pick(vm, "latest", default=vm), "preemptions_total", "num_preemptions_total"))
    if total is not None:
        out.append(CounterReading("llmdoctor_preemptions", engine, total, "total", "vllm_metrics"))
    else:
        scans = items(pick(facts.get("vllm_log"), "scans"))
        if scans:
            seen = sum((number(pick(s, "preemptions_at_least")) or 0.0) + (number(pick(s, "v1_preemptions")) or 0.0)
                       for s in scans)
            out.append(CounterReading("llmdoctor_preemptions", engine, seen, log_mode, "vllm_log"))
    olog = facts.get("ollama_log")
    loads = number(pick(olog, "load_count"))
    if loads is None and isinstance(pick(olog, "loads"), (list, tuple)):
        loads = float(len(pick(olog, "loads")))
    if loads is not None:
        out.append(CounterReading("llmdoctor_model_loads", (("engine", "ollama"),), loads, log_mode, "ollama_log"))
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


def safe_counter_readings(facts: Mapping[str, Any], log_mode: str = "total") -> list[CounterReading]:
    try:
        return counter_readings(facts, log_mode)
    except Exception:
        return []


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
) -> list[Metric]:
    """Metric families for the latest run of every target.

    `runs` maps target -> (runs, failures) so far; `probes` maps target -> facts
    of its last probe run and `probe_findings` target -> the findings of the checks
    that need the probe, both kept between the cheaper runs without a probe."""
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
        carried = (probe_findings or {}).get(target, ()) if o.up else ()
        for name, labels, value in found + finding_samples(o.result, carried):
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
