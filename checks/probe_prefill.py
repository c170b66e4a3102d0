"""PREFILL from the live probe: a long prompt waits long for its first token on an
idle server, or (load mode) freezes the streams already running."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.probe.result import ProbeRuns


@check(id="probe-prefill", cause=Cause.PREFILL,
       purpose="Live probe: long prompts wait seconds for the first token, or stall running streams")
def probe_prefill(probe: ProbeRuns):
    from llmdoctor.judge.probe.advice import prefill_fix, source, stall_fix
    from llmdoctor.judge.probe.verdicts import PROBLEM, prefill, prefill_stall

    for r in probe.results:
        v = prefill(r)
        if v is not None and v.kind == PROBLEM:
            yield Finding(Cause.PREFILL, Severity.WARNING, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence),
                          prefill_fix(r.engine), confidence=v.confidence)
        v = prefill_stall(r)
        if v is not None and v.kind == PROBLEM:
            yield Finding(Cause.PREFILL, Severity.WARNING, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence),
                          stall_fix(r.engine), confidence=v.confidence)
