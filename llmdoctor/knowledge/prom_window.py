"""A window of Prometheus series -> one `PromTarget` per engine instance, pure.

What each engine exports under which name (the engines' sources: vLLM's
vllm/v1/metrics/loggers.py, SGLang's srt/metrics/collector.py, llama.cpp's server.cpp): the same
quantities the live checks read from one scrape (queue, running, KV usage, preemptions),
here over time, so a finding can say when it held. Instances are told apart by their
`pod` label (Kubernetes) or else `instance`; node_exporter's and dcgm-exporter's series
join the instances on the same host (the `instance` host part, or dcgm's `Hostname`).
llmdoctor's own exporter series (`llmdoctor_*`) are a target each, of the engine its
`engine` label names.
"""
from __future__ import annotations

import time

from llmdoctor.model import Record, record
from llmdoctor.knowledge.promql import Series, matching, rate_window
from llmdoctor.parsing import ParseError

GAUGE, MAX, COUNTER, RATE, P95 = "sum", "max", "counter", "rate", "p95"

# quantity -> (names across versions, first present wins; how a point is formed)
ENGINE_SERIES: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "vllm": {
        "waiting": (("vllm:num_requests_waiting",), GAUGE),
        "running": (("vllm:num_requests_running",), GAUGE),
        "kv": (("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"), MAX),
        "preemptions": (("vllm:num_preemptions_total",), COUNTER),
        "tokens": (("vllm:generation_tokens_total",), RATE),
        "ttft": (("vllm:time_to_first_token_seconds",), P95),
        "itl": (("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"), P95),
    },
    "sglang": {
        "waiting": (("sglang:num_queue_reqs",), GAUGE),
        "running": (("sglang:num_running_reqs",), GAUGE),
        "kv": (("sglang:token_usage",), MAX),
        "preemptions": (("sglang:num_retracted_requests_total",), COUNTER),
        "tokens": (("sglang:generation_tokens_total",), RATE),
        "ttft": (("sglang:time_to_first_token_seconds",), P95),
        "itl": (("sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"), P95),
    },
    "llamacpp": {  # no labels of its own; very old builds wrote llamacpp_ (server.cpp)
        "waiting": (("llamacpp:requests_deferred", "llamacpp_requests_deferred"), GAUGE),
        "running": (("llamacpp:requests_processing", "llamacpp_requests_processing"), GAUGE),
        "kv": (("llamacpp:kv_cache_usage_ratio",), MAX),  # removed from /metrics in 2025
        "tokens": (("llamacpp:tokens_predicted_total", "llamacpp_tokens_predicted_total"), RATE),
    },
    "llmdoctor": {  # the exporter's own series (app/exporter/metrics.py), by `engine`
        "waiting": (("llmdoctor_queue_depth_requests",), GAUGE),
        "running": (("llmdoctor_requests_running",), GAUGE),
        "kv": (("llmdoctor_kv_usage_ratio",), MAX),
        "preemptions": (("llmdoctor_preemptions_total", "llmdoctor_preemptions"), COUNTER),
        "findings": (("llmdoctor_finding",), "findings"),  # 1 while a check reports: which, and when
    },
}
# Host series, joined to the engines on the same host (summed or maxed over devices).
HOST_SERIES: dict[str, tuple[tuple[str, ...], str]] = {
    "swap_in": (("node_vmstat_pswpin",), RATE),  # pages/s
    "swap_out": (("node_vmstat_pswpout",), RATE),
    "gpu_mem_used": (("DCGM_FI_DEV_FB_USED",), GAUGE),  # MiB
    "gpu_mem_free": (("DCGM_FI_DEV_FB_FREE",), GAUGE),
    "sm_clock": (("DCGM_FI_DEV_SM_CLOCK",), MAX),  # MHz
    "throttle": (("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"), MAX),  # bit mask
}
# Which metric names say an engine of a kind (the label-values query asks for these).
NAME_PATTERN = "vllm:.+|sglang:.+|llamacpp[:_].+|llmdoctor_.+|node_vmstat_pswp.+|DCGM_FI_DEV_.+"
TARGET_LABELS = ("instance", "pod", "job", "model_name", "model")
OWN_LABELS = TARGET_LABELS + ("engine", "target")  # an exporter of several targets labels each `target`
PAGE_BYTES = 4096  # node_vmstat_pswpin/out count 4 KiB pages


