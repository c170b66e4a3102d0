"""PREEMPTION in SGLang: the KV pool ran out mid-decode and SGLang retracted running requests
(back to the queue, their tokens recomputed later)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import either, remedy_fix, sglang
from llmdoctor.judge.sglang import memory_fix
from llmdoctor.judge.thresholds import SGLANG_RETRACTIONS
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog, SglangMetricsSample
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-retraction", cause=Cause.PREEMPTION,
       purpose="SGLang retracted running requests because the KV pool was full "
               "(`KV cache pool is full. Retract requests.`, sglang:num_retracted_requests_total)",
       engines=("sglang",), needs=("sglang_log", "sglang_metrics"))
def retraction(
    sglang_log: SglangLog | None = None,
    sglang_metrics: SglangMetricsSample | None = None,
    sglang_cmdline: SglangCmdline | None = None,
    sglang_server_info: dict | None = None,
):
    ev, count = [], 0
    for scan in (sglang_log.scans if sglang_log is not None else ()):
        if scan.retractions:
            count += scan.retracted_reqs
            ev += [Evidence(scan.source, t) for t in scan.retraction_examples[:2]]
            ev.append(Evidence(scan.source, f"{scan.retractions} retraction line(s), {scan.retracted_reqs} "
                                            "request(s) retracted"))
    m = sglang_metrics.latest if sglang_metrics is not None else None
    if not ev and m is not None and (m.retracted_total or m.retracted_now):
        count = int(m.retracted_total or m.retracted_now)
        name = "sglang:num_retracted_requests_total" if m.retracted_total else "sglang:num_retracted_reqs"
        ev.append(Evidence(sglang_metrics.source, f"{name} {count}"))
    if not ev:
        return
    often = count >= SGLANG_RETRACTIONS
    fix = memory_fix("Each retraction throws away a running request's KV cache and recomputes it later: its "
                     "stream stalls and the GPU repeats work. Raise --schedule-conservativeness (SGLang's guide: "
                     "1.3) so fewer requests are admitted than the pool can finish; an occasional retraction "
                     "(about one a minute) is normal.", sglang_cmdline, sglang_server_info, sglang_log)
    fix = remedy_fix(fix.summary, either(sglang(sglang_cmdline, schedule_conservativeness=1.3), fix.remedy))
    yield Finding(Cause.PREEMPTION, Severity.WARNING if often else Severity.INFO,
                  f"SGLang retracted {count} running request(s): its KV pool ran out during decoding", ev, fix,
                  confidence=Confidence.HIGH if often else Confidence.MEDIUM)
