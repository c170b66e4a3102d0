"""Percentiles over small samples (pure; no numpy, startup time matters)."""
from __future__ import annotations

import math
from typing import Iterable, Sequence


def percentile(values: Iterable[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation, or None when empty.

    Same definition as numpy's default ("linear"), so figures match what an
    operator computes by hand from the raw timings in the JSON.
    """
    xs = sorted(v for v in values if v is not None and not math.isnan(v))
    if not xs:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside 0..100")
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def p50(values: Iterable[float]) -> float | None:
    return percentile(values, 50)


def p95(values: Iterable[float]) -> float | None:
    return percentile(values, 95)


def gaps(times: Sequence[float]) -> list[float]:
    """Differences between consecutive timestamps (inter-token latencies)."""
    return [b - a for a, b in zip(times, times[1:])]


def overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Length of the intersection of two [start, end] intervals (0 when disjoint)."""
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def max_concurrency(intervals: Iterable[tuple[float, float]]) -> int:
    """Most intervals open at one instant (an end at t closes before a start at t)."""
    events = []
    for start, end in intervals:
        if end > start:
            events.append((start, 1))
            events.append((end, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    best = cur = 0
    for _, step in events:
        cur += step
        best = max(best, cur)
    return best
