"""vllm:num_preemptions_total rose between two /metrics samples (or is above 0 in one scrape)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.vllm import kv_room_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import VLLM_PREEMPTIONS_PER_MIN_CRITICAL
from llmdoctor.judge.vllm import _capacity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-preemption-rate", cause=Cause.PREEMPTION,
       purpose="vllm:num_preemptions_total rose between two /metrics samples (or is above 0 in one scrape)",
       engines=("vllm",))
def preemption_rate(
    vllm_metrics: VllmMetricsSample,
    vllm_cmdline: VllmCmdline | None = None,
    vllm_log: VllmLog | None = None,
):
    rate = vllm_metrics.preemption_rate()
    total = vllm_metrics.first.preemptions_total
    if rate is None and vllm_metrics.second is None and total and total > 0:
        # one scrape (evidence): a lifetime count. The V1 engine logs no preemption at all
        # (a real vLLM 0.32 preempted 11 times with no log line), so this may be the only trace.
        yield Finding(Cause.PREEMPTION, Severity.WARNING,
                      f"vLLM has preempted {total:g} request(s) since it started",
                      [Evidence(vllm_metrics.source, f"vllm:num_preemptions_total {total:g}")],
                      kv_room_fix(vllm_cmdline, "Each preempted request is evicted from the KV cache and computed "
                                                "again, which is where its latency goes.",
                                  _capacity(vllm_log) if vllm_log is not None else None),
                      confidence=Confidence.MEDIUM)
        return
    if rate is None or rate.preemptions <= 0:
        return
    a, b = vllm_metrics.first.preemptions_total, vllm_metrics.second.preemptions_total
    text = (f"vllm:num_preemptions_total {a:g} -> {b:g} in {rate.seconds:.1f} s "
            f"({rate.per_minute:.1f} preemptions per minute)" + (" (counter reset: the server restarted)" if rate.restarted else ""))
    yield Finding(Cause.PREEMPTION, Severity.CRITICAL if rate.per_minute >= VLLM_PREEMPTIONS_PER_MIN_CRITICAL
                  else Severity.WARNING,
                  f"vLLM is preempting requests now ({rate.per_minute:.1f} per minute)",
                  [Evidence(vllm_metrics.source, text)],
                  kv_room_fix(vllm_cmdline, "Requests are being evicted from the KV cache while you watch.",
                              _capacity(vllm_log) if vllm_log is not None else None))
