"""Streaming response formats -> timing sample (pure; no sockets here).

Two wire formats:
- Ollama `/api/generate` and `/api/chat`: NDJSON, one object per line; the last has
  `done: true` and the metrics (durations in nanoseconds, every field `omitempty`,
  so a missing one is 0). An error mid-stream is one `{"error": "..."}` line while
  the HTTP status stays 200 (FACTS §2).
- OpenAI-compatible SSE (llama-server, vLLM): `data: {json}` events, `data: [DONE]`
  at the end; with `stream_options.include_usage` a last chunk carries `usage`;
  llama-server adds its own `timings` (FACTS §6.3).

`StreamAccumulator.feed(line, t)` takes each raw line with its arrival time (seconds
since the request was sent) and builds the `StreamSample`. Token counts and rates
come from the server's own figures, never from counting chunks.
"""
from __future__ import annotations

import json
from typing import Any

from llmdoctor.knowledge.probe.result import OK, STREAM_ERROR, StreamSample

OLLAMA = "ollama"   # NDJSON
OPENAI = "openai"   # SSE

NS = 1e9


def _num(d: dict[str, Any], key: str) -> float:
    v = d.get(key, 0)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _error_text(err: Any) -> str:
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or json.dumps(err))
    return str(err)


class StreamAccumulator:
    """Turns one response's lines into a StreamSample."""

    def __init__(self, wire: str, sample_id: str, scenario: str, sent_s: float = 0.0) -> None:
        if wire not in (OLLAMA, OPENAI):
            raise ValueError(f"unknown stream format {wire!r}")
        self.wire = wire
        self.id, self.scenario, self.sent_s = sample_id, scenario, sent_s
        self.ttfb: float | None = None
        self.chunks: list[float] = []
        self.end: float | None = None
        self.done = False
        self.error = ""
        self.junk = 0
        self.final: dict[str, Any] = {}
        self.usage: dict[str, Any] = {}
        self.timings: dict[str, Any] = {}

    # -- feeding ---------------------------------------------------------------------
    def feed(self, raw: bytes | str, t: float) -> None:
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        line = line.strip()
        if not line or self.done:
            return
        if self.ttfb is None:
            self.ttfb = t
        self.end = t
        if self.wire == OLLAMA:
            self._ollama(line, t)
        else:
            self._sse(line, t)

    def _obj(self, text: str) -> dict[str, Any] | None:
        try:
            obj = json.loads(text)
        except ValueError:
            self.junk += 1
            return None
        if not isinstance(obj, dict):
            self.junk += 1
            return None
        return obj

    def _ended_by_error(self, obj: dict[str, Any]) -> bool:
        """An `{"error": ...}` object ends the stream (both wire formats send one)."""
        if "error" not in obj:
            return False
        self.error = _error_text(obj["error"])
        self.done = True
        return True

    def _ollama(self, line: str, t: float) -> None:
        obj = self._obj(line)
        if obj is None or self._ended_by_error(obj):
            return
        message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        text = "".join(str(x) for x in (obj.get("response"), obj.get("thinking"),
                                        message.get("content"), message.get("thinking")) if x)
        if text:
            self.chunks.append(t)
        if obj.get("done") is True:
            self.final = obj
            self.done = True

    def _sse(self, line: str, t: float) -> None:
        if line.startswith((":", "event:", "id:", "retry:")):
            return
        if line.startswith("error:"):  # some servers send a bare SSE error field
            self.error = line[6:].strip() or "error event"
            self.done = True
            return
        if not line.startswith("data:"):
            self.junk += 1
            return
        data = line[5:].strip()
        if data == "[DONE]":
            self.done = True
            return
        obj = self._obj(data)
        if obj is None or self._ended_by_error(obj):
            return
        for choice in obj.get("choices") or ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            text = "".join(str(x) for x in (delta.get("content"), delta.get("reasoning_content"),
                                            delta.get("reasoning"), choice.get("text")) if x)
            if text:
                self.chunks.append(t)
                break
        if isinstance(obj.get("usage"), dict):
            self.usage = obj["usage"]
        if isinstance(obj.get("timings"), dict):
            self.timings = obj["timings"]

    # -- result ----------------------------------------------------------------------
    def sample(self, status: str = OK, error: str = "", http_status: int | None = 200) -> StreamSample:
        """The sample so far; `status`/`error` come from the transport when it failed."""
        if self.error and status == OK:
            status, error = STREAM_ERROR, f"error inside the stream: {self.error}"
        if status == OK and not self.chunks and not self.done:
            status = STREAM_ERROR
            error = ("stream ended without content or a final chunk"
                     + (f" ({self.junk} unparseable lines)" if self.junk else ""))
        counts = self._counts()
        return StreamSample(
            id=self.id, scenario=self.scenario, sent_s=self.sent_s, status=status,
            http_status=http_status, error=error, ttfb_s=self.ttfb,
            ttft_s=self.chunks[0] if self.chunks else None, chunk_s=tuple(self.chunks),
            end_s=self.end, **counts,
        )

    def _counts(self) -> dict[str, Any]:
        if self.wire == OLLAMA and self.final:
            return ollama_counts(self.final)
        if self.timings:
            return llamacpp_counts(self.timings, self.usage)
        if self.usage:
            return usage_counts(self.usage, self.chunks)
        return {}


