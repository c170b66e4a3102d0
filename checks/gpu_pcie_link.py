"""GPU_DEGRADED: the card's PCIe link runs below the generation or width the card and slot allow
while it works (a card in a x4 slot or riser, a link that retrained down after errors). An idle
card lowers its link to save power: the link is judged only while the card works."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact


@check(id="gpu-pcie-degraded", cause=Cause.GPU_DEGRADED,
       purpose="the GPU's PCIe link is below the generation or width its card and slot allow, under load",
       needs=("gpu_health",))
def gpu_pcie_degraded(gpu_health: GpuHealthFact | None = None):
    from llmdoctor.judge.gpu import busy, link_degraded, link_line

    if gpu_health is None:
        return
    amd = "amdgpu" in gpu_health.source or gpu_health.source.startswith("files/sys/")
    for g in gpu_health.gpus:
        low = link_degraded(g)
        if not low or not busy(g):
            continue  # an idle card lowers its link to save power (NVIDIA: Gen1; amdgpu DPM: width too)
        what = " and ".join(low)
        card = f"/sys/class/drm/card{g.name.rsplit('card', 1)[-1].rstrip(')')}" if "card" in g.name else "/sys/class/drm/cardN"
        commands = ((f"cat {card}/device/pp_dpm_pcie {card}/device/gpu_busy_percent",
                     f"sudo lspci -vv -s $(basename $(readlink -f {card}/device)) | grep -E 'LnkCap|LnkSta'")
                    if amd else
                    (f"nvidia-smi -i {g.index} --query-gpu=pcie.link.gen.current,pcie.link.gen.max,"
                     "pcie.link.width.current,pcie.link.width.max,utilization.gpu --format=csv -l 1",
                     f"sudo lspci -vv -s {g.bus_id[-12:] if g.bus_id else 'BUS:ID'} | grep -E 'LnkCap|LnkSta'"))
        yield Finding(
            Cause.GPU_DEGRADED, Severity.WARNING,
            f"{g.label}'s PCIe link {what} is below the maximum while it works",
            [Evidence(gpu_health.source, link_line(g))],
            Fix("Model loads, KV offload, CPU spill and multi-GPU traffic cross this link: at a lower width or "
                "generation they take proportionally longer. Check that the card sits in a full x16 slot (not a "
                "x4/x8 slot or riser), reseat it, check the slot's setting in the BIOS; a link that trained down "
                "after errors shows replays in `nvidia-smi -q -d PCIE`; on amdgpu, a power profile that keeps the "
                "link low under load shows in `pp_dpm_pcie`.",
                commands),
        )
