"""QUEUEING in SGLang: requests wait (#queue-req > 0, sglang:num_queue_reqs) while the KV pool
still has room, so the batch is capped by --max-running-requests or by the scheduler's caution."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import backlogs, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog, SglangMetricsSample
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


def _shape(sglang_log):
    """(source, shape) of #queue-req over the batch lines kept of the log whose queue run is longest."""
    scans = [s for s in (sglang_log.scans if sglang_log is not None else ()) if s.longest_queue_run is not None]
    if not scans:
        return None
    scan = max(scans, key=lambda s: s.longest_queue_run.length)
    from llmdoctor.judge.queue_shape import series_shape  # (only with a queue: start-up time)

    shape = series_shape((b.queue for b in scan.recent), "batch line")
    return (scan.source, shape) if shape is not None else None


@check(id="sglang-queueing", cause=Cause.QUEUEING,
       purpose="SGLang requests queue (#queue-req > 0 across batch lines, sglang:num_queue_reqs) while the KV "
               "pool has room: the batch is capped by --max-running-requests or the scheduler holds back",
       engines=("sglang",), needs=("sglang_log", "sglang_metrics"))
def queueing(
    sglang_log: SglangLog | None = None,
    sglang_metrics: SglangMetricsSample | None = None,
    sglang_cmdline: SglangCmdline | None = None,
    sglang_server_info: dict | None = None,
):
    found = next((b for b in backlogs(sglang_log, sglang_metrics) if b[0] == "queue"), None)
    if found is None:
        return
    from llmdoctor.judge.queue_shape import BURSTS, SGLANG_ADVICE, SPIKE

    _, ev, sustained = found
    cap, where = setting("max_running_requests", sglang_cmdline, sglang_server_info, sglang_log)
    running = max((s.max_running for s in sglang_log.scans), default=0) if sglang_log is not None else 0
    if sglang_metrics is not None:
        running = max(running, int(sglang_metrics.latest.running or 0))
    if cap and running >= int(cap):
        ev.append(Evidence(where, f"max_running_requests {cap}: the batch is full at that cap, the KV pool is not"))
        summary = (f"The batch is capped at --max-running-requests {cap} while the KV pool has room: raise it "
                   "(SGLang may cap it again for memory: check the start-up `max_running_requests=` line), or add "
                   "a replica with --dp 2 if GPUs allow.")
        remedy = sglang(sglang_cmdline, max_running_requests=int(cap) * 2)
    else:
        summary = ("Requests wait while token usage stays under 0.9: SGLang admits fewer requests than its KV "
                   "pool holds because it reserves room for each request's max_new_tokens. Lower "
                   "--schedule-conservativeness (default 1.0; SGLang's tuning guide suggests 0.3), or have clients "
                   "send realistic max_tokens; add a replica (--dp 2) if the load is simply higher than one copy.")
        remedy = sglang(sglang_cmdline, schedule_conservativeness=0.3)
    shape = _shape(sglang_log)
    kind = shape[1].kind if shape is not None else None
    if shape is not None:
        ev.append(Evidence(shape[0], shape[1].evidence.replace("Waiting", "#queue-req")))
        summary = (SGLANG_ADVICE[kind] + " " + summary).strip()
    if kind == BURSTS:  # SGLang keeps up on average: bound the wait, not more capacity
        remedy = sglang(sglang_cmdline, max_queued_requests=shape[1].queue_cap())
    yield Finding(Cause.QUEUEING, Severity.INFO if kind == SPIKE else Severity.WARNING,
                  "SGLang requests are waiting in its queue", ev, remedy_fix(summary, None if kind == SPIKE else remedy),
                  confidence=Confidence.HIGH if sustained else Confidence.MEDIUM)