def ollama_counts(final: dict[str, Any]) -> dict[str, Any]:
    """Counts and rates from Ollama's final chunk (durations in ns; missing = 0)."""
    pc, pd = _num(final, "prompt_eval_count"), _num(final, "prompt_eval_duration")
    ec, ed = _num(final, "eval_count"), _num(final, "eval_duration")
    keys = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
            "eval_count", "eval_duration", "done_reason")
    return {
        "prompt_tokens": int(pc), "completion_tokens": int(ec),
        "decode_tps": ec / ed * NS if ed > 0 else None,
        "prefill_tps": pc / pd * NS if pd > 0 else None,
        "load_s": _num(final, "load_duration") / NS,
        "counts_from": "ollama",
        "server": {k: final[k] for k in keys if k in final},
    }


def llamacpp_counts(timings: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """Counts and rates from llama-server's `timings` (ms)."""
    pn, pms = _num(timings, "prompt_n"), _num(timings, "prompt_ms")
    gn, gms = _num(timings, "predicted_n"), _num(timings, "predicted_ms")
    prompt_tokens = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else int(pn + _num(timings, "cache_n"))
    return {
        "prompt_tokens": prompt_tokens, "completion_tokens": int(gn),
        "decode_tps": gn / gms * 1000.0 if gms > 0 else None,
        "prefill_tps": pn / pms * 1000.0 if pms > 0 else None,
        "counts_from": "timings",
        "server": dict(timings),
    }


def usage_counts(usage: dict[str, Any], chunks: list[float]) -> dict[str, Any]:
    """OpenAI `usage` gives counts only; the rate uses the client's own clock:
    tokens after the first over the time from first to last content chunk."""
    ct = usage.get("completion_tokens")
    ct = int(ct) if isinstance(ct, (int, float)) and not isinstance(ct, bool) else None
    pt = usage.get("prompt_tokens")
    pt = int(pt) if isinstance(pt, (int, float)) and not isinstance(pt, bool) else None
    decode = None
    if ct and ct > 1 and len(chunks) >= 2 and chunks[-1] > chunks[0]:
        decode = (ct - 1) / (chunks[-1] - chunks[0])
    return {"prompt_tokens": pt, "completion_tokens": ct, "decode_tps": decode,
            "prefill_tps": None, "counts_from": "usage", "server": dict(usage)}


def error_message(body: bytes) -> str:
    """The message of an error body: Ollama `{"error": "..."}`, OpenAI/llama-server
    `{"error": {"message": ...}}`, or the raw text (shortened)."""
    text = body.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        return text[:300]
    if isinstance(obj, dict) and "error" in obj:
        return _error_text(obj["error"])
    return text[:300]
