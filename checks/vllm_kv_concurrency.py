"""vLLM's 'Maximum concurrency ... x' is below the concurrency it is asked to carry."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import kv_room_fix, kv_share_per_request, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import VLLM_KV_BOUND_PCT, VLLM_KV_FEW_FULL_REQUESTS, VLLM_KV_FULL_REQUESTS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


# Fewer than two requests of max_model_len fit: with no batch cap or load in the evidence, the
# scheduler's max_num_seqs (256 to 1024 by default, by GPU, in V1) still admits a second one, and two long conversations
# preempt each other (the capacity line alone says so; a larger figure needs the load to matter).


@check(id="vllm-kv-concurrency", cause=Cause.KV_CAPACITY,
       purpose="vLLM's 'Maximum concurrency ... x' is below the concurrency it is asked to carry",
       engines=("vllm",))
def kv_concurrency(
    vllm_log: VllmLog,
    vllm_cmdline: VllmCmdline | None = None,
    vllm_metrics: VllmMetricsSample | None = None,
):
    scan = next((s for s in vllm_log.scans if s.kv_capacity and s.kv_capacity.max_concurrency is not None), None)
    if scan is None:
        return
    cap = scan.kv_capacity
    demand, ev = 0.0, []
    if scan.max_in_flight:
        demand = float(scan.max_in_flight)
        ev.append(Evidence(scan.source, f"up to {scan.max_in_flight} requests running or waiting at once "
                                        f"(Running {scan.max_running} max, Waiting {scan.max_waiting} max)"))
    if vllm_metrics is not None:
        m = vllm_metrics.latest
        seen = (m.running or 0) + (m.waiting or 0)
        if seen > demand:
            demand = seen
            ev.append(Evidence(vllm_metrics.source, f"vllm:num_requests_running {m.running or 0:g} + "
                                                    f"vllm:num_requests_waiting {m.waiting or 0:g}"))
    seqs = setting(vllm_cmdline, vllm_log, "max_num_seqs")
    asked = "observed"
    if seqs and demand > seqs:  # the rest wait for a place in the batch (QUEUEING), not for KV room
        demand = float(seqs)
        ev.append(Evidence("cmdline.txt" if vllm_cmdline is not None and vllm_cmdline.get("max_num_seqs")
                           else scan.source, f"max_num_seqs {seqs}: at most {seqs} of them run at once"))
    if seqs and seqs > demand:
        demand, asked = float(seqs), "configured"
        ev.append(Evidence("cmdline.txt" if vllm_cmdline is not None and vllm_cmdline.get("max_num_seqs")
                           else scan.source, f"--max-num-seqs {seqs}"))
    share = kv_share_per_request(vllm_log, vllm_metrics)
    if demand and share is not None and demand * share < VLLM_KV_BOUND_PCT:
        return  # full-length requests would overfill this batch, but the requests this server carries fit
    if not demand and VLLM_KV_FULL_REQUESTS <= cap.max_concurrency < VLLM_KV_FEW_FULL_REQUESTS:
        asked = "admitted"  # nothing caps the batch below it: max_num_seqs (its default) admits more than this
    elif cap.max_concurrency >= VLLM_KV_FULL_REQUESTS and demand <= cap.max_concurrency:
        return
    ev = [Evidence(scan.source, line) for line in cap.lines if "concurrency" in line][:1] + ev
    short = cap.max_concurrency < VLLM_KV_FULL_REQUESTS
    yield Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL if short else Severity.WARNING,
        (f"vLLM's KV cache holds {cap.max_concurrency:.2f} full-length request(s)"
         + ("" if short else ": a second long request is preempted or waits" if asked == "admitted"
            else f", but {demand:g} are {asked}")),
        ev,
        kv_room_fix(vllm_cmdline, f"At {cap.tokens_per_request or 'max-model-len'} tokens per request only "
                                  f"{cap.max_concurrency:.2f} requests fit; longer conversations beyond that "
                                  f"are preempted or wait.", cap),
        confidence=Confidence.HIGH if asked == "observed" or short else
        Confidence.LOW if asked == "admitted" else Confidence.MEDIUM)
