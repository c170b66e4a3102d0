"""QUEUEING from the live probe: two requests sent together ran one after the other."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.probe.result import ProbeRuns


@check(id="probe-queueing", cause=Cause.QUEUEING,
       purpose="Live probe: a second request gets its first token only after the first finishes")
def probe_queueing(probe: ProbeRuns):
    from llmdoctor.judge.probe.advice import parallel_fix, source
    from llmdoctor.judge.probe.verdicts import PROBLEM, load_concurrency, queueing

    for r in probe.results:
        for v in (queueing(r), load_concurrency(r)):
            if v is not None and v.kind == PROBLEM:
                yield Finding(Cause.QUEUEING, Severity.WARNING, v.title,
                              tuple(Evidence(source(r.url), line) for line in v.evidence),
                              parallel_fix(r.engine, r.slots, r.context), confidence=v.confidence)
                break
