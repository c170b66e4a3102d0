"""Which engine answers at a URL, which model to probe, and how many slots it has.

Order matters: Ollama also serves `/v1/models`, so its own `/api/version` is asked
first; llama-server answers `/props` (with `total_slots`); vLLM is an OpenAI server
whose `/metrics` carries `vllm:` names; SGLang one whose `/get_server_info` holds its server
arguments (its `/metrics` answers only with --enable-metrics). Anything else that lists `/v1/models` is
probed as a generic OpenAI-compatible server.
"""
from __future__ import annotations

import http.client
from dataclasses import dataclass
from typing import Any

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, SGLANG, VLLM
from llmdoctor.hosts.stream_client import GetResult, ProbeError, get
from llmdoctor.knowledge.probe.limits import DETECT_TIMEOUT_S

OPENAI = "openai"  # an OpenAI-compatible server we could not name

@dataclass(frozen=True)
class Target:
    url: str
    engine: str
    model: str
    version: str = ""
    slots: int | None = None
    slots_source: str = ""
    context: int | None = None
    rtt_s: float | None = None

    @property
    def wire(self) -> str:
        return "ollama" if self.engine == OLLAMA else "openai"


def _try(url: str, path: str, timeout: float, identify: bool = False) -> GetResult | None:
    """The answer, or None when there is none. While identifying the engine (`identify`),
    a server that let the whole deadline pass ends detection at once (ProbeError): asking
    it the next path would only wait again."""
    try:
        return get(url, path, timeout)
    except TimeoutError:
        if identify:
            raise ProbeError(f"no complete answer from {url}{path} within {timeout:g} s") from None
        return None
    except (OSError, http.client.HTTPException, ValueError):
        return None


def _json(r: GetResult | None) -> Any:
    if r is None or r.status != 200:
        return None
    try:
        return r.json()
    except ValueError:
        return None


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _rtt(url: str, path: str, first: GetResult | None, timeout: float) -> float | None:
    """Fastest of three cheap GETs: the network and HTTP overhead in every TTFT."""
    times = [first.elapsed_s] if first else []
    for _ in range(2):
        r = _try(url, path, timeout)
        if r is not None:
            times.append(r.elapsed_s)
    return min(times) if times else None


def detect(url: str, model: str | None = None, slots: int | None = None,
           timeout: float = DETECT_TIMEOUT_S) -> Target:
    """Identify the engine at `url`. Raises ProbeError with a reason for the user."""
    url = url.rstrip("/")
    if "://" not in url:
        url = "http://" + url
    version = _try(url, "/api/version", timeout, identify=True)
    v = _json(version)
    if isinstance(v, dict) and "version" in v:
        return _ollama(url, str(v["version"]), model, slots, version, timeout)
    props_r = _try(url, "/props", timeout, identify=True)
    props = _json(props_r)
    if isinstance(props, dict) and ("total_slots" in props or "default_generation_settings" in props):
        return _llamacpp(url, props, model, slots, timeout)
    models_r = _try(url, "/v1/models", timeout, identify=True)
    models = _json(models_r)
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        metrics = _try(url, "/metrics", timeout)
        engine = VLLM if metrics is not None and metrics.status == 200 and b"vllm:" in metrics.body else OPENAI
        info = _json(_try(url, "/get_server_info", timeout)) if engine == OPENAI else None
        sglang = isinstance(info, dict) and "model_path" in info and "tp_size" in info
        entries = [m for m in models["data"] if isinstance(m, dict) and m.get("id")]
        chosen = model or (str(entries[0]["id"]) if entries else "")
        if not chosen:
            raise ProbeError(f"{url}/v1/models lists no model; pass --model")
        context = next((_int(m.get("max_model_len")) for m in entries if m.get("id") == chosen), None)
        if sglang:
            return Target(url, SGLANG, chosen, str(info.get("version") or ""), slots or _int(info.get("max_running_requests")),
                          "--concurrency/config" if slots else "/get_server_info max_running_requests",
                          context or _int(info.get("max_req_input_len")) or _int(info.get("context_length")),
                          _rtt(url, "/v1/models", models_r, timeout))
        return Target(url, engine, chosen, slots=slots, slots_source="--concurrency/config" if slots else "",
                      context=context, rtt_s=_rtt(url, "/v1/models", models_r, timeout))
    if version is None and props_r is None and models_r is None:
        raise ProbeError(f"nothing answers at {url} (connection refused or timed out after {timeout:.0f} s)")
    raise ProbeError(f"{url} answers HTTP but is not Ollama (/api/version), llama-server (/props) "
                     f"or OpenAI-compatible (/v1/models)")


def _ollama(url: str, version: str, model: str | None, slots: int | None,
            first: GetResult | None, timeout: float) -> Target:
    ps = _json(_try(url, "/api/ps", timeout))
    listed = ps.get("models") if isinstance(ps, dict) else None
    loaded = [m for m in listed if isinstance(m, dict) and m.get("name")] if isinstance(listed, list) else []
    chosen = model or (str(loaded[0]["name"]) if loaded else "")
    if not chosen:
        raise ProbeError(f"Ollama {version} at {url} has no model loaded; pass --model NAME "
                         f"(the probe's first request will then load it)")
    context = next((_int(m.get("context_length")) for m in loaded if m.get("name") == chosen), None)
    return Target(url, OLLAMA, chosen, version, slots, "OLLAMA_NUM_PARALLEL" if slots else "", context,
                  _rtt(url, "/api/version", first, timeout))


def _llamacpp(url: str, props: dict[str, Any], model: str | None, slots: int | None,
              timeout: float) -> Target:
    dgs = props.get("default_generation_settings") if isinstance(props.get("default_generation_settings"), dict) else {}
    total = _int(props.get("total_slots"))
    chosen = model or ""
    if not chosen:
        models = _json(_try(url, "/v1/models", timeout))
        data = (models or {}).get("data") if isinstance(models, dict) else None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            chosen = str(data[0].get("id") or "")
        chosen = chosen or str(props.get("model_alias") or props.get("model_path") or "default")
    health = _try(url, "/health", timeout)
    return Target(url, LLAMACPP, chosen, str(props.get("build_info") or ""),
                  total if total else slots, "/props total_slots" if total else "",
                  _int(dgs.get("n_ctx")), _rtt(url, "/health", health, timeout))
