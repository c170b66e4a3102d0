"""`llmdoctor ready`: does the engine at a URL serve? One bounded check for load balancers,
container HEALTHCHECKs, Kubernetes probes and monitoring plugins (exit 0 serving, 2 not, 3
could not tell). The steps are in facts/progress.py; the verdict is judge/progress.py's.
"""
from __future__ import annotations

from llmdoctor.facts import progress as ask
from llmdoctor.hosts.stream_client import ProbeError
from llmdoctor.judge.progress import DOWN, STALLED, UNKNOWN, Progress, from_readings, from_request
from llmdoctor.judge.thresholds import READY_DEADLINE_S, STALL_MIN_WINDOW_S
from llmdoctor.knowledge.engines import OLLAMA


def _ollama_model(wanted: str | None, loaded: list[str]) -> str | None:
    if wanted is None:
        return loaded[0] if loaded else None
    return next((m for m in loaded if m in (wanted, f"{wanted}:latest")), None)


def check_progress(url: str, engine: str | None = None, model: str | None = None, deadline: float = READY_DEADLINE_S,
                   send_request: bool = True) -> Progress:
    """The verdict on the engine at `url` within `deadline` seconds (see module docstring)."""
    from llmdoctor.facts.live_probe.detect import detect

    clock = ask.Clock(deadline)
    fetch = ask.url_fetch(url)
    if engine is None or (model is None and engine != OLLAMA):
        try:
            target = detect(url, model=model, timeout=max(ask.MIN_CALL_S, min(2.0, clock.left() / 3)))
        except ProbeError as e:
            if ask.port_open(url, min(1.0, max(0.1, clock.left()))):
                return Progress(STALLED, "the port accepts connections but the engine's API gives no answer",
                                (str(e),), clock.since())
            return Progress(DOWN, "nothing accepts connections there", (str(e),), clock.since())
        engine, model = target.engine, target.model
    state, line = ask.health(fetch, engine, clock)
    if state == "timeout" and ask.port_open(url, min(1.0, max(0.1, clock.left()))):
        return Progress(STALLED, f"the port accepts connections but its health endpoint gave no answer in "
                                 f"{clock.since():.1f} s", (line,), clock.since())
    if state in ("timeout", "refused", "loading"):
        return from_request("refused" if state == "timeout" else state, clock.since(), "", line)
    readings = ask.watch(fetch, engine, clock, STALL_MIN_WINDOW_S) if engine != OLLAMA else []
    verdict = from_readings(readings, line)
    if verdict is not None:
        return verdict
    if not send_request:
        return Progress(UNKNOWN, "nothing in flight to watch, and no request was sent",
                        tuple(r.describe() for r in readings) + (line,), clock.since())
    if engine == OLLAMA:
        loaded = ask.loaded_ollama_models(fetch, clock)
        model = _ollama_model(model, loaded)
        if model is None:
            return Progress(UNKNOWN, "no model in memory to ask: a readiness check does not load one",
                            (line, f"GET /api/ps: {', '.join(loaded) or 'no model loaded'}"), clock.since())
    status, waited, detail = ask.first_token(url, engine, model or "", clock)
    return from_request(status, waited, detail, line)


def progress_json(url: str, p: Progress) -> dict:
    return {"url": url, "state": p.state, "serving": p.serving, "reason": p.reason, "evidence": list(p.evidence),
            "seconds": round(p.seconds, 3)}
