"""Ask a running engine whether it makes progress, within one deadline: its health endpoint,
its counters twice, and - where nothing is in flight and a request is allowed - the cheapest
request it accepts (one token). knowledge/progress.py reads the answers, judge/progress.py
decides, app/ready.py puts the steps in order.

Every call is bounded by what is left of the deadline, so a stopped engine (port open,
nothing answers) costs the deadline and no more. A readiness check never loads a model:
for Ollama it asks the model already in memory, or says it cannot tell.
"""
from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from llmdoctor.facts import Context, FactUnavailable, provider, kept_json
from llmdoctor.hosts.base import HostError
from llmdoctor.hosts.stream_client import get, post_json
from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, SGLANG, VLLM
from llmdoctor.model import Record, record
from llmdoctor.knowledge.progress import Reading, reading

HEALTH = {LLAMACPP: "/health", VLLM: "/health", SGLANG: "/health", OLLAMA: "/"}
PROMPT = "Say OK."
MIN_CALL_S = 0.2  # a call given less than this is not worth starting
HOST_CALL_S = 5.0  # diagnose: what the engines' other endpoint reads allow one request
STALL_WINDOW_S = 1.5  # judge/thresholds.py STALL_MIN_WINDOW_S (facts may not import judge)


class Clock:
    """What is left of one deadline."""

    def __init__(self, seconds: float) -> None:
        self.start = time.monotonic()
        self.end = self.start + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def since(self) -> float:
        return time.monotonic() - self.start


def port_open(url: str, timeout: float) -> bool:
    u = urlsplit(url if "://" in url else f"http://{url}")
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        with socket.create_connection((u.hostname or "127.0.0.1", port), timeout=max(0.1, timeout)):
            return True
    except OSError:
        return False


Fetch = Callable[[str, float], tuple[str, Any]]  # (path, timeout) -> ("ok", answer) or (failure, error)


def url_fetch(url: str) -> Fetch:
    """GETs to a base URL (`llmdoctor ready`)."""
    def fetch(path: str, timeout: float) -> tuple[str, Any]:
        try:
            return "ok", get(url, path, timeout)
        except TimeoutError as e:
            return "timeout", e
        except ConnectionRefusedError as e:
            return "refused", e
        except (OSError, http.client.HTTPException, ValueError) as e:
            return "error", e
    return fetch


def host_fetch(host, port: int, timeout_s: float) -> Fetch:
    """GETs through a host (diagnose: local, SSH, container), which remembers a port that let a
    whole deadline pass and does not ask it again in the same run: so each call gets the same
    time the engine's other endpoints get (a busy engine's /health must not cost its /metrics)."""
    from llmdoctor.hosts.http import HttpTimeout

    def fetch(path: str, timeout: float) -> tuple[str, Any]:
        try:
            return "ok", host.http("GET", port, path, timeout=max(timeout, timeout_s))
        except HttpTimeout as e:
            return "timeout", e
        except (HostError, OSError) as e:
            return ("refused" if "refused" in str(e).lower() else "error"), e
    return fetch


def _get(fetch: Fetch, path: str, clock: Clock, cap: float) -> tuple[str, Any]:
    """("ok"|"timeout"|"refused"|"error", the answer or the error)."""
    budget = min(cap, clock.left())
    if budget < MIN_CALL_S:
        return "timeout", None
    return fetch(path, budget)


def health(fetch: Fetch, engine: str, clock: Clock) -> tuple[str, str]:
    """(status, the line for the report): status "ok", "loading", "timeout", "refused" or "error"."""
    path = HEALTH.get(engine, "/health")
    status, r = _get(fetch, path, clock, 2.0)
    if status != "ok":
        return status, f"GET {path}: {'no answer in time' if status == 'timeout' else r}"
    text = r.body[:200].decode("utf-8", "replace").strip()
    line = f"GET {path}: {r.status} {text}"
    if r.status == 503 and "loading" in text.lower():
        return "loading", line
    return ("ok" if r.status == 200 else "error"), line


def read_counters(fetch: Fetch, engine: str, clock: Clock) -> Reading:
    at = time.monotonic()
    metrics = slots = None
    status, r = _get(fetch, "/metrics", clock, 2.0)
    if status == "ok" and r.status == 200:
        metrics = r.body.decode("utf-8", "replace")
    if engine == LLAMACPP:
        status, r = _get(fetch, "/slots", clock, 2.0)
        if status == "ok" and r.status == 200:
            try:
                slots = json.loads(r.body)
            except ValueError:
                slots = None
    return reading(engine, at, metrics, slots)


def watch(fetch: Fetch, engine: str, clock: Clock, window: float) -> list[Reading]:
    """Two readings `window` seconds apart (less where the deadline is nearer)."""
    first = read_counters(fetch, engine, clock)
    if not first.in_flight:  # idle (or not said): nothing to watch, a request of our own tells
        return [first]
    time.sleep(max(0.0, min(window, clock.left() - 1.0)))
    return [first, read_counters(fetch, engine, clock)]


