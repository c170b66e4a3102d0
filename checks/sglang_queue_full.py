"""QUEUE_FULL in SGLang: with --max-queued-requests the scheduler aborts what arrives when
that many already wait, and the client gets HTTP 503 "The request queue is full."."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import backlogs, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog, SglangMetricsSample
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-queue-full", cause=Cause.QUEUE_FULL,
       purpose='SGLang refused requests with HTTP 503 "The request queue is full." (--max-queued-requests)',
       engines=("sglang",), needs=("sglang_log",))
def queue_full(sglang_log: SglangLog, sglang_metrics: SglangMetricsSample | None = None,
               sglang_cmdline: SglangCmdline | None = None, sglang_server_info: dict | None = None):
    scans = [s for s in sglang_log.scans if s.queue_full]
    if not scans:
        return
    count = sum(s.queue_full for s in scans)
    ev = [Evidence(s.source, t) for s in scans for t in s.queue_full_examples[:2]]
    limit, where = setting("max_queued_requests", sglang_cmdline, sglang_server_info, sglang_log)
    if limit is not None:
        ev.append(Evidence(where, f"max_queued_requests {limit}"))
    waited = next(iter(backlogs(sglang_log, sglang_metrics)), None)
    if waited is not None:
        ev += waited[1][:2]
    running, _ = setting("max_running_requests", sglang_cmdline, sglang_server_info, sglang_log)
    remedy = sglang(sglang_cmdline, max_queued_requests=max(int(limit or 0) * 4, 256))
    yield Finding(
        Cause.QUEUE_FULL, Severity.CRITICAL,
        f"SGLang refused {count} request(s): its waiting queue was full (HTTP 503)", ev,
        remedy_fix("SGLang aborts a new request when --max-queued-requests already wait, so clients see 503 instead of "
            "a slow answer. Raise --max-queued-requests (or leave it unset: no limit) if waiting is acceptable, "
            "make clients back off and retry on 503, and add capacity where the queue never drains"
            + (f" (max_running_requests {running} run at once)" if running else "") + ".",
            remedy),
        confidence=Confidence.HIGH)
