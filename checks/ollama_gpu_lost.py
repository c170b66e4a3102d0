"""The GPU vanished from Ollama (CUDA init error 999, or a later start found only the CPU) - typical after suspend."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-gpu-lost", cause=Cause.CPU_SPILL,
       purpose="The GPU vanished from Ollama (CUDA init error 999, or a later start found only the CPU) - typical after suspend",
       engines=("ollama",))
def gpu_lost(ollama_log: OllamaLogSummary):
    from llmdoctor.judge.ollama import evs

    evidence = evs(ollama_log.gpu_init_failures.examples[:3])
    starts = ollama_log.startups
    if len(starts) > 1 and starts[-1].libraries and not starts[-1].has_gpu and any(s.has_gpu for s in starts[:-1]):
        before = next(s for s in starts if s.has_gpu)
        evidence += evs(before.examples[:1]) + evs(starts[-1].examples[:1])
    if not evidence:
        return
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL,
        "Ollama lost the GPU and runs on the CPU (CUDA failed to initialise, as happens after suspend/resume)",
        evidence,
        Fix("Reload the NVIDIA UVM driver and restart Ollama; to keep it from recurring, let the driver preserve "
            "video memory across suspend (NVreg_PreserveVideoMemoryAllocations=1 with nvidia-suspend/-resume "
            "services enabled).",
            ("systemctl stop ollama", "rmmod nvidia_uvm && modprobe nvidia_uvm", "systemctl start ollama",
             "echo 'options nvidia NVreg_PreserveVideoMemoryAllocations=1' > /etc/modprobe.d/nvidia-power.conf",
             "systemctl enable nvidia-suspend.service nvidia-resume.service")),
    )
