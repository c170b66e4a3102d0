"""Reading llama-server's endpoints through a host: one call per endpoint, each with a
timeout, and what could not be read recorded instead of raised."""
from __future__ import annotations

from typing import Any

from llmdoctor.hosts.base import HostError
from llmdoctor.knowledge.llamacpp.endpoints import (LlamaState, parse_health, parse_llama_metrics,
                                                    parse_models_train, parse_props, parse_slots)
from llmdoctor.parsing import ParseError

TIMEOUT = 5.0


def _get(host, port: int, path: str, timeout: float) -> tuple[int, bytes, str]:
    """(status, body, source): the host says where its answer came from."""
    r = host.http("GET", port, path, timeout=timeout)
    return r.status, r.body, r.source or f"GET :{port}{path}"


def read_state(host, port: int, timeout: float = TIMEOUT) -> LlamaState:
    """Ask all four endpoints; each failure becomes one line in `errors`."""
    vals: dict[str, Any] = {}
    errors: list[str] = []
    sources: dict[str, str] = {}
    for path, parse in (("/health", None), ("/props", parse_props), ("/slots", parse_slots),
                        ("/metrics", parse_llama_metrics), ("/v1/models", parse_models_train)):
        key = path.rsplit("/", 1)[-1]
        try:
            status, body, src = _get(host, port, path, timeout)
            sources[key] = src
            if path == "/health":
                vals[key] = parse_health(status, body)
                continue
            if status == 501 and path == "/metrics":
                errors.append("/metrics: not enabled (start llama-server with --metrics)")
                continue
            if status != 200:
                if path != "/v1/models":  # (only the trained context is read there: its absence is no error)
                    errors.append(f"{path}: HTTP {status}")
                continue
            vals[key] = parse(body.decode("utf-8", "replace") if path == "/metrics" else body)  # type: ignore[misc]
        except (HostError, OSError) as e:
            if path != "/v1/models":  # (read for the trained context only: an older server or a recording may lack it)
                errors.append(f"{path}: {e}")
        except ParseError as e:
            errors.append(f"unparseable {path}: {e}")
    return LlamaState(port, health=vals.get("health"), props=vals.get("props"), slots=vals.get("slots"),
                      metrics=vals.get("metrics"), errors=tuple(errors), sources=sources, n_ctx_train=vals.get("models"))
