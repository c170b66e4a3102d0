"""QUEUEING in vLLM: requests wait for a place in the running batch (which llmdoctor/checks/vllm_prefill.py reports)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.vllm import batch_room, classify_waiting, kv_bound, seqs_for_demand, setting
from llmdoctor.judge.fixes import remedy_fix, vllm
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import VLLM_WAITING_RUN_LINES

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


def _evidence_sets(vllm_log, vllm_metrics):
    scans = vllm_log.scans if vllm_log is not None else ()
    for scan in scans:
        kind, ev = classify_waiting(scan=scan)
        if kind:  # one pasted stats line proves less than a run of them
            return kind, ev, scan.longest_waiting_run.length >= VLLM_WAITING_RUN_LINES
    kind, ev = classify_waiting(metrics=vllm_metrics)
    return kind, ev, vllm_metrics is not None and vllm_metrics.second is not None


def _shape(vllm_log):
    """(source, shape) of the log whose waiting run is longest."""
    scans = [s for s in (vllm_log.scans if vllm_log is not None else ()) if s.longest_waiting_run is not None]
    if not scans:
        return None
    scan = max(scans, key=lambda s: s.longest_waiting_run.length)
    from llmdoctor.judge.queue_shape import queue_shape  # (only with a queue: start-up time)

    shape = queue_shape(scan.longest_waiting_run, scan.waiting_lines, scan.stats_lines)
    return (scan.source, shape) if shape is not None else None


@check(id="vllm-queueing", cause=Cause.QUEUEING,
       purpose="vLLM requests wait (Waiting > 0 across stats lines, vllm:num_requests_waiting) for a free place",
       engines=("vllm",), needs=("vllm_log", "vllm_metrics"))
def queueing(
    vllm_log: VllmLog | None = None,
    vllm_metrics: VllmMetricsSample | None = None,
    vllm_cmdline: VllmCmdline | None = None,
):
    kind, ev, sustained = _evidence_sets(vllm_log, vllm_metrics)
    if kind != "queue":
        return
    from llmdoctor.judge.queue_shape import ADVICE, BURSTS, SPIKE

    seqs = setting(vllm_cmdline, vllm_log, "max_num_seqs")
    summary = ("Requests queue behind a full batch: more arrive than the server runs at once. Time to first "
               "token grows with the queue while tokens/s of running requests stay flat. Cap concurrency at "
               "the client or load balancer, add a replica (or --data-parallel-size), and raise "
               "--max-num-seqs only if the KV cache has room (start-up 'Maximum concurrency' line).")
    running = max((s.max_running for s in vllm_log.scans), default=0) if vllm_log is not None else 0
    if vllm_metrics is not None:
        running = max(running, int(vllm_metrics.latest.running or 0))
    capped = bool(seqs and running >= seqs)  # the batch is capped by --max-num-seqs, not by the KV cache
    if capped:
        want, why = seqs_for_demand(vllm_log, vllm_metrics, seqs)
        summary += f" Running reached --max-num-seqs ({seqs}). {why}"
        cmd = vllm(vllm_cmdline, max_num_seqs=want)
    else:
        cmd = vllm(vllm_cmdline, data_parallel_size=2)
    room = batch_room(vllm_log, vllm_metrics, running, seqs)
    bound = None if room else kv_bound(vllm_log, vllm_metrics, running, seqs)
    if room:  # neither limit is reached: more capacity would not help
        summary, cmd = room, None
    elif bound:  # few long requests fill the KV cache
        summary, cmd = bound, vllm(vllm_cmdline, kv_cache_dtype="fp8")
    shape = _shape(vllm_log)
    kind = shape[1].kind if shape is not None else None
    if shape is not None:
        ev = [*ev, Evidence(shape[0], shape[1].evidence)]
        summary = (ADVICE[kind] + " " + summary).strip()
    if kind == BURSTS and not room and not capped:  # it keeps up on average: bound the wait, not more capacity
        cmd = vllm(vllm_cmdline, max_num_queued_reqs=shape[1].queue_cap())
    yield Finding(Cause.QUEUEING, Severity.INFO if kind == SPIKE else Severity.WARNING,
                  "vLLM requests are waiting for KV cache space that a few long requests hold" if bound else
                  "vLLM requests are waiting for a place in the batch", ev,
                  remedy_fix(summary, None if kind == SPIKE else cmd),
                  confidence=Confidence.HIGH if sustained else Confidence.MEDIUM)


@check(id="vllm-queue-overflow", cause=Cause.QUEUE_FULL,
       purpose="vLLM rejected requests with 503 (queue limits --max-num-queued-reqs/--max-num-queued-tokens)",
       engines=("vllm",))
def queue_overflow(vllm_log: VllmLog):
    for scan in vllm_log.scans:
        if scan.queue_overflows:
            yield Finding(
                Cause.QUEUE_FULL, Severity.CRITICAL,
                f"vLLM turned away {scan.queue_overflows} request(s): its queue limit was reached",
                [Evidence(scan.source, scan.queue_overflow_example)],
                remedy_fix("The queue limit set with --max-num-queued-reqs / --max-num-queued-tokens was reached, so "
                    "vLLM answered 503. Raise the limit if clients can wait, add replicas, or make clients "
                    "retry with back-off.", vllm(None, max_num_queued_reqs=512)))
