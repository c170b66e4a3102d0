"""GPU_DEGRADED (info): persistence mode is off on Linux, so the driver tears the GPU's state
down whenever no process holds it, and the next CUDA process pays the initialisation again."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact


@check(id="gpu-persistence-off", cause=Cause.GPU_DEGRADED,
       purpose="persistence mode is off: every process start that finds the GPU unused pays the driver's initialisation",
       needs=("gpu_health",))
def gpu_persistence_off(gpu_health: GpuHealthFact | None = None):
    if gpu_health is None:
        return
    off = [g for g in gpu_health.gpus if g.persistence is False and g.driver_model is None]  # Linux only
    if not off:
        return
    yield Finding(
        Cause.GPU_DEGRADED, Severity.INFO,
        f"Persistence mode is off on {', '.join(f'GPU {g.index}' for g in off)}: the first CUDA call of each "
        "engine start re-initialises the driver",
        [Evidence(gpu_health.source, f"{g.label}: Persistence Mode Disabled") for g in off],
        Fix("Without persistence the driver unloads the GPU's state whenever no process holds it open; the next "
            "engine (re)start, model runner or `nvidia-smi` pays seconds of initialisation (more with many GPUs). "
            "Run NVIDIA's persistence daemon so the state stays loaded.",
            ("sudo systemctl enable --now nvidia-persistenced", "nvidia-smi -q | grep 'Persistence Mode'")),
        confidence=Confidence.MEDIUM,
    )
