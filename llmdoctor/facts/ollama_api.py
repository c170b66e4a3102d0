"""Ollama's HTTP API through `Host.http`: /api/version, /api/ps,
/api/show, /api/tags. Every call has a timeout; failures raise `OllamaApiError`
with a one-line reason that a collector turns into an unavailable fact."""
from __future__ import annotations

import json
import math
from typing import Any

from llmdoctor.hosts.base import HostError, NotInEvidence
from llmdoctor.parsing import ParseError

API_TIMEOUT = 5.0


class OllamaApiError(Exception):
    def __init__(self, reason: str, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing  # the evidence directory simply has no answer


def _call(host, port: int, method: str, path: str, body: dict | None = None, timeout: float = API_TIMEOUT) -> Any:
    return _call_with_source(host, port, method, path, body, timeout)[0]


def _call_with_source(host, port: int, method: str, path: str, body: dict | None = None,
                      timeout: float = API_TIMEOUT) -> tuple[Any, str]:
    """(JSON value, where the host says it came from)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data else None
    try:
        resp = host.http(method, port, path, body=data, timeout=timeout, headers=headers)
    except HostError as e:
        raise OllamaApiError(f"{method} {path}: {e}", missing=isinstance(e, NotInEvidence)) from None
    if resp.status != 200:
        raise OllamaApiError(f"{method} {path}: HTTP {resp.status}: {resp.text[:200]}")
    try:
        return json.loads(resp.body), resp.source or f"{method} {path}"
    except ValueError as e:
        raise OllamaApiError(f"{method} {path}: unparseable JSON: {e}") from None


def _decoded(data: Any) -> Any:
    """A body as bytes or text -> its JSON value; anything else is already decoded."""
    if isinstance(data, (bytes, str)):
        try:
            return json.loads(data)
        except ValueError as e:
            raise ParseError(f"not JSON: {e}") from None
    return data


def parse_version(data: Any) -> str:
    data = _decoded(data)
    if not isinstance(data, dict) or not isinstance(data.get("version"), str) or not data["version"].strip():
        raise ParseError('expected {"version": "x.y.z"}')
    return data["version"].strip()


def parse_show(data: Any) -> dict:
    data = _decoded(data)
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object")
    if "model_info" in data and not isinstance(data["model_info"], dict):
        raise ParseError("model_info is not an object")
    return data


def parse_tags(data: Any) -> tuple[dict, ...]:
    """/api/tags -> ({name, size, details...}, ...)."""
    data = _decoded(data)
    if not isinstance(data, dict) or not isinstance(data.get("models", []), list):
        raise ParseError('expected an object with a "models" list')
    return tuple(m for m in data.get("models") or [] if isinstance(m, dict) and m.get("name"))


def get_version(host, port: int) -> str:
    try:
        return parse_version(_call(host, port, "GET", "/api/version"))
    except ParseError as e:
        raise OllamaApiError(f"GET /api/version: {e}") from None


def get_ps_raw(host, port: int) -> Any:
    return _call(host, port, "GET", "/api/ps")


def get_ps_with_source(host, port: int) -> tuple[Any, str]:
    return _call_with_source(host, port, "GET", "/api/ps")


def get_show(host, port: int, model: str) -> dict:
    return get_show_with_source(host, port, model)[0]


def get_show_with_source(host, port: int, model: str) -> tuple[dict, str]:
    data, source = _call_with_source(host, port, "POST", "/api/show", {"model": model, "verbose": False})
    try:
        return parse_show(data), source
    except ParseError as e:
        raise OllamaApiError(f"POST /api/show: {e}") from None


def get_tags(host, port: int) -> tuple[dict, ...]:
    try:
        return parse_tags(_call(host, port, "GET", "/api/tags"))
    except ParseError as e:
        raise OllamaApiError(f"GET /api/tags: {e}") from None


# -- figures from /api/show model_info ---------------------------------------------------

def architecture(show: dict) -> str | None:
    info = show.get("model_info") or {}
    arch = info.get("general.architecture")
    return arch if isinstance(arch, str) else None


def model_info_int(show: dict, key: str) -> int | None:
    """`<arch>.<key>` from model_info as an int (e.g. "context_length", "block_count")."""
    arch = architecture(show)
    info = show.get("model_info") or {}
    v = info.get(f"{arch}.{key}") if arch else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return int(v)


def response_timings(obj: Any) -> dict[str, float]:
    """Seconds from the final /api/generate or /api/chat object (durations are ns and
    omitted when zero). `load` > 0 means the request waited for a model load."""
    if not isinstance(obj, dict):
        raise ParseError("expected the final response object")
    out = {}
    for key in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
        v = obj.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ParseError(f"{key} is not a duration in ns")
        out[key.removesuffix("_duration")] = v / 1e9
    return out
