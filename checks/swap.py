"""SWAP: the host pages memory to and from swap while it serves.

No engine setting fixes this: the model, its KV cache and everything else on the
machine do not fit in RAM. The lever is less memory (a smaller model or
quantisation, fewer parallel slots or a shorter context) or more RAM.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import SWAP_CGROUP_AVAILABLE_SHARE

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.memory import MemoryFact

MAX_EVIDENCE_ROWS = 5

FIX = Fix(
    summary=(
        "Make the model and its context fit in RAM: a smaller model or a smaller quantisation, "
        "fewer parallel slots or a shorter context (each slot holds its own KV cache), "
        "or more RAM. Swap settings such as vm.swappiness only move the problem."
    ),
    commands=(
        "free -h",
        "vmstat 1 5",
        "ps -eo pid,rss,args --sort=-rss | head -n 5",
    ),
)


@check(id="swap-activity", cause=Cause.SWAP, purpose="Swap-in/out while serving: model plus context do not fit in RAM")
def swap_activity(memory: MemoryFact):
    from llmdoctor.judge.swap import assess_swap
    from llmdoctor.knowledge.units import human_bytes

    assessment = assess_swap(memory.intervals)
    if not assessment.any_active:
        return
    sustained = assessment.sustained and assessment.reads_back
    evidence = [Evidence(memory.intervals_source, i.text) for i in assessment.active[:MAX_EVIDENCE_ROWS]]
    if memory.vmstat is not None and memory.vmstat.header:
        evidence.insert(0, Evidence(memory.intervals_source, memory.vmstat.header.strip()))
    m = memory.meminfo
    if m is not None and m.swap_total:
        evidence.append(Evidence(
            memory.meminfo_source,
            f"MemTotal {human_bytes(m.mem_total)}, MemAvailable {human_bytes(m.mem_available)}, "
            f"SwapTotal {human_bytes(m.swap_total)}, swap used {human_bytes(m.swap_used)}",
        ))
    fix = FIX
    if m is not None and m.mem_available is not None and m.mem_available > m.mem_total * SWAP_CGROUP_AVAILABLE_SHARE:
        # The kernel swaps this workload although half the RAM is free: a cgroup limit squeezes it.
        fix = Fix(
            summary=FIX.summary + " Here more than half of the RAM is free while pages move to swap, so a "
            "memory limit on the service's cgroup is the likely squeeze (systemd MemoryMax=/MemoryHigh=, "
            "a container memory limit): raise it or give the service a model that fits inside it.",
            commands=FIX.commands + ("systemctl show UNIT -p MemoryMax,MemoryHigh,MemoryCurrent,MemorySwapMax",),
        )
    active, total = len(assessment.active), len(assessment.intervals)
    title = (
        f"The host is swapping: {active} of {total} sampled intervals move pages to or from swap "
        f"(peak {human_bytes(assessment.peak_in_bps)}/s in, {human_bytes(assessment.peak_out_bps)}/s out)"
    )
    yield Finding(
        cause=Cause.SWAP,
        severity=Severity.CRITICAL if sustained else Severity.WARNING,
        title=title,
        evidence=tuple(evidence),
        fix=fix,
        confidence=Confidence.HIGH if sustained else Confidence.MEDIUM,
    )
