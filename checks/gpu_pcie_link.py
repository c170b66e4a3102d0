"""GPU_DEGRADED: the card's PCIe link runs below the generation or width the card and slot allow
while it works (a card in a x4 slot or riser, a link that retrained down after errors). An idle
card lowers its link generation to save power: that alone is no finding."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
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
    for g in gpu_health.gpus:
        low = link_degraded(g)
        working = busy(g)
        if not low or (not working and "width" not in low):
            continue  # an idle card at Gen1 saves power; it trains up again with work
        what = " and ".join(low)
        yield Finding(
            Cause.GPU_DEGRADED, Severity.WARNING if working else Severity.INFO,
            f"{g.label}'s PCIe link {what} is below the maximum"
            + (" while it works" if working else " (the card was idle: re-check under load)"),
            [Evidence(gpu_health.source, link_line(g))],
            Fix("Model loads, KV offload, CPU spill and multi-GPU traffic cross this link: at a lower width or "
                "generation they take proportionally longer. Check that the card sits in a full x16 slot (not a "
                "x4/x8 slot or riser), reseat it, check the slot's setting in the BIOS; a link that trained down "
                "after errors shows replays in `nvidia-smi -q -d PCIE`.",
                (f"nvidia-smi -i {g.index} --query-gpu=pcie.link.gen.current,pcie.link.gen.max,"
                 "pcie.link.width.current,pcie.link.width.max,utilization.gpu --format=csv -l 1",
                 f"sudo lspci -vv -s {g.bus_id[-12:] if g.bus_id else 'BUS:ID'} | grep -E 'LnkCap|LnkSta'")),
            confidence=Confidence.HIGH if working else Confidence.LOW,
        )
