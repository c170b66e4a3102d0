"""Prometheus' HTTP API, pure: the queries llmdoctor sends, the step that bounds them, and
the answers (`/api/v1/query_range`, `/api/v1/label/__name__/values`) parsed into series.

No I/O here (hosts/prometheus.py sends the queries). Every parser takes bytes and raises
ParseError for anything that is not a successful Prometheus answer (a proxy's HTML page, a
cut-off body, `{"status":"error"}`): the caller turns it into one line.
"""
from __future__ import annotations

import json
import math

from llmdoctor.model import Record, record
from llmdoctor.parsing import ParseError

# Points per series a range query may return: the step is widened until the window fits.
# (Prometheus itself refuses a query over 11,000 points per series; a few thousand keeps an
# answer of every replica's histogram buckets a few megabytes at most.)
MAX_POINTS = 2000
MIN_STEP_S = 1.0  # finer than any scrape interval in use
# The rate/increase window of each point: at least two scrapes at the usual 15 s interval.
MIN_RATE_WINDOW_S = 60.0


def choose_step(seconds: float, max_points: int = MAX_POINTS) -> float:
    """The step (whole seconds) at which a range of `seconds` returns at most max_points."""
    if not seconds > 0:
        return MIN_STEP_S
    return float(max(MIN_STEP_S, math.ceil(seconds / max(1, max_points - 1))))


def rate_window(step: float) -> str:
    """`[Ns]` for rate() and increase() at this step: every point covers its step and at
    least MIN_RATE_WINDOW_S, so no scrape falls between two points' windows."""
    return f"{int(max(step * 2, MIN_RATE_WINDOW_S))}s"


def parse_selector(text: str) -> str:
    """The matchers inside --selector `{job="vllm"}` (`job="vllm"`), checked for shape only:
    braces around, balanced quotes, one line. ParseError otherwise."""
    s = (text or "").strip()
    if not s:
        return ""
    if not (s.startswith("{") and s.endswith("}")) or "\n" in s:
        raise ParseError(f"expected a label selector such as '{{job=\"vllm\"}}', not {s[:60]!r}")
    inner = s[1:-1].strip()
    quotes = inner.replace('\\"', "").count('"')
    if quotes % 2 or "{" in inner.replace('\\"', "").split('"', 1)[0]:
        raise ParseError(f"unbalanced selector {s[:60]!r}")
    return inner


def matching(metric: str, matchers: str) -> str:
    """`metric{matchers}` (`metric` alone without matchers)."""
    return f"{metric}{{{matchers}}}" if matchers else metric


@record
class Series(Record):
    """One series of an answer: its labels (sorted pairs) and its points (unix time, value)."""

    labels: tuple[tuple[str, str], ...]
    points: tuple[tuple[float, float], ...]

    def label(self, key: str, default: str = "") -> str:
        for k, v in self.labels:
            if k == key:
                return v
        return default


def _answer(body: bytes) -> object:
    """The `data` of a successful answer; ParseError with Prometheus' own error otherwise."""
    try:
        doc = json.loads(body)
    except (ValueError, TypeError, RecursionError):
        head = body[:60].decode("utf-8", "replace").strip().splitlines()[0] if body and body.strip() else "nothing"
        raise ParseError(f"not a Prometheus API answer (starts {head!r})") from None
    if not isinstance(doc, dict) or doc.get("status") not in ("success", "error"):
        raise ParseError("not a Prometheus API answer (no status)")
    if doc["status"] == "error":
        raise ParseError(f"Prometheus refused the query: {str(doc.get('errorType', ''))[:40]} "
                         f"{str(doc.get('error', ''))[:200]}".strip())
    return doc.get("data")


def _value(v: object) -> float:
    try:
        return float(v)  # "NaN", "+Inf" included
    except (TypeError, ValueError):
        raise ParseError(f"not a sample value: {str(v)[:40]!r}") from None


def parse_range(body: bytes) -> tuple[Series, ...]:
    """A query_range (matrix) or query (vector) answer as series; NaN points are dropped
    (histogram_quantile over an idle window)."""
    data = _answer(body)
    if not isinstance(data, dict) or not isinstance(data.get("result"), list):
        raise ParseError("Prometheus answer without a result list")
    kind = data.get("resultType")
    out = []
    for item in data["result"]:
        if not isinstance(item, dict) or not isinstance(item.get("metric", {}), dict):
            raise ParseError("Prometheus answer with a malformed series")
        labels = tuple(sorted((str(k), str(v)) for k, v in item.get("metric", {}).items()))
        raw = item.get("values") if kind == "matrix" else [item.get("value")]
        if not isinstance(raw, list):
            raise ParseError("Prometheus answer with a malformed series")
        points = []
        for p in raw:
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise ParseError("Prometheus answer with a malformed point")
            t, v = _value(p[0]), _value(p[1])
            if not math.isnan(v):
                points.append((t, v))
        out.append(Series(labels, tuple(points)))
    if kind not in ("matrix", "vector"):
        raise ParseError(f"Prometheus answered a {str(kind)[:20]}, not a matrix")
    return tuple(out)


def parse_names(body: bytes) -> tuple[str, ...]:
    """A /api/v1/label/__name__/values answer: the metric names."""
    data = _answer(body)
    if not isinstance(data, list) or not all(isinstance(n, str) for n in data):
        raise ParseError("Prometheus answer without a list of names")
    return tuple(data)