def query_for(how: str, names: tuple[str, ...], matchers: str, step: float, by: tuple[str, ...]) -> str:
    """One PromQL expression: the first present name of each alternative, `or`ed (a metric
    renamed between versions: a fleet may run both)."""
    group = ", ".join(by)
    parts = []
    for name in names:
        sel = matching(name, matchers)
        if how == P95:
            w = rate_window(step)
            parts.append(f"histogram_quantile(0.95, sum by ({group}, le) (rate({matching(name + '_bucket', matchers)}[{w}])))")
        elif how == RATE:
            parts.append(f"sum by ({group}) (rate({sel}[{rate_window(step)}]))")
        elif how == COUNTER:  # the raw total: its rises (increases()) say when, a reset included
            parts.append(f"sum by ({group}) ({sel})")
        elif how == "findings":
            parts.append(f"max by ({group}, check, severity) ({sel})")
        else:
            parts.append(f"{how} by ({group}) ({sel})")
    return " or ".join(parts)


def wanted_queries(present: set[str], matchers: str, step: float) -> list[tuple[str, str, str]]:
    """(kind, quantity, expr) for each quantity whose series Prometheus holds."""
    out = []
    for kind, table in ENGINE_SERIES.items():
        by = OWN_LABELS if kind == "llmdoctor" else TARGET_LABELS
        for quantity, (names, how) in table.items():
            have = tuple(n for n in names if (n + "_bucket" if how == P95 else n) in present)
            if have:
                out.append((kind, quantity, query_for(how, have, matchers, step, by)))
    for quantity, (names, how) in HOST_SERIES.items():
        have = tuple(n for n in names if n in present)
        if have:  # not under --selector: node_exporter and dcgm run under jobs of their own
            out.append(("host", quantity, query_for(how, have, "", step, ("instance", "Hostname"))))
    return out


class PromTarget(Record):
    """One engine instance over the window: its series by quantity (points: unix time, value)."""

    __slots__ = ("key", "kind", "model", "job", "series", "host", "start", "end", "step", "source", "replicas")

    def __init__(self, key: str, kind: str, model: str = "", job: str = "", series: dict | None = None,
                 host: dict | None = None, start: float = 0.0, end: float = 0.0, step: float = 1.0,
                 source: str = "", replicas: tuple = ()) -> None:
        self.key = key  # `pod` or `instance` label value: what the report calls the target
        self.kind = kind  # vllm, sglang, llamacpp, ollama (from the exporter's engine label)
        self.model = model
        self.job = job
        self.series = {} if series is None else series  # quantity -> points
        self.host = {} if host is None else host  # host quantity -> points (node_exporter, dcgm)
        self.start = start
        self.end = end
        self.step = step
        self.source = source  # "Prometheus http://prom:9090" (userinfo stripped)
        self.replicas = replicas  # ReplicaRow per instance serving the same model (this one included)

    def points(self, quantity: str) -> tuple:
        return self.series.get(quantity) or self.host.get(quantity) or ()

    def summary(self) -> list[tuple[str, str]]:
        parts = []
        for q, label in (("waiting", "waiting"), ("running", "running")):
            pts = self.series.get(q)
            if pts:
                parts.append(f"{label} peak {max(v for _, v in pts):g}")
        kv = self.series.get("kv")
        if kv:
            parts.append(f"KV peak {max(v for _, v in kv) * 100:.0f}%")
        ttft = self.series.get("ttft")
        if ttft:
            parts.append(f"p95 TTFT peak {max(v for _, v in ttft):.2f} s")
        used = self.host.get("gpu_mem_used")
        if used:
            parts.append(f"GPU memory peak {max(v for _, v in used) / 1024:.1f} GiB")
        window = f"{clock(self.start, self.end - self.start)}-{clock(self.end, self.end - self.start)}"
        span = self.end - self.start
        for q, pts in sorted(self.series.items()):
            if q.startswith("finding ") and any(v > 0 for _, v in pts):
                on = [t for t, v in pts if v > 0]
                parts.append(f"the exporter reported {q[8:].replace(' ', ' (', 1)}) "
                             f"from {clock(on[0], span)} to {clock(on[-1], span)}")
        zone = time.strftime("%Z", time.localtime(self.end))
        return [(f"Prometheus window ({self.kind} {self.key})", f"{window} {zone}, step {self.step:g} s"
                 + (": " + ", ".join(parts) if parts else ""))]


def host_of(instance: str) -> str:
    """`gpu1:8000` -> `gpu1` (`[::1]:9100` -> `[::1]`)."""
    return instance.rsplit(":", 1)[0] if ":" in instance and not instance.endswith("]") else instance


