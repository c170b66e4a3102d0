"""Readings from the facts of a diagnosis run: gauge samples and counter readings. Pure.

The facts read here are the catalogued ones (facts/catalogue.py: GpuFact, MemoryFact,
OllamaConfig, LoadedModel, OllamaLogSummary, VllmMetricsSample, VllmLog, LlamaState,
ProbeRuns), read by their own field names. A fact may be missing, or a field None, so
each field is read through `field()` (None for a missing one), and one unreadable fact
drops only its own series, never a scrape.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from llmdoctor.app.exporter.counters import CounterReading

Sample = tuple[str, tuple[tuple[str, str], ...], float]  # (name, labels, value)
MAX_MODELS = 16  # bound on the `model` label: a host loads a handful of models at most
MAX_GPUS = 64
_LABEL_SAFE = re.compile(r"[^A-Za-z0-9._:/@+-]")


def label_value(value: Any, limit: int = 64) -> str:
    """A bounded, printable label value: no spaces, quotes or control characters."""
    from llmdoctor.redact import redact_text

    return _LABEL_SAFE.sub("_", redact_text(str(value if value is not None else "")))[:limit]


# -- field access that tolerates a missing fact ---------------------------------------------

def field(obj: Any, name: str, default: Any = None) -> Any:
    """`obj.name` (or `obj[name]` for a mapping), `default` when the fact or field is absent or None."""
    if obj is None:
        return default
    value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return default if value is None else value


def number(value: Any) -> float | None:
    """A finite-or-infinite float from an int, float or numeric string; None otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    value = field(value, "value") if not isinstance(value, (int, float, str)) else value
    if isinstance(value, (int, float)):
        try:
            result = float(value)
        except OverflowError:  # an int beyond any float
            result = math.inf if value > 0 else -math.inf
    elif isinstance(value, str):
        try:
            result = float(value.strip().strip("\"'"))
        except ValueError:
            return None
    else:
        return None
    return None if math.isnan(result) else result


def items(value: Any) -> list[Any]:
    """A sequence of records (a tuple-valued fact, or a fact's tuple field); [] otherwise."""
    return list(value) if isinstance(value, (list, tuple)) else []


