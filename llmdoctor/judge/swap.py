"""Is the host swapping: which sampled intervals count as swap activity, and is it sustained.

Below ACTIVE_BYTES_PER_S (swap-in + swap-out) an interval is background noise (a few
pages of an idle daemon); at or above it the interval counts as swap activity. Activity in
at least SUSTAINED_INTERVALS intervals that make up at least half of the window is
"sustained".
"""
from __future__ import annotations

from dataclasses import dataclass

from llmdoctor.judge.thresholds import (SWAP_ACTIVE_BYTES_PER_S as ACTIVE_BYTES_PER_S, SWAP_READ_BACK_BYTES_PER_S,
                                        SWAP_SUSTAINED_INTERVALS as SUSTAINED_INTERVALS, SWAP_SUSTAINED_SHARE)
from llmdoctor.knowledge.memory import SwapInterval


def is_active(interval: SwapInterval) -> bool:
    return interval.swap_in_bps + interval.swap_out_bps >= ACTIVE_BYTES_PER_S


@dataclass(frozen=True)
class SwapAssessment:
    intervals: tuple[SwapInterval, ...]
    active: tuple[SwapInterval, ...]

    @property
    def any_active(self) -> bool:
        return bool(self.active)

    @property
    def sustained(self) -> bool:
        """Activity in at least two intervals that make up at least half of the window."""
        return len(self.active) >= SUSTAINED_INTERVALS and len(self.active) >= SWAP_SUSTAINED_SHARE * len(self.intervals)

    @property
    def reads_back(self) -> bool:
        """Pages come back in from swap: the working set itself does not fit (thrashing)."""
        return any(i.swap_in_bps >= SWAP_READ_BACK_BYTES_PER_S for i in self.active)

    @property
    def peak_in_bps(self) -> float:
        return max((i.swap_in_bps for i in self.intervals), default=0.0)

    @property
    def peak_out_bps(self) -> float:
        return max((i.swap_out_bps for i in self.intervals), default=0.0)


def assess_swap(intervals: tuple[SwapInterval, ...] | list[SwapInterval]) -> SwapAssessment:
    intervals = tuple(intervals)
    return SwapAssessment(intervals, tuple(i for i in intervals if is_active(i)))
