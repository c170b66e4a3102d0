"""KV_CAPACITY in SGLang: requests wait while token usage is pinned near 1 - the KV pool, not
the batch cap, limits how many run at once."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.sglang import backlogs, memory_fix
from llmdoctor.model import Cause, Confidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog, SglangMetricsSample
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-kv-full", cause=Cause.KV_CAPACITY,
       purpose="SGLang's KV pool is full (token usage >= 0.9) while requests queue: memory limits concurrency",
       engines=("sglang",), needs=("sglang_log", "sglang_metrics"))
def kv_full(
    sglang_log: SglangLog | None = None,
    sglang_metrics: SglangMetricsSample | None = None,
    sglang_cmdline: SglangCmdline | None = None,
    sglang_server_info: dict | None = None,
):
    found = next((b for b in backlogs(sglang_log, sglang_metrics) if b[0] == "kv"), None)
    if found is None:
        return
    _, ev, sustained = found
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        "SGLang's KV pool is full and requests wait for room in it", ev,
        memory_fix("The scheduler admits a queued request only when the KV pool has tokens for it, so time to "
                   "first token grows with the queue.", sglang_cmdline, sglang_server_info, sglang_log),
        confidence=Confidence.HIGH if sustained else Confidence.MEDIUM)
