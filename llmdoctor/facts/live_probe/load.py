"""Read the server's load before the probe sends (knowledge/probe/load.py parses it), wait
briefly for it to go idle, and count a prompt's tokens where the engine can say.

Each read is a GET or two with a short timeout; a failure is a reading that knows nothing,
never an error: the probe then runs as before and says the load was not known.
"""
from __future__ import annotations

import http.client
import json
import time
from typing import Any

from llmdoctor.hosts.stream_client import Interrupt, get, post_json
from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, VLLM
from llmdoctor.knowledge.probe.load import ServerLoad, llamacpp_load, ollama_load, vllm_load

LOAD_TIMEOUT_S = 2.0
IDLE_POLL_S = 0.5


def _fetch(url: str, path: str, timeout: float) -> tuple[Any, str | None]:
    """(parsed JSON or None, text or None) of a GET; (None, None) when it did not answer 200."""
    try:
        r = get(url, path, timeout)
    except (OSError, http.client.HTTPException, ValueError):
        return None, None
    if r.status != 200:
        return None, None
    text = r.body.decode("utf-8", "replace")
    try:
        return json.loads(text), text
    except ValueError:
        return None, text


def read_load(url: str, engine: str, timeout: float = LOAD_TIMEOUT_S) -> ServerLoad:
    """One reading of what the server is doing (see knowledge/probe/load.py)."""
    if engine == LLAMACPP:
        slots, _ = _fetch(url, "/slots", timeout)
        _, metrics = _fetch(url, "/metrics", timeout)
        return llamacpp_load(slots, metrics)
    if engine == VLLM:
        return vllm_load(_fetch(url, "/metrics", timeout)[1])
    if engine == OLLAMA:
        return ollama_load(_fetch(url, "/api/ps", timeout)[0])
    return ServerLoad("no load endpoint for this engine")


def wait_for_idle(url: str, engine: str, budget_s: float,
                  stop: Interrupt | None = None) -> tuple[ServerLoad, ServerLoad, float]:
    """Read the load; while others are served, read again every IDLE_POLL_S for at most
    `budget_s`. Returns the first reading, the last (the same object when it did not wait)
    and the seconds waited."""
    start = time.monotonic()
    first = load = read_load(url, engine)
    while load.busy and time.monotonic() - start + IDLE_POLL_S <= budget_s and not (stop and stop.is_set()):
        if stop is not None:
            stop.event.wait(IDLE_POLL_S)
        else:
            time.sleep(IDLE_POLL_S)
        load = read_load(url, engine)
    return first, load, time.monotonic() - start


def count_tokens(url: str, engine: str, text: str, timeout: float = LOAD_TIMEOUT_S) -> int | None:
    """The prompt's tokens by the server's own tokenizer (llama-server `POST /tokenize`), or None."""
    if engine != LLAMACPP:
        return None
    try:
        r = post_json(url, "/tokenize", {"content": text}, timeout)
        tokens = r.json().get("tokens") if r.status == 200 else None
    except (OSError, http.client.HTTPException, ValueError, AttributeError):
        return None
    return len(tokens) if isinstance(tokens, list) else None
