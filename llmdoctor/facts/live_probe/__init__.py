"""The live probe: stream a few requests at an LLM server and time every chunk.

It tells apart the causes users feel as "slow": requests queueing behind one slot
(QUEUEING), streams sharing the hardware (BANDWIDTH_LIMIT), long prompts (PREFILL)
and a model reloaded on the first request (MODEL_UNLOAD). Measuring lives here
(`detect`, `client`, `streams`, `scenarios`); judging lives in `verdicts`, with
every threshold in `thresholds`.
"""
from __future__ import annotations

from llmdoctor.hosts.stream_client import Interrupt, ProbeError
from llmdoctor.knowledge.probe.result import ProbeResult, StreamSample

__all__ = ["Interrupt", "ProbeError", "ProbeResult", "StreamSample", "run_probe"]


def run_probe(url: str, model: str | None = None, mode: str = "light", concurrency: int | None = None,
              deadline_s: float | None = None, slots: int | None = None, progress=None,
              stop: Interrupt | None = None) -> ProbeResult:
    """Detect the engine at `url` and run the light probe (or load mode).
    Raises ProbeError when nothing usable answers there."""
    from llmdoctor.facts.live_probe.detect import detect
    from llmdoctor.facts.live_probe.scenarios import ProbeRunner
    from llmdoctor.knowledge.probe.limits import DEFAULT_DEADLINE_S

    if mode not in ("light", "load"):
        raise ProbeError(f"unknown probe mode {mode!r}; choose light or load")
    target = detect(url, model=model, slots=slots)
    runner = ProbeRunner(target, deadline_s=deadline_s or DEFAULT_DEADLINE_S, progress=progress, stop=stop)
    result = runner.load(concurrency) if mode == "load" else runner.light()
    if runner.by_user:
        done = sum(1 for s in result.samples if s.ok)
        raise ProbeInterrupted(f"the live probe of {target.url} was cut after {done} complete request"
                               f"{'s' if done != 1 else ''}; nothing was diagnosed")
    return result


class ProbeInterrupted(KeyboardInterrupt):
    """Ctrl-C during a probe that was part of a larger run (diagnose --probe): the run stops
    and says what was cut, instead of reporting half a probe as if it were the whole. (The
    command line turns a KeyboardInterrupt into exit 130 and drops it: `last` keeps the words.)"""

    last = ""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        ProbeInterrupted.last = what
