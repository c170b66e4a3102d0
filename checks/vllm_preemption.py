"""vLLM preempted requests (V0 warnings, V1 'Preemptions: N' in stats lines)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.vllm import kv_room_fix, stats_evidence
from llmdoctor.model import Cause, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import VLLM_PREEMPTIONS_CRITICAL
from llmdoctor.judge.vllm import _capacity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


EVERY_50TH = "V0 logs only the 1st, 51st, 101st... preemption, so each warning stands for up to 50."


@check(id="vllm-preemption", cause=Cause.PREEMPTION,
       purpose="vLLM preempted requests (V0 warnings, V1 'Preemptions: N' in stats lines)",
       engines=("vllm",))
def preemption_in_log(vllm_log: VllmLog, vllm_cmdline: VllmCmdline | None = None):
    for scan in vllm_log.scans:
        if scan.preemption_warnings:
            n = max(scan.preemptions_at_least, scan.max_cumulative or 0)
            ev = [Evidence(scan.source, scan.first_preemption)]
            if scan.last_preemption != scan.first_preemption:
                ev.append(Evidence(scan.source, scan.last_preemption))
            modes = ", ".join(f"{m} ×{c}" for m, c in scan.preemption_modes)
            ev.append(Evidence(scan.source, f"{scan.preemption_warnings} preemption warning(s) ({modes}); "
                                            f"at least {scan.preemptions_at_least} in this log"
                                            + (f", cumulative count up to {scan.max_cumulative}" if scan.max_cumulative else "")
                                            + f". {EVERY_50TH}"))
            yield Finding(Cause.PREEMPTION, Severity.CRITICAL if n >= VLLM_PREEMPTIONS_CRITICAL else Severity.WARNING,
                          "vLLM preempted requests for lack of KV cache space "
                          + (f"(cumulative count {scan.max_cumulative})" if scan.max_cumulative else f"({n} warning(s))"), ev,
                          kv_room_fix(vllm_cmdline, "Preempted requests are recomputed (or swapped), "
                                                    "so latency collapses under load.", _capacity(vllm_log)))
        if scan.v1_preemptions:
            ev = stats_evidence(scan.source, [scan.first_stats_preemption, scan.last_stats_preemption])
            ev.append(Evidence(scan.source, f"{scan.v1_preemptions} preemption(s) reported in "
                                            f"{scan.stats_with_preemptions} stats interval(s)"))
            yield Finding(Cause.PREEMPTION, Severity.CRITICAL if scan.v1_preemptions >= VLLM_PREEMPTIONS_CRITICAL
                          else Severity.WARNING,
                          f"vLLM preempted {scan.v1_preemptions} request(s) (stats lines 'Preemptions: N')", ev,
                          kv_room_fix(vllm_cmdline, "The V1 engine recomputes every preempted request from "
                                                    "scratch.", _capacity(vllm_log)))
