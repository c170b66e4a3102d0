"""GPU_DEGRADED judgements over knowledge.nvidia_query.GpuHealth readings: is the card working,
what holds its clocks, is its PCIe link below what the card and slot allow, and the figures
that prove it (one evidence line per GPU, in the words nvidia-smi uses)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import (GPU_BUSY_UTIL_PCT, GPU_HELD_CLOCK_FRACTION, GPU_IDLE_PSTATE,
                                        GPU_POWER_LIMIT_LOWERED_FRACTION)

if TYPE_CHECKING:
    from llmdoctor.knowledge.nvidia_query import GpuHealth

HW_REASONS = ("hw_slowdown", "hw_thermal", "hw_power_brake")  # the card protecting itself
SW_REASONS = ("sw_power_cap", "sw_thermal")  # the driver keeping it at its limits


def busy(g: GpuHealth) -> bool | None:
    """True when work runs on the card, False when it idles, None when nothing says. A kernel
    running most of the time says busy; the Idle reason, or a deep performance state (P5-P12: the
    card lowered clocks and link because little runs), says idle; a card not Idle in P0-P2 works
    (a memory-bound load can show little utilization)."""
    if g.util_pct is not None and g.util_pct >= GPU_BUSY_UTIL_PCT:
        return True
    if g.reasons is not None and "idle" in g.reasons:
        return False
    if g.pstate and g.pstate[1:].isdecimal() and int(g.pstate[1:]) >= GPU_IDLE_PSTATE:
        return False
    if g.reasons is not None:
        return True
    return None if g.util_pct is None else False


def held(g: GpuHealth) -> bool:
    """The SM clock well below its maximum (both known)."""
    return bool(g.sm_mhz is not None and g.sm_max_mhz and g.sm_mhz < GPU_HELD_CLOCK_FRACTION * g.sm_max_mhz)


def limit_lowered(g: GpuHealth) -> bool:
    """The enforced power limit well below the board's default (both known)."""
    return bool(g.power_limit_w and g.power_default_w
                and g.power_limit_w < GPU_POWER_LIMIT_LOWERED_FRACTION * g.power_default_w)


def throttled_by(g: GpuHealth) -> tuple[str, ...]:
    """The clocks event reasons that slow this card's work now: any HW reason; a SW one only
    while it works with its SM clock held well below the maximum, or (power cap) under a power
    limit lowered below the default."""
    active = g.reasons or ()
    hw = tuple(r for r in HW_REASONS if r in active)
    working = busy(g)
    sw = tuple(r for r in SW_REASONS if r in active
               and working and (held(g) or (r == "sw_power_cap" and limit_lowered(g))))
    return hw + sw


def link_degraded(g: GpuHealth) -> tuple[str, ...]:
    """What of the PCIe link is below the card's maximum: 'generation', 'width'."""
    out = []
    if g.pcie_gen and g.pcie_gen_max and g.pcie_gen < g.pcie_gen_max:
        out.append("generation")
    if g.pcie_width and g.pcie_width_max and g.pcie_width < g.pcie_width_max:
        out.append("width")
    return tuple(out)


def clocks_line(g: GpuHealth) -> str:
    from llmdoctor.knowledge.nvidia_query import REASON_TEXT

    parts = []
    if g.sm_mhz is not None:
        parts.append(f"SM clock {g.sm_mhz} MHz" + (f" of max {g.sm_max_mhz} MHz" if g.sm_max_mhz else ""))
    if g.reasons is not None:
        shown = [REASON_TEXT[r] for r in g.reasons]
        parts.append("clocks event reasons: " + (", ".join(shown) if shown else "none active"))
    if g.util_pct is not None:
        parts.append(f"utilization {g.util_pct}%")
    if g.power_w is not None:
        parts.append(f"power {g.power_w:.0f} W" + (f" of limit {g.power_limit_w:.0f} W" if g.power_limit_w else "")
                     + (f" (default {g.power_default_w:.0f} W)" if limit_lowered(g) else ""))
    if g.temp_c is not None:
        parts.append(f"{g.temp_c} C" + (f" (slowdown at {g.slowdown_temp_c} C)" if g.slowdown_temp_c else ""))
    return f"{g.label}: " + "; ".join(parts)


def link_line(g: GpuHealth) -> str:
    return (f"{g.label}: PCIe Gen{g.pcie_gen or '?'} x{g.pcie_width or '?'}, the card and slot allow "
            f"Gen{g.pcie_gen_max or '?'} x{g.pcie_width_max or '?'}"
            + (f"; utilization {g.util_pct}%" if g.util_pct is not None else ""))