_GO_DURATION = re.compile(r"(-?\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def keep_alive_seconds(value: Any) -> float | None:
    """OLLAMA_KEEP_ALIVE as seconds: a Go duration ("5m", "1h30m", "-1m") or integer
    seconds ("3600"); negative means never unload, exported as +Inf."""
    if not isinstance(value, (str, int, float)):
        value = field(value, "value")
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


def _engines(facts: Mapping[str, Any]) -> list[Any]:
    return items(facts.get("engines"))


def _engine_version(e: Any, facts: Mapping[str, Any]) -> Any:
    """The engine's version: discovery's, else what its own facts say (live discovery
    by unit or port does not know it; /api/version and /props do)."""
    version = field(e, "version")
    if version:
        return version
    kind = field(e, "kind")
    if kind == "ollama" and isinstance(facts.get("ollama_version"), str):
        return facts["ollama_version"]
    if kind == "llamacpp":
        return field(field(facts.get("llamacpp_state"), "props"), "build_info", default="")
    return ""


def engine_samples(facts: Mapping[str, Any]) -> list[Sample]:
    seen = set()
    out: list[Sample] = []
    for e in _engines(facts):
        version = _engine_version(e, facts)
        labels = (("engine", label_value(field(e, "kind"), 16)), ("version", label_value(version, 32)))
        if labels not in seen:
            seen.add(labels)
            out.append(("llmdoctor_engine_info", labels, 1.0))
    return out


def _setting(config: Any, name: str) -> Any:
    """A value of the effective Ollama configuration (OllamaConfig.values)."""
    values = field(config, "values")
    return values.get(name) if isinstance(values, Mapping) else None


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
        name = label_value(field(m, "name"), 128)
        size = number(field(m, "size"))
        vram = number(field(m, "size_vram"))
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
    for direction, name in (("in", "llmdoctor_swap_in_bytes_per_second"), ("out", "llmdoctor_swap_out_bytes_per_second")):
        rate = number(field(mem, f"swap_{direction}_bps"))
        if rate is not None and rate >= 0:
            out.append((name, (), rate))
    return out


def gpu_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """GpuFact.gpus: GpuDevice(index, used_bytes, total_bytes)."""
    out: list[Sample] = []
    for i, g in enumerate(items(field(facts.get("gpu"), "gpus"))[:MAX_GPUS]):
        idx = label_value(field(g, "index", default=i), 8)
        for key, name in (("used_bytes", "llmdoctor_gpu_memory_used_bytes"),
                          ("total_bytes", "llmdoctor_gpu_memory_total_bytes")):
            value = number(field(g, key))
            if value is not None and value >= 0:
                out.append((name, (("gpu", idx),), value))
    return out


def _vllm_now(facts: Mapping[str, Any]) -> tuple[float | None, float | None, float | None]:
    """(running, waiting, KV usage 0-1) now: /metrics first, else the log's last stats line."""
    vm = facts.get("vllm_metrics")
    latest = field(vm, "latest")
    running = number(field(latest, "running"))
    waiting = number(field(latest, "waiting"))
    usage = number(field(latest, "kv_usage"))
    if running is None and waiting is None:
        last = None
        for scan in items(field(facts.get("vllm_log"), "scans")):
            stats = items(field(scan, "recent_stats"))
            if stats:
                last = stats[-1]
        if last is not None:
            running = number(field(last, "running"))
            waiting = number(field(last, "waiting"))
            pct = number(field(last, "kv_usage_pct"))
            usage = pct / 100.0 if pct is not None else usage
    return running, waiting, usage


def _sglang_now(facts: Mapping[str, Any]) -> tuple[float | None, float | None, float | None]:
    """(running, queued, token usage 0-1) now: /metrics first, else the log's last batch line."""
    latest = field(facts.get("sglang_metrics"), "latest")
    running, queued = number(field(latest, "running")), number(field(latest, "queued"))
    usage = number(field(latest, "token_usage"))
    if running is None and queued is None:
        for scan in items(field(facts.get("sglang_log"), "scans")):
            batches = items(field(scan, "recent"))
            if batches:
                last = batches[-1]
                running, queued = number(field(last, "running")), number(field(last, "queue"))
                usage = number(field(last, "token_usage"))
    return running, queued, usage


def queue_samples(facts: Mapping[str, Any]) -> list[Sample]:
    out: list[Sample] = []
    running, waiting, usage = _vllm_now(facts)
    if waiting is not None and waiting >= 0:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "vllm"),), waiting))
    if running is not None and running >= 0:
        out.append(("llmdoctor_requests_running", (("engine", "vllm"),), running))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "vllm"),), usage))
    running, queued, usage = _sglang_now(facts)
    for name, value in (("llmdoctor_queue_depth_requests", queued), ("llmdoctor_requests_running", running)):
        if value is not None and value >= 0:
            out.append((name, (("engine", "sglang"),), value))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "sglang"),), usage))
    state = facts.get("llamacpp_state")
    lm = field(state, "metrics")
    deferred = number(field(lm, "requests_deferred"))
    if deferred is not None and deferred >= 0:
        out.append(("llmdoctor_queue_depth_requests", (("engine", "llamacpp"),), deferred))
    processing = number(field(lm, "requests_processing"))
    if processing is None:
        processing = number(field(state, "busy_slots"))
    if processing is not None and processing >= 0:
        out.append(("llmdoctor_requests_running", (("engine", "llamacpp"),), processing))
    usage = number(field(lm, "kv_cache_usage_ratio"))
    if usage is not None and 0 <= usage <= 1:
        out.append(("llmdoctor_kv_usage_ratio", (("engine", "llamacpp"),), usage))
    return out


def access_log_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """Concurrency rebuilt from Ollama's access lines (knowledge/concurrency.py): the most
    requests in flight at once over the log read, and the longest wait that implies (one slot
    where the log shows requests in flight together finishing one after another; a
    back-to-back chain whose clients hit one deadline)."""
    spans = field(field(facts.get("ollama_log"), "requests"), "spans")
    if not spans:
        return []
    from llmdoctor.judge.deadlines import sent_together
    from llmdoctor.judge.ollama import serial_service
    from llmdoctor.knowledge.concurrency import chains, in_flight, peak, waits_one_slot

    r = field(facts.get("ollama_log"), "requests")
    series = in_flight(spans)
    waited = max(waits_one_slot(spans)) if serial_service(r).bursts else 0.0
    waited = max([waited] + [c.waited_s for c in chains(spans) if sent_together(c)])
    label = (("engine", "ollama"),)
    return [("llmdoctor_engine_requests_in_flight", label, float(max(peak(series), 1))),
            ("llmdoctor_engine_request_wait_seconds", label, round(waited, 3))]


