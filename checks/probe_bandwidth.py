"""BANDWIDTH_LIMIT from the live probe: two streams at once each run near half speed."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.probe.result import ProbeRuns


@check(id="probe-bandwidth-limit", cause=Cause.BANDWIDTH_LIMIT,
       purpose="Live probe: concurrent streams share the hardware (each near half the single-stream speed)")
def probe_bandwidth_limit(probe: ProbeRuns):
    from llmdoctor.judge.probe.advice import bandwidth_fix, source
    from llmdoctor.judge.probe.verdicts import PROBLEM, batching

    for r in probe.results:
        v = batching(r)
        if v is not None and v.kind == PROBLEM:
            yield Finding(Cause.BANDWIDTH_LIMIT, Severity.INFO, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence),
                          bandwidth_fix(r.engine), confidence=v.confidence)
