"""The "memory" fact's value, as facts/memory.py reads it. A module of its own, imported once
there is memory to report: a frozen dataclass costs ~1 ms of start-up to define, and most
evidence directories hold no meminfo.txt or vmstat.txt."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llmdoctor.knowledge.memory import MemInfo, SwapInterval, VmstatTable


@dataclass(frozen=True)
class MemoryFact:
    """RAM/swap in bytes and swap traffic as per-interval rates (bytes per second)."""

    meminfo: MemInfo | None = None
    meminfo_source: str = ""
    intervals: tuple[SwapInterval, ...] = ()
    intervals_source: str = ""  # "/proc/vmstat" or "vmstat.txt"
    vmstat: VmstatTable | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def swap_in_bps(self) -> float | None:
        return _mean([i.swap_in_bps for i in self.intervals])

    @property
    def swap_out_bps(self) -> float | None:
        return _mean([i.swap_out_bps for i in self.intervals])


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
