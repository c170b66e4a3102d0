"""GPU_DEGRADED: the card holds its clocks down while work runs - HW slowdown, HW thermal
slowdown or HW power brake (the card or the board protecting itself: heat, power delivery, a
server BMC asserting the brake), or SW power cap / SW thermal with the SM clock well below max."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact

ADVICE = {
    "hw_thermal": "the GPU is too hot: check airflow, fans, the inlet temperature and the heatsink",
    "sw_thermal": "the GPU is above its target temperature: check airflow, fans and the inlet temperature",
    "hw_power_brake": "the board or server asserted the power brake: a PSU fault or missing redundancy, a power "
                      "cable, or a BMC (iDRAC/iLO) power table that does not know this card",
    "hw_slowdown": "the card protects itself (temperature or power delivery): check cooling, the PSUs and the "
                   "8-pin/12VHPWR cables",
    "sw_power_cap": "the card is at its power limit: compare it with the default (`nvidia-smi -q -d POWER`); a "
                    "lowered limit is raised with `sudo nvidia-smi -i N -pl WATTS` (and whatever set it: a boot "
                    "script, a BMC or datacenter power policy)",
}


@check(id="gpu-throttled", cause=Cause.GPU_DEGRADED,
       purpose="the GPU's clocks are held down while it works: HW slowdown/thermal/power brake, or a power/thermal cap",
       needs=("gpu_health",))
def gpu_throttled(gpu_health: GpuHealthFact | None = None):
    from llmdoctor.judge.gpu import busy, clocks_line, throttled_by
    from llmdoctor.knowledge.nvidia_query import REASON_TEXT

    if gpu_health is None:
        return
    for g in gpu_health.gpus:
        reasons = throttled_by(g)
        if not reasons:
            continue
        working = busy(g)
        what = ", ".join(REASON_TEXT[r] for r in reasons)
        clock = f" ({g.sm_mhz} of {g.sm_max_mhz} MHz)" if g.sm_mhz is not None and g.sm_max_mhz else ""
        when = "while it works" if working else "even idle" if working is False else ""
        yield Finding(
            Cause.GPU_DEGRADED, Severity.WARNING,
            f"{g.label} is throttled{' ' + when if when else ''}: {what}{clock}",
            [Evidence(gpu_health.source, clocks_line(g))],
            Fix("A throttled card computes every token slower whatever the engine's settings: "
                + "; ".join(ADVICE[r] for r in reasons if r in ADVICE)
                + ". Watch it under load to see when the reason appears.",
                (f"nvidia-smi -i {g.index} -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE",
                 f"nvidia-smi -i {g.index} --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,"
                 "clocks_event_reasons.active --format=csv -l 1")),
            confidence=Confidence.HIGH if working else Confidence.MEDIUM,
        )
