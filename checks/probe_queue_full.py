"""QUEUE_FULL from the live probe: the server refused a probe request as busy (503)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.probe.result import ProbeRuns


@check(id="probe-queue-full", cause=Cause.QUEUE_FULL,
       purpose="Live probe: requests refused with 503 because the server's queue is full")
def probe_queue_full(probe: ProbeRuns):
    from llmdoctor.judge.probe.advice import queue_full_fix, source
    from llmdoctor.judge.probe.verdicts import queue_full

    for r in probe.results:
        v = queue_full(r)
        if v is not None:
            yield Finding(Cause.QUEUE_FULL, Severity.CRITICAL, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence),
                          queue_full_fix(r.engine))