def port_of(instance: str) -> int | None:
    tail = instance.rsplit(":", 1)[-1] if ":" in instance else ""
    return int(tail) if tail.isdigit() and 0 < int(tail) < 65536 else None


def targets(answers: list[tuple[str, str, tuple[Series, ...]]], start: float, end: float, step: float,
            source: str) -> list[PromTarget]:
    """The instances in the answers of wanted_queries, host series joined to them."""
    found: dict[tuple[str, str], PromTarget] = {}
    hosts: dict[str, dict[str, list]] = {}
    reported: dict[str, list] = {}
    for kind, quantity, series in answers:
        for s in series:
            if not s.points:
                continue
            if kind == "host":
                name = s.label("Hostname") or host_of(s.label("instance"))
                hosts.setdefault(name, {}).setdefault(quantity, []).append(s.points)
                continue
            if quantity == "findings":  # no engine label: joined to the exporter's target below
                reported.setdefault(s.label("target") or s.label("instance"), []).append(
                    (s.label("check"), s.label("severity"), s.points))
                continue
            engine = s.label("engine") if kind == "llmdoctor" else kind
            if not engine:
                continue
            key = s.label("pod") or s.label("instance") or s.label("job") or "?"
            if kind == "llmdoctor":
                key = f"{s.label('target') or key} (llmdoctor exporter)"
            t = found.get((engine, key))
            if t is None:
                t = found[(engine, key)] = PromTarget(key, engine, s.label("model_name") or s.label("model"),
                                                      s.label("job"), {}, {}, start, end, step, source)
            t.series[quantity] = merge(t.series.get(quantity, ()), s.points)
    out = sorted(found.values(), key=lambda t: (t.kind, t.key))
    for t in out:
        joined = hosts.get(host_of(t.key.split(" ", 1)[0]))
        if joined is None and len(hosts) == 1:  # one node_exporter / dcgm-exporter: nothing to tell apart
            joined = next(iter(hosts.values()))
        for quantity, lists in (joined or {}).items():
            t.host[quantity] = combine(lists, max if quantity in ("sm_clock", "throttle") else sum)
    for t in out:
        for check, severity, points in reported.get(t.key.replace(" (llmdoctor exporter)", ""), []) \
                if t.key.endswith(" (llmdoctor exporter)") else ():
            t.series[f"finding {check} {severity}"] = points
    groups: dict[tuple[str, str], list[PromTarget]] = {}
    for t in out:
        groups.setdefault((t.kind, t.model or t.job), []).append(t)
    for members in groups.values():
        if len(members) > 1:
            rows = tuple(replica_row(t) for t in members)
            for t in members:
                t.replicas = rows
    if not out and hosts:  # node_exporter / dcgm alone: a target per host
        for name, qs in sorted(hosts.items()):
            out.append(PromTarget(name, "none", "", "", {}, {q: combine(v, sum) for q, v in qs.items()},
                                  start, end, step, source))
    return out


def merge(a: tuple, b: tuple) -> tuple:
    """Two answers for one quantity (an `or` of renamed series): points of both, by time."""
    if not a:
        return tuple(b)
    return tuple(sorted({**dict(a), **dict(b)}.items()))


def combine(lists: list, how) -> tuple:
    """Series of several devices into one, point by point at the same times."""
    at: dict[float, list[float]] = {}
    for pts in lists:
        for t, v in pts:
            at.setdefault(t, []).append(v)
    return tuple((t, how(vs)) for t, vs in sorted(at.items()))


@record
class Episode(Record):
    """A stretch of the window in which a condition held (consecutive points)."""

    start: float
    end: float
    peak: float
    peak_at: float
    points: int


def episodes(points, step: float, above: float = 0.0) -> list[Episode]:
    """The stretches in which the value was above `above`; a missing point (a scrape gap of
    more than one and a half steps) ends a stretch."""
    out: list[Episode] = []
    cur: list = []

    def close() -> None:
        if cur:
            peak_at, peak = max(cur, key=lambda p: p[1])
            out.append(Episode(cur[0][0], cur[-1][0], peak, peak_at, len(cur)))
            cur.clear()

    last = None
    for t, v in points:
        if v > above and (last is None or t - last <= step * 1.5 or not cur):
            cur.append((t, v))
        else:
            close()
            if v > above:
                cur.append((t, v))
        last = t
    close()
    return out


