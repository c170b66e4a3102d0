"""MODEL_UNLOAD from the live probe: the first request paid for loading the model."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.probe.result import ProbeRuns


@check(id="probe-model-unload", cause=Cause.MODEL_UNLOAD,
       purpose="Live probe: the first request carried a model load (Ollama load_duration, or a cold-start TTFT)")
def probe_model_unload(probe: ProbeRuns):
    from llmdoctor.judge.probe.advice import source, unload_fix
    from llmdoctor.judge.probe.verdicts import PROBLEM, model_unload

    for r in probe.results:
        v = model_unload(r)
        if v is not None and v.kind == PROBLEM:
            yield Finding(Cause.MODEL_UNLOAD, Severity.WARNING, v.title,
                          tuple(Evidence(source(r.url), line) for line in v.evidence),
                          unload_fix(r.engine), confidence=v.confidence)
