"""Fact "probe": the live probe's measurements (llmdoctor.facts.live_probe), as a ProbeRuns.

- a recording (an evidence directory): read `probe.json` (written by `llmdoctor probe --format json`
  or `collect`); quietly absent when the file is not there;
- live host: only when asked (`diagnose --probe` -> ctx.options.probe), the light
  probe against each engine found, through `host.base_url(port)` (a tunnel over SSH).
  Otherwise quietly unavailable: the probe sends requests, so it is never implicit.
"""
from __future__ import annotations

import json
from typing import Any

from llmdoctor.facts import Context, FactUnavailable, kept_json, provider


def _parallel(ollama_config: Any) -> int | None:
    """OLLAMA_NUM_PARALLEL as a positive int, when the ollama facts know it."""
    get = getattr(ollama_config, "get", None)
    value = get("OLLAMA_NUM_PARALLEL") if callable(get) else None
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


def runs_from_json(data: bytes) -> Any:
    """probe.json -> ProbeRuns; accepts one result object, a list of them, or the
    `llmdoctor probe --format json` document (its "probe" key)."""
    from llmdoctor.knowledge.probe.result import ProbeResult, ProbeRuns

    doc = json.loads(data)
    if isinstance(doc, dict) and "probe" in doc:
        doc = doc["probe"]
    items = doc if isinstance(doc, list) else [doc]
    return ProbeRuns(tuple(ProbeResult.from_dict(d) for d in items))


@provider("probe")
def probe(ctx: Context, engines=(), ollama_config=None):
    # a recording holds the probe it ran, or none; it sends no requests
    return ctx.host.observe(lambda: _probe_now(ctx, engines, ollama_config),
                            lambda: kept_json(ctx.host, "probe", runs_from_json))


def _teller(host, engine):
    """The probe's steps, named by host and engine (a fleet's lines interleave)."""
    from llmdoctor.steps import say

    name = host.name or ""
    where = f"{name + ' ' if name else ''}{engine.kind} :{engine.port}"
    return lambda message: say(f"probe {where}: {message}")


def _probe_now(ctx: Context, engines, ollama_config):
    host = ctx.host
    if not ctx.options.probe:
        raise FactUnavailable("live probe not requested (diagnose --probe)", quiet=True)
    from llmdoctor.facts.live_probe import ProbeError, run_probe
    from llmdoctor.knowledge.probe.result import ProbeRuns

    targets = [e for e in engines or () if e.port]
    if not targets:
        raise FactUnavailable("no engine with a known port to probe")
    results, problems = [], []
    deadline = float(ctx.options.probe_deadline or 60.0)
    for e in targets:
        slots = _parallel(ollama_config) if e.kind == "ollama" else None
        try:
            results.append(run_probe(host.base_url(e.port), model=ctx.options.probe_model,
                                     deadline_s=deadline, slots=slots, progress=_teller(host, e)))
        except ProbeError as err:
            problems.append(f"{e.kind} on port {e.port}: {err}")
    if not results:
        raise FactUnavailable("probe failed: " + "; ".join(problems))
    return ProbeRuns(tuple(results))