def longest(eps: list[Episode]) -> Episode | None:
    return max(eps, key=lambda e: (e.end - e.start, e.peak), default=None)


def during(points, start: float, end: float) -> list[float]:
    return [v for t, v in points if start <= t <= end]


def clock(t: float, span: float = 0.0) -> str:
    """A time of the window in the local zone: 10:05:12 (with the date past a day's span)."""
    fmt = "%Y-%m-%d %H:%M" if span > 86400 else "%H:%M:%S"
    return time.strftime(fmt, time.localtime(t))


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@record
class ReplicaRow(Record):
    """One replica's figures over the window, for the comparison of replicas of one model."""

    key: str
    load: float | None  # mean generated tokens/s, else mean requests running + waiting
    load_unit: str
    waiting: float | None  # peak waiting
    kv: float | None  # peak KV usage 0..1
    ttft: float | None  # peak p95 TTFT, seconds


def _mean(points) -> float | None:
    return sum(v for _, v in points) / len(points) if points else None


def _peak(points) -> float | None:
    return max((v for _, v in points), default=None)


def replica_row(t: PromTarget) -> ReplicaRow:
    if t.series.get("tokens"):
        load, unit = _mean(t.series["tokens"]), "tokens/s"
    else:
        both = combine([t.series.get("running", ()), t.series.get("waiting", ())], sum)
        load, unit = _mean(both), "requests"
    return ReplicaRow(t.key, load, unit, _peak(t.series.get("waiting", ())), _peak(t.series.get("kv", ())),
                      _peak(t.series.get("ttft", ())))


def increases(points) -> list[tuple[float, float]]:
    """A counter's rise at each point (a fall is a restart: all of the new value is new)."""
    out = []
    for (_, a), (t, b) in zip(points, points[1:]):
        d = b - a if b >= a else b
        if d > 0:
            out.append((t, d))
    return out


def window_to_json(t: PromTarget) -> dict:
    """A target's window as JSON (an evidence directory's prometheus_window.json)."""
    return {"key": t.key, "kind": t.kind, "model": t.model, "job": t.job, "start": t.start, "end": t.end,
            "step": t.step, "source": t.source,
            "series": {q: [list(p) for p in pts] for q, pts in t.series.items()},
            "host": {q: [list(p) for p in pts] for q, pts in t.host.items()},
            "replicas": [[r.key, r.load, r.load_unit, r.waiting, r.kv, r.ttft] for r in t.replicas]}


def _points(value) -> tuple:
    if not isinstance(value, list):
        raise ParseError("points are not a list")
    out = []
    for p in value:
        if not isinstance(p, list) or len(p) != 2 or not all(isinstance(x, (int, float)) for x in p):
            raise ParseError("a point is not [time, value]")
        out.append((float(p[0]), float(p[1])))
    return tuple(out)


def _number(v):
    if v is not None and not isinstance(v, (int, float)):
        raise ParseError("a replica figure is not a number")
    return v


def window_from_json(doc) -> PromTarget:
    """The inverse of window_to_json; ParseError for anything else."""
    if not isinstance(doc, dict) or not isinstance(doc.get("key"), str) or not isinstance(doc.get("kind"), str):
        raise ParseError("not a Prometheus window (no key and kind)")
    try:
        start, end, step = float(doc.get("start", 0)), float(doc.get("end", 0)), float(doc.get("step", 1))
    except (TypeError, ValueError):
        raise ParseError("start, end and step must be numbers") from None
    if not step > 0 or not end >= start:
        raise ParseError("step must be above 0 and end not before start")
    series, host = doc.get("series", {}), doc.get("host", {})
    if not isinstance(series, dict) or not isinstance(host, dict) or not isinstance(doc.get("replicas", []), list):
        raise ParseError("series, host and replicas have the wrong shape")
    replicas = []
    for r in doc.get("replicas", []):
        if not isinstance(r, list) or len(r) != 6 or not isinstance(r[0], str) or not isinstance(r[2], str):
            raise ParseError("a replica row is not [key, load, unit, waiting, kv, ttft]")
        replicas.append(ReplicaRow(r[0], _number(r[1]), r[2], _number(r[3]), _number(r[4]), _number(r[5])))
    return PromTarget(doc["key"], doc["kind"], str(doc.get("model") or ""), str(doc.get("job") or ""),
                      {str(q): _points(p) for q, p in series.items()}, {str(q): _points(p) for q, p in host.items()},
                      start, end, step, str(doc.get("source") or "Prometheus"), tuple(replicas))
