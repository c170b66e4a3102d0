"""BANDWIDTH_LIMIT from the live probe: two streams at once each run near half speed. Where the
GPUs' readings are there, the finding says whether each card ran at its clocks when read: a
throttled card lowers the bandwidth measured (then GPU_DEGRADED, not the model, is the limit)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact
    from llmdoctor.knowledge.probe.result import ProbeRuns


def _clock_lines(gpu_health: GpuHealthFact | None) -> list[Evidence]:
    from llmdoctor.judge.gpu import busy, clocks_line, throttled_by

    lines = []
    for g in gpu_health.gpus if gpu_health is not None else ():
        if throttled_by(g):
            verdict = "throttled: the bandwidth measured is below what this card gives (see GPU_DEGRADED)"
        elif busy(g) is False:
            verdict = "idle when read: its clocks then say nothing of the probe's"
        else:
            verdict = "at its clocks, nothing holding them"
        lines.append(Evidence(gpu_health.source, f"{clocks_line(g)} - {verdict}"))
    return lines


@check(id="probe-bandwidth-limit", cause=Cause.BANDWIDTH_LIMIT,
       purpose="Live probe: concurrent streams share the hardware (each near half the single-stream speed)")
def probe_bandwidth_limit(probe: ProbeRuns, gpu_health: GpuHealthFact | None = None):
    from llmdoctor.judge.probe.advice import bandwidth_fix, source
    from llmdoctor.judge.probe.verdicts import PROBLEM, batching

    for r in probe.results:
        v = batching(r)
        if v is not None and v.kind == PROBLEM:
            yield Finding(Cause.BANDWIDTH_LIMIT, Severity.INFO, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence) + tuple(_clock_lines(gpu_health)),
                          bandwidth_fix(r.engine), confidence=v.confidence)
