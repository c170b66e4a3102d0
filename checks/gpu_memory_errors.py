"""GPU_DEGRADED: the GPU's memory reports uncorrectable ECC errors, a row remap or page
retirement waiting for a reset, or a failed remap (no spare rows left)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact


@check(id="gpu-memory-errors", cause=Cause.GPU_DEGRADED,
       purpose="the GPU's memory has uncorrectable ECC errors, or a row remap/page retirement pending or failed",
       needs=("gpu_health",))
def gpu_memory_errors(gpu_health: GpuHealthFact | None = None):
    if gpu_health is None:
        return
    for g in gpu_health.gpus:
        found = []
        if g.ecc_uncorrected:
            found.append(f"{g.ecc_uncorrected} uncorrectable ECC error(s) since the driver loaded")
        if g.remap_pending:
            found.append("a row remap is pending (it takes effect at the next GPU reset)")
        if g.retire_pending:
            found.append("a page retirement is pending (it takes effect at the next GPU reset)")
        if g.remap_failure:
            found.append("a row remap failed (no spare row left)")
        if not found:
            continue
        yield Finding(
            Cause.GPU_DEGRADED, Severity.CRITICAL,
            f"{g.label}'s memory reports errors: {'; '.join(found)}",
            [Evidence(gpu_health.source, f"{g.label}: {line}") for line in found],
            Fix("Uncorrectable memory errors kill or corrupt the work on this GPU. Drain it and reset it "
                "(`nvidia-smi -r` with no process on it, or reboot) so pending remaps take effect; a failed "
                "remap or errors that come back mean the card needs service (RMA).",
                (f"nvidia-smi -i {g.index} -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER",
                 f"sudo nvidia-smi -i {g.index} -r  # only with no process on the GPU")),
        )
