"""How busy the server was when the probe looked: what it read, and whether others were being
served (pure: the answers are fetched in facts/live_probe/load.py).

Read before every scenario run, while the probe itself has nothing in flight, so whatever the
server says it is running belongs to someone else. Formats (llama.cpp tools/server/README.md
and a real xllamacpp build, vLLM's metric names 0.7-0.33, Ollama's api/types.go):
- llama-server `GET /slots`: one object per slot with `is_processing` (older builds: `state`,
  1 = processing) and `n_ctx`, the slot's context; `id_task` once the slot has had a task;
- llama-server `GET /metrics` (with --metrics): gauges `llamacpp:requests_processing` and
  `llamacpp:requests_deferred` (the queue; very old builds spell the prefix `llamacpp_`);
- vLLM `GET /metrics`: `vllm:num_requests_running` and `vllm:num_requests_waiting`, labelled per
  model and engine (summed here);
- Ollama `GET /api/ps`: the models in memory and their `context_length`; Ollama tells nothing
  of requests in flight, so its load is "unknown" and the reading only names the loaded models.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_GAUGE = r"^{name}(?:\{{[^}}]*\}})?\s+([-+0-9.eE]+|NaN)\s*(?:\d+)?\s*$"


def gauge(text: str, name: str) -> float | None:
    """The sum of a gauge's samples (over every label set), or None when it is absent."""
    values = re.findall(_GAUGE.format(name=re.escape(name)), text, re.M)
    total = None
    for v in values:
        try:
            x = float(v)
        except ValueError:
            continue
        if x == x:  # not NaN
            total = (total or 0.0) + x
    return total


@dataclass(frozen=True)
class ServerLoad:
    """One reading. `running`/`waiting` None: the server did not say."""

    source: str                         # what was read, e.g. "/slots, /metrics"
    running: int | None = None          # requests being served (not the probe's)
    waiting: int | None = None          # requests queued
    slots: int | None = None            # slots listed by /slots
    slot_ctx: int | None = None         # the smallest slot context /slots lists
    max_task: int | None = None         # llama-server: the highest id_task /slots shows
    models: tuple[str, ...] = ()        # Ollama: the models in memory
    contexts: dict[str, int] = field(default_factory=dict)  # Ollama: model -> context_length
    at: str = ""                        # which scenario it was read before
    t_s: float = 0.0                    # seconds since the probe started

    @property
    def known(self) -> bool:
        return self.running is not None or self.waiting is not None

    @property
    def busy(self) -> bool:
        return bool(self.running) or bool(self.waiting)

    def describe(self) -> str:
        if not self.known:
            if self.models:
                return f"{self.source}: {', '.join(self.models)} in memory; requests in flight not reported"
            return f"{self.source}: no load figures"
        parts = []
        if self.running is not None:
            parts.append(f"{self.running} running" + (f" of {self.slots} slots" if self.slots else ""))
        if self.waiting is not None:
            parts.append(f"{self.waiting} waiting")
        return f"{self.source}: " + ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at, "t_s": round(self.t_s, 3), "source": self.source, "running": self.running,
                "waiting": self.waiting, "busy": self.busy, "slots": self.slots, "slot_ctx": self.slot_ctx,
                "max_task": self.max_task, "models": list(self.models), "contexts": dict(self.contexts)}

    @classmethod
    def from_dict(cls, d: Any) -> "ServerLoad":
        if not isinstance(d, dict) or not isinstance(d.get("source"), str):
            raise ValueError("a load reading needs a string 'source'")

        def count(name: str) -> int | None:
            v = d.get(name)
            if v is None:
                return None
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or abs(v) > 1e12:
                raise ValueError(f"{name!r} must be a number, not {v!r:.40}")
            return int(v)

        models = d.get("models") or []
        contexts = d.get("contexts") or {}
        if not isinstance(models, list) or not isinstance(contexts, dict):
            raise ValueError("'models' must be a list and 'contexts' an object")
        t = d.get("t_s") or 0.0
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t != t or abs(t) > 1e12:
            raise ValueError("'t_s' must be a number")
        return cls(str(d["source"]), count("running"), count("waiting"), count("slots"), count("slot_ctx"),
                   count("max_task"), tuple(str(m) for m in models),
                   {str(k): int(v) for k, v in contexts.items() if isinstance(v, int) and not isinstance(v, bool)},
                   str(d.get("at") or ""), float(t))


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def llamacpp_load(slots: Any, metrics: str | None) -> ServerLoad:
    """From `/slots` (a list) and `/metrics` text; either may be None (endpoint off)."""
    sources, running, waiting, n, ctx, task = [], None, None, None, None, None
    if isinstance(slots, list):
        entries = [s for s in slots if isinstance(s, dict)]
        sources.append("/slots")
        n = len(entries) or None
        busy = 0
        for s in entries:
            if s.get("is_processing") is True or (s.get("is_processing") is None and s.get("state") == 1):
                busy += 1
        running = busy
        ctxs = [c for c in (_int(s.get("n_ctx")) for s in entries) if c]
        ctx = min(ctxs) if ctxs else None
        tasks = [t for t in (_int(s.get("id_task")) for s in entries) if t is not None]
        task = max(tasks) if tasks else None
    if metrics:
        processing = gauge(metrics, "llamacpp:requests_processing")
        if processing is None:
            processing = gauge(metrics, "llamacpp_requests_processing")
        deferred = gauge(metrics, "llamacpp:requests_deferred")
        if deferred is None:
            deferred = gauge(metrics, "llamacpp_requests_deferred")
        if processing is not None or deferred is not None:
            sources.append("/metrics")
            if processing is not None:
                running = max(running or 0, int(processing))
            if deferred is not None:
                waiting = int(deferred)
    return ServerLoad(", ".join(sources) or "/slots and /metrics unavailable", running, waiting, n, ctx, task)


def vllm_load(metrics: str | None) -> ServerLoad:
    if not metrics:
        return ServerLoad("/metrics unavailable")
    running = gauge(metrics, "vllm:num_requests_running")
    waiting = gauge(metrics, "vllm:num_requests_waiting")
    return ServerLoad("/metrics", None if running is None else int(running), None if waiting is None else int(waiting))


def ollama_load(ps: Any) -> ServerLoad:
    listed = ps.get("models") if isinstance(ps, dict) else None
    if not isinstance(listed, list):
        return ServerLoad("/api/ps unavailable")
    entries = [m for m in listed if isinstance(m, dict) and m.get("name")]
    contexts = {str(m["name"]): c for m in entries if (c := _int(m.get("context_length")))}
    return ServerLoad("/api/ps", models=tuple(str(m["name"]) for m in entries), contexts=contexts)
