"""vLLM's KV cache is full: usage pinned near 100 %, or requests waiting while it is >= 80 % full."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import VLLM_KV_FULL_PCT, VLLM_KV_PINNED_LINES, VLLM_KV_PINNED_USAGE
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import classify_waiting, kv_full_run, kv_room_fix, setting, stats_evidence
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-kv-pinned", cause=Cause.PREEMPTION,
       purpose="vLLM's KV cache is full: usage pinned near 100 %, or requests waiting while it is >= 80 % full",
       engines=("vllm",), needs=("vllm_log", "vllm_metrics"))
def kv_pinned(
    vllm_log: VllmLog | None = None,
    vllm_metrics: VllmMetricsSample | None = None,
    vllm_cmdline: VllmCmdline | None = None,
):
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        kind, ev = classify_waiting(scan=scan)
        if kind == "kv":
            seqs = setting(vllm_cmdline, vllm_log, "max_num_seqs")
            if seqs:
                ev.append(Evidence(scan.source, f"max_num_seqs {seqs}: the batch had room, the KV cache did not"))
            run = kv_full_run(scan)
            yield Finding(Cause.PREEMPTION, Severity.WARNING,
                          "Requests wait while vLLM's KV cache is full: it cannot admit them, and it preempts running "
                          "requests (recomputing them later) to make room", ev,
                          kv_room_fix(vllm_cmdline, "The scheduler admits a waiting request only when the KV cache "
                                                    "has blocks for it, and evicts running ones when it fills. V0 logs "
                                                    "every 50th preemption; V1 logs none (vllm:num_preemptions_total "
                                                    "counts them). --swap-space does not help: V0 swaps only "
                                                    "multi-sequence groups (n > 1, beam search).", scan.kv_capacity),
                          confidence=Confidence.HIGH if run is not None and run.length >= VLLM_KV_PINNED_LINES else Confidence.MEDIUM)
            return
        run = kv_full_run(scan)
        if run is not None and run.length >= VLLM_KV_PINNED_LINES:
            ev = stats_evidence(scan.source, [run.first, run.last] if run.last is not run.first else [run.first])
            ev.append(Evidence(scan.source, f"{run.length} consecutive stats lines with KV cache usage >= {VLLM_KV_FULL_PCT:g} % "
                                            f"(peak {run.peak:.1f} %)"))
            yield Finding(Cause.PREEMPTION, Severity.WARNING,
                          f"vLLM's KV cache stayed full for {run.length} stats intervals", ev,
                          kv_room_fix(vllm_cmdline, "A full KV cache forces new requests to wait and running "
                                                    "ones to be preempted.", scan.kv_capacity))
            return
    if vllm_metrics is not None:
        m, f = vllm_metrics.latest, vllm_metrics.first
        if m.kv_usage is not None and m.kv_usage >= VLLM_KV_PINNED_USAGE \
                and (vllm_metrics.second is None or (f.kv_usage or 0) >= VLLM_KV_PINNED_USAGE) \
                and (m.waiting or 0) > 0:
            text = f"{m.kv_usage_name} {m.kv_usage:.3f} with {m.waiting:g} request(s) waiting"
            yield Finding(Cause.PREEMPTION, Severity.WARNING, "vLLM's KV cache is full and requests wait",
                          [Evidence(vllm_metrics.source, text)],
                          kv_room_fix(vllm_cmdline, "A full KV cache forces new requests to wait and running "
                                                    "ones to be preempted."),
                          confidence=Confidence.MEDIUM if vllm_metrics.second is None else Confidence.HIGH)
