"""CPU_CONTENTION: other work (or the hypervisor) holds the cores the engine needs."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import CPU_BUSY_SHARE, CPU_ENGINE_ACTIVE_CORES, CPU_OTHERS_SHARE, CPU_STEAL_SHARE
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.cpu import CpuSample
    from llmdoctor.knowledge.nvidia import GpuFact


@check(id="cpu-contention", cause=Cause.CPU_CONTENTION,
       purpose="Other processes or the hypervisor hold the cores the engine computes (or schedules) on",
       needs=("cpu_load",))
def cpu_contention(cpu_load: CpuSample | None = None, gpu: GpuFact | None = None):
    s = cpu_load
    if s is None or s.engine is None or s.engine * s.cores < CPU_ENGINE_ACTIVE_CORES:
        return
    crowded = s.busy >= CPU_BUSY_SHARE and (s.others or 0.0) >= CPU_OTHERS_SHARE
    stolen = s.steal >= CPU_STEAL_SHARE
    if not (crowded or stolen):
        return
    on_gpu = None if gpu is None else bool(gpu.gpus)
    cores = s.cores
    figures = (f"over {s.seconds:.1f} s on {cores} cores: {s.busy:.0%} busy, the engine's processes "
               f"{s.engine * cores:.1f} cores, other work {(s.others or 0) * cores:.1f} cores, steal {s.steal:.0%}"
               + (f"; load average {s.load1:g}" if s.load1 is not None else ""))
    what = {True: "its CPU-side threads (scheduling, tokenising, sampling) wait for a core between GPU steps",
            False: "it computes on the CPU and every token waits for a core",
            None: "the engine's threads wait for a core (every token on a CPU, every step's scheduling on a GPU)"}[on_gpu]
    who = (f"Other work holds {(s.others or 0) * cores:.1f} of {cores} cores" if crowded
           else f"The hypervisor takes {s.steal:.0%} of this VM's CPU time")
    yield Finding(
        Cause.CPU_CONTENTION, Severity.WARNING, f"{who}: {what}",
        [Evidence("/proc/stat", figures)],
        Fix("Give the engine its cores before tuning prompts or slots: stop or move the other work, or lower its "
            "priority (nice, a systemd CPUWeight= below the engine's), or reserve cores for the engine "
            "(CPUAffinity= in its unit, taskset, a container's cpuset). In a VM with steal, the host is "
            "oversubscribed: ask for dedicated vCPUs or a larger instance.",
            ("top -o %CPU  # what else runs", "systemctl set-property UNIT CPUWeight=1000  # the engine's unit")),
    )