def _ollama_kv(facts: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """Ollama: slots x context (demand) vs tokens that fit next to the weights (capacity)."""
    if facts.get("ollama_show") is None or facts.get("ollama_config") is None:
        return None, None
    from llmdoctor.judge.ollama_kv import kv_budget

    b = kv_budget(facts.get("ollama_show"), facts.get("ollama_config"), facts.get("ollama_ps"),
                  facts.get("ollama_log"), facts.get("gpu"))
    if b is None or not b.bytes_per_token:
        return None, None
    return float(b.slots * b.context), float(max(b.free, 0) // b.bytes_per_token)


def _vllm_kv(facts: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """vLLM: full-length sequences asked for now x tokens per request (demand) vs the
    KV cache size its start-up log printed (capacity)."""
    cap = None
    for scan in items(field(facts.get("vllm_log"), "scans")):
        cap = field(scan, "kv_capacity", default=cap)
    if cap is None:
        return None, None
    per_request = number(field(cap, "tokens_per_request"))
    capacity = number(field(cap, "kv_tokens"))
    concurrency = number(field(cap, "max_concurrency"))
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
    results = field(runs, "results", default=())
    for result in list(results)[:8]:
        engine = label_value(field(result, "engine", default="unknown"), 16)
        ttfts: list[float] = []
        itls: list[float] = []
        for sample in items(field(result, "samples")):
            if field(sample, "status", default="ok") != "ok":
                continue
            ttft = number(field(sample, "ttft_s"))
            if ttft is not None:
                ttfts.append(ttft)
            gaps = field(sample, "itl", default=())
            if isinstance(gaps, (list, tuple)):
                itls.extend(g for g in (number(x) for x in gaps) if g is not None)
        for metric, values in (("llmdoctor_probe_ttft_seconds", ttfts), ("llmdoctor_probe_itl_seconds", itls)):
            # `quantile` is reserved for summaries (promtool check metrics), hence `percentile`.
            for q in (50, 95):
                value = _percentile(values, q)
                if value is not None:
                    out.append((metric, (("engine", engine), ("percentile", str(q))), value))
        started = _unix_time(field(result, "started_at"))
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
    total = number(field(field(vm, "latest"), "preemptions_total"))
    if total is not None:
        out.append(CounterReading("llmdoctor_preemptions", engine, total, "total", "vllm_metrics"))
    else:
        scans = items(field(facts.get("vllm_log"), "scans"))
        # V0 logs the engine's own cumulative count (every 50th preemption): a total
        # that resets only when vLLM restarts, whatever part of the log was read.
        cumulative = [c for c in (number(field(s, "last_cumulative")) for s in scans) if c is not None]
        if cumulative:
            out.append(CounterReading("llmdoctor_preemptions", engine, max(cumulative), "total", "vllm_log:cumulative"))
        elif scans:
            # V1 >= 0.12: `Preemptions: N` per stats interval, summed over the lines read.
            seen = sum((number(field(s, "v1_preemptions")) or 0.0) + (number(field(s, "preemptions_at_least")) or 0.0)
                       for s in scans)
            if seen > 0 or log_mode == "total":
                out.append(CounterReading("llmdoctor_preemptions", engine, seen, log_mode, "vllm_log"))
    # SGLang's retractions are its preemptions: its counter (newer versions), else the log's lines
    sg = (("engine", "sglang"),)
    retracted = number(field(field(facts.get("sglang_metrics"), "latest"), "retracted_total"))
    scans = items(field(facts.get("sglang_log"), "scans"))
    if retracted is not None:
        out.append(CounterReading("llmdoctor_preemptions", sg, retracted, "total", "sglang_metrics"))
    elif scans:
        seen = sum(number(field(s, "retracted_reqs")) or 0.0 for s in scans)
        if seen > 0 or log_mode == "total":
            out.append(CounterReading("llmdoctor_preemptions", sg, seen, log_mode, "sglang_log"))
    olog = facts.get("ollama_log")
    loads = number(field(olog, "load_count"))
    if loads is not None:
        out.append(CounterReading("llmdoctor_model_loads", (("engine", "ollama"),), loads, log_mode, "ollama_log"))
    return out


def progress_samples(facts: Mapping[str, Any]) -> list[Sample]:
    """llmdoctor_engine_progress from the engine_progress fact (judge/progress.py decides)."""
    from llmdoctor.judge.progress import STALLED, from_readings

    out: list[Sample] = []
    for p in items(facts.get("engine_progress")):
        if field(p, "health") not in ("ok", "timeout"):
            continue  # refused, loading or unreadable: llmdoctor_up and the findings say so
        verdict = from_readings(field(p, "readings", ()), "")
        stalled = field(p, "health") == "timeout" or (verdict is not None and verdict.state == STALLED)
        out.append(("llmdoctor_engine_progress", (("engine", label_value(field(p, "kind"), 16)),
                                                  ("port", label_value(field(p, "port"), 8))), 0.0 if stalled else 1.0))
    return out


GAUGE_READERS = (
    engine_samples,
    progress_samples,
    ollama_config_samples,
    model_memory_samples,
    swap_samples,
    gpu_samples,
    queue_samples,
    access_log_samples,
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
