"""llama-server's own endpoints, parsed: /health, /props, /slots, /metrics.

Pure parsers (`parse_*`) turn bodies into values (facts/llamacpp_endpoints.py asks the
host for them). Shapes differ
by build: `/slots` entries carry `is_processing` (older: `state`, 0 = idle) and
`next_token` as a one-element array or an object; `/metrics` (only with `--metrics`)
uses the `llamacpp:` prefix (very old builds: `llamacpp_`).
"""
from __future__ import annotations

import json
import math
from typing import Any

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern, ParseError

# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class LlamaHealth(Record):
    status: int
    ok: bool
    loading: bool
    message: str = ""


@record
class LlamaProps(Record):
    total_slots: int | None = None
    n_ctx: int | None = None  # per slot (default_generation_settings.n_ctx)
    model_path: str | None = None
    build_info: str | None = None
    is_sleeping: bool | None = None


@record
class SlotState(Record):
    id: int
    n_ctx: int | None
    is_processing: bool
    n_decoded: int | None = None
    id_task: int | None = None


@record
class LlamaMetrics(Record):
    requests_processing: float | None = None
    requests_deferred: float | None = None
    prompt_tokens_total: float | None = None
    prompt_seconds_total: float | None = None
    tokens_predicted_total: float | None = None
    tokens_predicted_seconds_total: float | None = None
    n_busy_slots_per_decode: float | None = None
    kv_cache_usage_ratio: float | None = None  # removed in mid-2025 builds
    prefix: str = "llamacpp:"


class LlamaState(Record):
    __slots__ = ("port", "health", "props", "slots", "metrics", "errors", "sources", "n_ctx_train")

    def __init__(
        self,
        port: int,
        health: LlamaHealth | None = None,
        props: LlamaProps | None = None,
        slots: tuple[SlotState, ...] | None = None,
        metrics: LlamaMetrics | None = None,
        errors: tuple[str, ...] = (),
        sources: dict[str, str] | None = None,
        n_ctx_train: int | None = None,
    ) -> None:
        self.n_ctx_train = n_ctx_train  # the model's trained context (/v1/models meta), the most a slot gets
        self.port = port
        self.health = health
        self.props = props
        self.slots = slots
        self.metrics = metrics
        self.errors = errors  # one line per endpoint that could not be read
        self.sources = {} if sources is None else sources  # endpoint -> where it came from

    @property
    def slot_count(self) -> int | None:
        if self.props and self.props.total_slots:
            return self.props.total_slots
        return len(self.slots) if self.slots else None

    @property
    def busy_slots(self) -> int | None:
        return sum(1 for s in self.slots if s.is_processing) if self.slots is not None else None

    def summary(self) -> list[tuple[str, str]]:
        out = []
        if self.slot_count:
            ctx = self.props.n_ctx if self.props and self.props.n_ctx else (self.slots[0].n_ctx if self.slots else None)
            out.append(("llama-server slots (/props)", f"{self.slot_count} × {ctx or '?'} tokens"))
        if self.metrics and self.metrics.requests_deferred is not None:
            out.append(("llama-server deferred requests", f"{self.metrics.requests_deferred:g}"))
        return out


def _load_json(body: bytes | str, what: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, TypeError) as e:
        raise ParseError(f"{what} is not JSON: {e}") from e


def parse_health(status: int, body: bytes | str) -> LlamaHealth:
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        data = {}
    message = ""
    if isinstance(data, dict):
        err = data.get("error")
        message = str(err.get("message", "")) if isinstance(err, dict) else str(data.get("status", ""))
    ok = status == 200 and (not isinstance(data, dict) or data.get("status", "ok") == "ok")
    return LlamaHealth(status, ok, status == 503 and "loading" in message.lower(), message)


