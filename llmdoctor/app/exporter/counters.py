"""Counters that never go down, whatever their sources do. Pure."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


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
            except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: an int beyond any float
                continue
        return totals
