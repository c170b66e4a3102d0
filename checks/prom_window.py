"""What a Prometheus window shows (diagnose --prometheus): a queue, preemptions, swapping or a
slowed GPU, each with when in the window it held."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge import thresholds as th
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.prom_window import PromTarget


@check(id="prom-queueing", cause=Cause.QUEUEING,
       purpose="requests waited (the engine's waiting series above 0 at consecutive points) in the Prometheus window")
def window_queueing(prom_window: PromTarget):
    from llmdoctor.judge.prom_window import QUEUE_FIX, engine_name, series_name, then, when
    from llmdoctor.knowledge.prom_window import episodes

    t = prom_window
    eps = [e for e in episodes(t.points("waiting"), t.step) if e.points >= th.PROM_QUEUE_MIN_POINTS]
    if not eps:
        return
    worst = max(eps, key=lambda e: (e.end - e.start, e.peak))
    name = series_name(t, "waiting")
    ev = [Evidence(t.source, f"{name} > 0 {when(t, worst)}" + (f"; {then(t, worst)}" if then(t, worst) else ""))]
    if len(eps) > 1:
        ev.append(Evidence(t.source, f"{len(eps)} stretches with requests waiting in the window"))
    yield Finding(Cause.QUEUEING, Severity.WARNING,
                  f"{engine_name(t.kind)} requests waited for a place {when(t, worst).split(' (')[0]}", ev,
                  QUEUE_FIX.get(t.kind, QUEUE_FIX["vllm"]),
                  confidence=Confidence.HIGH if worst.points >= th.PROM_QUEUE_SURE_POINTS else Confidence.MEDIUM)


@check(id="prom-preemption", cause=Cause.PREEMPTION,
       purpose="the engine preempted (vLLM) or retracted (SGLang) requests in the Prometheus window")
def window_preemption(prom_window: PromTarget):
    from llmdoctor.judge.prom_window import engine_name, series_name
    from llmdoctor.judge.vllm import kv_room_fix
    from llmdoctor.knowledge.prom_window import clock, increases

    t = prom_window
    rises = increases(t.points("preemptions"))
    if not rises:
        return
    total = sum(d for _, d in rises)
    at, most = max(rises, key=lambda r: r[1])
    span = t.end - t.start
    verb = "retracted" if t.kind == "sglang" else "preempted"
    yield Finding(Cause.PREEMPTION, Severity.WARNING,
                  f"{engine_name(t.kind)} {verb} {total:g} request(s) in the window, from {clock(rises[0][0], span)}",
                  [Evidence(t.source, f"{series_name(t, 'preemptions')} rose by {total:g} " + (
                      f"at {clock(at, span)}" if len(rises) == 1 else
                      f"from {clock(rises[0][0], span)} to {clock(rises[-1][0], span)} (most, {most:g}, at {clock(at, span)})"))],
                  kv_room_fix(None, f"Each {verb} request is evicted from the KV cache and computed again."))


@check(id="prom-swap", cause=Cause.SWAP,
       purpose="node_exporter's swap-in rate was high on the engine's host in the Prometheus window")
def window_swap(prom_window: PromTarget):
    from llmdoctor.judge.prom_window import SWAP_FIX, when
    from llmdoctor.judge.swap import ACTIVE_BYTES_PER_S
    from llmdoctor.knowledge.prom_window import PAGE_BYTES, episodes

    t = prom_window
    mib = [(ts, v * PAGE_BYTES / 2**20) for ts, v in t.points("swap_in")]
    eps = episodes(mib, t.step, above=ACTIVE_BYTES_PER_S / 2 / 2**20)
    if not eps:
        return
    worst = max(eps, key=lambda e: (e.end - e.start, e.peak))
    yield Finding(Cause.SWAP, Severity.WARNING, "The host swapped pages in while it served, in the window",
                  [Evidence(t.source, f"swap-in (node_vmstat_pswpin x 4 KiB per second) above "
                                      f"{ACTIVE_BYTES_PER_S / 2 / 1024:g} KiB/s {when(t, worst, ' MiB/s')}")],
                  SWAP_FIX,
                  confidence=Confidence.MEDIUM)


@check(id="prom-gpu-slowed", cause=Cause.GPU_DEGRADED,
       purpose="dcgm-exporter's clocks event reasons held the GPU's clocks down (power cap, thermal, HW slowdown) in the window")
def window_gpu_slowed(prom_window: PromTarget):
    from llmdoctor.judge.prom_window import GPU_FIX, when
    from llmdoctor.knowledge.nvidia_query import REASON_TEXT, reasons_from_mask
    from llmdoctor.knowledge.prom_window import during, episodes

    t = prom_window
    slow = [(ts, float(int(v) & th.PROM_GPU_SLOW_REASONS)) for ts, v in t.points("throttle")]
    eps = episodes(slow, t.step)
    if not eps:
        return
    worst = max(eps, key=lambda e: (e.end - e.start, e.peak))
    reasons = sorted({r for _, v in slow if v for r in reasons_from_mask(int(v))})
    text = ", ".join(REASON_TEXT.get(r, r) for r in reasons)
    clocks = during(t.points("sm_clock"), worst.start, worst.end)
    then = f"; SM clock {min(clocks):g} MHz then, {max(v for _, v in t.points('sm_clock')):g} at most" if clocks else ""
    yield Finding(Cause.GPU_DEGRADED, Severity.WARNING, f"The GPU's clocks were held down in the window ({text})",
                  [Evidence(t.source, f"dcgm-exporter's clocks event (throttle) reasons & 0x{th.PROM_GPU_SLOW_REASONS:x} != 0 "
                                      f"{when(t, worst).split(' (')[0]}{then}")],
                  GPU_FIX,
                  confidence=Confidence.MEDIUM)