def _opt_int(v: Any) -> int | None:
    """A JSON number as an int; None for anything else, NaN and infinity included (json.loads reads them)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return int(v)


def parse_models_train(body: bytes | str | dict) -> int | None:
    """The trained context from `GET /v1/models` (`data[0].meta.n_ctx_train`, llama-server since
    early 2024); None where it is not said. ParseError on what is not JSON."""
    doc = body if isinstance(body, dict) else _load_json(body, "/v1/models")
    data = doc.get("data") if isinstance(doc, dict) else None
    for m in data if isinstance(data, list) else ():
        meta = m.get("meta") if isinstance(m, dict) else None
        train = _opt_int(meta.get("n_ctx_train")) if isinstance(meta, dict) else None
        if train:
            return train
    return None


def parse_props(body: bytes | str | dict) -> LlamaProps:
    data = body if isinstance(body, dict) else _load_json(body, "/props")
    if not isinstance(data, dict):
        raise ParseError("/props is not a JSON object")
    dgs = data.get("default_generation_settings")
    n_ctx = _opt_int(dgs.get("n_ctx")) if isinstance(dgs, dict) else None
    return LlamaProps(
        total_slots=_opt_int(data.get("total_slots")),
        n_ctx=n_ctx if n_ctx is not None else _opt_int(data.get("n_ctx")),
        model_path=data.get("model_path") if isinstance(data.get("model_path"), str) else None,
        build_info=str(data["build_info"]) if "build_info" in data else None,
        is_sleeping=data.get("is_sleeping") if isinstance(data.get("is_sleeping"), bool) else None,
    )


def parse_slots(body: bytes | str | list) -> tuple[SlotState, ...]:
    data = body if isinstance(body, list) else _load_json(body, "/slots")
    if isinstance(data, dict) and "error" in data:
        raise ParseError(f"/slots answered an error: {data['error']}")
    if not isinstance(data, list):
        raise ParseError("/slots is not a JSON array")
    out = []
    for i, s in enumerate(data):
        if not isinstance(s, dict):
            raise ParseError(f"/slots entry {i} is not an object")
        if "is_processing" in s:
            busy = bool(s["is_processing"])
        else:  # 2024 builds: state 0 = idle, 1 = processing
            busy = bool(s.get("state", 0))
        nt = s.get("next_token")
        if isinstance(nt, list):
            nt = nt[0] if nt and isinstance(nt[0], dict) else None
        n_decoded = _opt_int(nt.get("n_decoded")) if isinstance(nt, dict) else None
        out.append(SlotState(_opt_int(s.get("id")) if _opt_int(s.get("id")) is not None else i,
                             _opt_int(s.get("n_ctx")), busy, n_decoded, _opt_int(s.get("id_task"))))
    return tuple(out)


_LLAMA_SAMPLE = LazyPattern(r"^\s*(llamacpp[:_][A-Za-z0-9_]+)(?:\{[^}]*\})?\s+([-+0-9.eE]+|NaN|[+-]?Inf)\s*(?:\d+)?\s*$")


def parse_llama_metrics(text: str) -> LlamaMetrics:
    """llama-server's /metrics: plain `llamacpp:name value` lines (labels only on the
    per-position speculative counter, summed). Read line by line, without prometheus_client:
    nothing here needs its parser, and importing it costs more than the rest of a diagnosis."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        m = _LLAMA_SAMPLE.match(line)
        if m:
            try:
                values[m.group(1)] = values.get(m.group(1), 0.0) + float(m.group(2))
            except ValueError:
                continue
    prefix = "llamacpp:" if any(n.startswith("llamacpp:") for n in values) else "llamacpp_"
    if not any(n.startswith(prefix) for n in values):
        raise ParseError("no llamacpp metrics in the text")

    def v(name: str) -> float | None:
        return values.get(prefix + name)

    return LlamaMetrics(
        requests_processing=v("requests_processing"),
        requests_deferred=v("requests_deferred"),
        prompt_tokens_total=v("prompt_tokens_total"),
        prompt_seconds_total=v("prompt_seconds_total"),
        tokens_predicted_total=v("tokens_predicted_total"),
        tokens_predicted_seconds_total=v("tokens_predicted_seconds_total"),
        n_busy_slots_per_decode=v("n_busy_slots_per_decode"),
        kv_cache_usage_ratio=v("kv_cache_usage_ratio"),
        prefix=prefix,
    )
