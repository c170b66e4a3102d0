"""The waiting count of each target and engine across the exporter's cycles, so a scheduled
exporter tells a queue that climbs (arrivals outpace service: more slots or a replica) from
bursts that drain between cycles (shape the bursts or cap the queue) and from one spike
(judge/queue_shape). One reading per cycle (vLLM waiting, llama-server requests_deferred,
SGLang #queue-req, as `llmdoctor_queue_depth_requests` exports them), the last HISTORY kept;
`--once` runs keep it in the state file.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from typing import Any

from llmdoctor.app.exporter.readings import queue_samples
from llmdoctor.judge.queue_shape import series_shape

HISTORY = 60  # an hour of readings at the default 60 s interval
ENGINES = ("vllm", "llamacpp", "sglang")


class QueueHistory:
    def __init__(self) -> None:
        self._readings: dict[tuple[str, str], deque[float]] = {}

    def feed(self, target: str, facts: Mapping[str, Any]) -> None:
        """Add this cycle's waiting count of each engine the facts show."""
        try:
            found = queue_samples(facts)
        except Exception:  # a reshaped fact drops this cycle's reading, never the exporter
            return
        for name, labels, value in found:
            engine = dict(labels).get("engine", "")
            if name == "llmdoctor_queue_depth_requests" and engine in ENGINES and math.isfinite(value):
                self._readings.setdefault((target, engine), deque(maxlen=HISTORY)).append(float(value))

    def shapes(self) -> dict[str, list[tuple[str, str]]]:
        """target -> [(engine, shape)] for each history that shows a shape."""
        out: dict[str, list[tuple[str, str]]] = {}
        for (target, engine), values in sorted(self._readings.items()):
            shape = series_shape(values, "cycle")
            if shape is not None:
                out.setdefault(target, []).append((engine, shape.kind))
        return out

    def to_json(self) -> list[list[Any]]:
        return [[t, e, list(v)] for (t, e), v in sorted(self._readings.items())]

    @classmethod
    def from_json(cls, data: Any, targets: Any = None) -> "QueueHistory":
        """A history back from the state file; unreadable rows are dropped."""
        h = cls()
        for row in data if isinstance(data, list) else ():
            try:
                target, engine, values = row
                clean = [float(v) for v in values if math.isfinite(float(v))]
            except (TypeError, ValueError):
                continue
            if engine in ENGINES and isinstance(target, str) and (targets is None or target in targets):
                h._readings[(target, engine)] = deque(clean[-HISTORY:], maxlen=HISTORY)
        return h
