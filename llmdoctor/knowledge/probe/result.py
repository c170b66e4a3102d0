"""What the probe measured: raw per-request timings plus the server's own counts.

Frozen values with a JSON form (`to_dict`/`from_dict`), so a probe can be written
to `probe.json` in an evidence directory and diagnosed later like any other fact.
Times are seconds; `*_s` offsets inside a sample are relative to the moment that
request was sent; `sent_s` is relative to the start of the probe.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from llmdoctor.knowledge.probe.load import ServerLoad
from llmdoctor.knowledge.probe.stats import gaps

OK = "ok"
HTTP_ERROR = "http_error"        # a non-200 answer before streaming
STREAM_ERROR = "stream_error"    # an {"error": ...} object inside a 200 stream
TIMEOUT = "timeout"              # no answer / request ran past its time limit
STALLED = "stalled"              # the stream went silent mid-way (read timeout)
CONNECT_ERROR = "connect_error"
INTERRUPTED = "interrupted"      # Ctrl-C or the probe's deadline


def _number(v: Any, name: str) -> float:
    """A finite number (JSON allows NaN and Infinity; neither is a time or a count)."""
    if not isinstance(v, bool) and isinstance(v, (int, float)):
        try:
            f = float(v)
        except OverflowError:  # an int beyond any float
            f = math.inf
        if math.isfinite(f):
            return f
    raise ValueError(f"{name!r} must be a number, not {v!r:.40}")


def _list(v: Any, name: str) -> list[Any]:
    if not isinstance(v, list):
        raise ValueError(f"{name!r} must be a list")
    return v


@dataclass(frozen=True)
class StreamSample:
    id: str
    scenario: str
    sent_s: float = 0.0
    status: str = OK
    http_status: int | None = None
    error: str = ""
    ttfb_s: float | None = None          # first byte of the body (any chunk)
    ttft_s: float | None = None          # first non-empty content
    chunk_s: tuple[float, ...] = ()      # every content chunk's arrival
    end_s: float | None = None           # last line of the stream
    prompt_tokens: int | None = None     # server counts, never chunk counts
    completion_tokens: int | None = None
    decode_tps: float | None = None
    prefill_tps: float | None = None
    load_s: float | None = None          # Ollama load_duration
    counts_from: str = ""                # "ollama" | "timings" | "usage"
    server: dict[str, Any] = field(default_factory=dict)  # raw final metrics/timings
    run: int = 0                         # which repetition of its scenario (1, 2, 3); 0: not repeated

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def itl(self) -> list[float]:
        return gaps(self.chunk_s)

    @property
    def first_token_at(self) -> float | None:
        """Probe-relative time of the first content chunk."""
        return None if self.ttft_s is None else self.sent_s + self.ttft_s

    @property
    def last_token_at(self) -> float | None:
        return self.sent_s + self.chunk_s[-1] if self.chunk_s else None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["chunk_s"] = [round(t, 6) for t in self.chunk_s]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StreamSample":
        """Raises ValueError on anything that is not a sample written by to_dict."""
        if not isinstance(d, dict) or not isinstance(d.get("id"), str) or not isinstance(d.get("scenario"), str):
            raise ValueError("a sample needs string 'id' and 'scenario'")
        kw: dict[str, Any] = {"id": d["id"], "scenario": d["scenario"]}
        for f in fields(cls):
            if f.name in ("id", "scenario") or f.name not in d or d[f.name] is None:
                continue
            v = d[f.name]
            if f.name == "chunk_s":
                kw[f.name] = tuple(_number(t, f.name) for t in _list(v, f.name))
            elif f.name == "server":
                if not isinstance(v, dict):
                    raise ValueError("'server' must be an object")
                kw[f.name] = dict(v)
            elif f.name in ("status", "error", "counts_from"):
                kw[f.name] = str(v)
            elif f.name in ("http_status", "prompt_tokens", "completion_tokens", "run"):
                kw[f.name] = int(_number(v, f.name))
            else:
                kw[f.name] = _number(v, f.name)
        return cls(**kw)


@dataclass(frozen=True)
class ProbeResult:
    url: str
    engine: str                     # ollama | llamacpp | vllm | openai
    model: str = ""
    version: str = ""
    mode: str = "light"             # light | load
    slots: int | None = None        # the engine's parallel setting, when known
    slots_source: str = ""          # e.g. "/props total_slots"
    context: int | None = None      # per-request context, when known
    rtt_s: float | None = None      # fastest plain GET round trip (network overhead)
    started_at: str = ""
    wall_s: float = 0.0
    samples: tuple[StreamSample, ...] = ()
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    interrupted: bool = False
    loads: tuple[ServerLoad, ...] = ()   # the server's load, read before each scenario run
    idle_wait_s: float = 0.0             # how long the probe waited for the server to go idle
    runs: int = 1                        # repetitions of each scenario asked for

    def scenario(self, name: str) -> list[StreamSample]:
        return [s for s in self.samples if s.scenario == name]

    def load_before(self, scenario: str, run: int) -> ServerLoad | None:
        """The reading taken just before this scenario's run (None when none was taken)."""
        at = f"{scenario} {run}" if run else scenario
        return next((x for x in self.loads if x.at == at), None)

    @property
    def busy_loads(self) -> tuple[ServerLoad, ...]:
        """Readings before a scenario that found others' requests (the last reading, taken after
        the probe's own requests, may still see one of them: it only bounds the task ids)."""
        return tuple(x for x in self.loads if x.busy and x.at != "end")

    @property
    def requests_sent(self) -> int:
        return len(self.samples)

    @property
    def tokens_generated(self) -> int:
        return sum(s.completion_tokens or len(s.chunk_s) for s in self.samples)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "samples"}
        d["errors"], d["notes"] = list(self.errors), list(self.notes)
        d["loads"] = [x.to_dict() for x in self.loads]
        d["busy"] = bool(self.busy_loads)
        d["requests_sent"] = self.requests_sent
        d["tokens_generated"] = self.tokens_generated
        d["samples"] = [s.to_dict() for s in self.samples]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ProbeResult":
        """Raises ValueError on anything that is not a result written by to_dict."""
        if not isinstance(d, dict) or not isinstance(d.get("url"), str) or not isinstance(d.get("engine"), str):
            raise ValueError("not a probe result: needs string 'url' and 'engine'")
        kw: dict[str, Any] = {"url": d["url"], "engine": d["engine"]}
        for name in ("model", "version", "mode", "slots_source", "started_at"):
            if d.get(name) is not None:
                kw[name] = str(d[name])
        for name in ("slots", "context", "runs"):
            if d.get(name) is not None:
                kw[name] = int(_number(d[name], name))
        for name in ("rtt_s", "wall_s", "idle_wait_s"):
            if d.get(name) is not None:
                kw[name] = _number(d[name], name)
        kw["interrupted"] = bool(d.get("interrupted"))
        kw["samples"] = tuple(StreamSample.from_dict(s) for s in _list(d.get("samples") or [], "samples"))
        kw["errors"] = tuple(str(e) for e in _list(d.get("errors") or [], "errors"))
        kw["notes"] = tuple(str(n) for n in _list(d.get("notes") or [], "notes"))
        kw["loads"] = tuple(ServerLoad.from_dict(x) for x in _list(d.get("loads") or [], "loads"))
        return cls(**kw)


@dataclass(frozen=True)
class ProbeRuns:
    """The value of fact "probe": one result per engine probed (or read from probe.json)."""

    results: tuple[ProbeResult, ...]

    def to_dict(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.results]