def loaded_ollama_models(fetch: Fetch, clock: Clock) -> list[str]:
    status, r = _get(fetch, "/api/ps", clock, 2.0)
    if status != "ok" or r.status != 200:
        return []
    try:
        models = r.json().get("models") or []
    except (ValueError, AttributeError):
        return []
    return [str(n) for n in (m.get("name") or m.get("model") for m in models if isinstance(m, dict)) if n]


def first_token(url: str, engine: str, model: str, clock: Clock) -> tuple[str, float, str]:
    """("token"|"timeout"|"refused"|"loading"|"error", seconds waited, what came back)."""
    from llmdoctor.knowledge.probe.prompts import request

    path, body = request(engine, model, PROMPT, 1)
    body["stream"] = False
    body.pop("stream_options", None)
    start = time.monotonic()
    budget = clock.left()
    if budget < MIN_CALL_S:
        return "timeout", 0.0, "no time left for a request"
    try:
        r = post_json(url, path, body, budget)
    except TimeoutError:
        return "timeout", time.monotonic() - start, f"POST {path} (1 token): no answer in {budget:.1f} s"
    except ConnectionRefusedError as e:
        return "refused", time.monotonic() - start, f"POST {path}: {e}"
    except (OSError, http.client.HTTPException, ValueError) as e:
        return "error", time.monotonic() - start, f"POST {path}: {e}"
    waited = time.monotonic() - start
    text = r.body[:200].decode("utf-8", "replace").strip()
    if r.status == 200:
        return "token", waited, f"POST {path} (1 token): 200 in {waited:.2f} s"
    if r.status == 503 and "loading" in text.lower():
        return "loading", waited, f"POST {path}: 503 {text}"
    return "error", waited, f"POST {path}: {r.status} {text}"


# -- the fact "engine_progress" (diagnose) ---------------------------------------------------
@record
class EngineProgress(Record):
    """One engine instance watched across the sampling window: what its health endpoint said
    and its counters at the window's two ends (one reading when nothing was in flight)."""

    kind: str
    port: int | None
    health: str  # "ok", "loading", "timeout" (port open, no answer), "refused", "error"
    health_line: str
    readings: tuple[Reading, ...] = ()

    def to_dict(self) -> dict:
        return {"kind": self.kind, "port": self.port, "health": self.health, "health_line": self.health_line,
                "readings": [{"at": r.at, "source": r.source, "generated": r.generated, "running": r.running,
                              "waiting": r.waiting, "marks": [list(m) if isinstance(m, tuple) else m for m in r.marks]}
                             for r in self.readings]}


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) < 1e18


def _figure(r: dict, name: str, kind=float):
    v = r.get(name)
    if v is None:
        return None
    if not _number(v):
        raise ValueError(f"{name!r} must be a number, not {v!r:.40}")
    return kind(v)


def progress_from_json(data: bytes) -> tuple[EngineProgress, ...]:
    """`progress.json` as `collect` writes it (a list of to_dict()s); ValueError on garbage."""
    doc = json.loads(data)
    if not isinstance(doc, list):
        raise ValueError("progress.json must be a list")
    out = []
    for e in doc:
        if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
            raise ValueError("each entry needs a string 'kind'")
        readings = []
        for r in e.get("readings") or []:
            if not isinstance(r, dict) or not _number(r.get("at")):
                raise ValueError("each reading needs a number 'at'")
            marks = r.get("marks") or []
            if not isinstance(marks, list) or not all(_number(m) or m is None or isinstance(m, list) and all(
                    _number(x) or x is None for x in m) for m in marks):
                raise ValueError("'marks' must be a list of numbers and lists of numbers")
            readings.append(Reading(float(r["at"]), str(r.get("source") or ""), _figure(r, "generated"),
                                    _figure(r, "running", int), _figure(r, "waiting", int),
                                    tuple(tuple(m) if isinstance(m, list) else m for m in marks)))
        port = e.get("port")
        out.append(EngineProgress(e["kind"], port if isinstance(port, int) else None, str(e.get("health") or ""),
                                  str(e.get("health_line") or ""), tuple(readings)))
    return tuple(out)


@provider("engine_progress")
def engine_progress(ctx: Context, engines=()):
    """Each engine with counters (llama-server, vLLM, SGLang), watched over the sampling window:
    no request is sent (the probe does that, only when asked)."""
    return ctx.host.observe(lambda: _watch(ctx, engines), lambda: kept_json(ctx.host, "progress", progress_from_json))


def _watch(ctx: Context, engines):
    host = ctx.host
    targets = [e for e in engines or () if e.port and e.kind in (LLAMACPP, VLLM, SGLANG)]
    if not targets:
        raise FactUnavailable("no engine with progress counters (llama-server, vLLM, SGLang) to watch", quiet=True)
    out = []
    for e in targets:
        fetch = host_fetch(host, e.port, HOST_CALL_S)
        clock = Clock(max(ctx.sample_seconds, 0.0) + 3 * HOST_CALL_S)
        state, line = health(fetch, e.kind, clock)
        # (a window long enough to see tokens move, no longer: the other samplers have theirs)
        window = min(max(ctx.sample_seconds, 0.0), 2 * STALL_WINDOW_S)
        readings = tuple(watch(fetch, e.kind, clock, window)) if state == "ok" else ()
        out.append(EngineProgress(e.kind, e.port, state, line, readings))
    return tuple(out)
