"""Fact "memory": RAM and swap totals, and swap traffic now.

Live hosts (local or SSH): /proc/meminfo once, /proc/vmstat read several times
across ctx.sample_seconds (one interval per second, at least two) through
host.read, so it needs nothing but /proc on the far side. Evidence directories:
meminfo.txt and vmstat.txt (`vmstat 1 N`, whose first row is the since-boot
average and is left out of the activity).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llmdoctor.hosts.base import HostError
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # llmdoctor.memory is imported where used, once there is memory to read (start-up time)
    from llmdoctor.memory import MemInfo, SwapInterval, VmstatTable

MAX_INTERVALS = 10


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

    def summary(self) -> list[tuple[str, str]]:
        from llmdoctor.memory import assess_swap, human_bytes

        lines: list[tuple[str, str]] = []
        m = self.meminfo
        if m is not None:
            lines.append(("RAM", f"{human_bytes(m.mem_total)} total, {human_bytes(m.mem_available)} available"))
            if m.swap_total:
                lines.append(("Swap", f"{human_bytes(m.swap_total)} total, {human_bytes(m.swap_used)} used"))
            elif m.swap_total == 0:
                lines.append(("Swap", "none configured"))
        if self.vmstat is not None and not self.vmstat.live_rows:
            lines.append(("Swap activity", "unknown: vmstat.txt holds only the since-boot average (record `vmstat 1 5`)"))
        if self.intervals:
            a = assess_swap(self.intervals)
            if all(i.seconds for i in self.intervals):
                window = f"mean over {sum(i.seconds or 0 for i in self.intervals):.1f} s"
            else:
                window = f"mean of {len(self.intervals)} rows"
            lines.append((
                "Swap activity",
                f"in {human_bytes(self.swap_in_bps)}/s, out {human_bytes(self.swap_out_bps)}/s "
                f"({window} of {self.intervals_source}; {len(a.active)} of {len(a.intervals)} active)",
            ))
        return lines


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _page_size(ctx: Context) -> int:
    from llmdoctor.memory import DEFAULT_PAGE_SIZE

    try:
        res = ctx.host.run(["getconf", "PAGESIZE"], timeout=5)
        if res.ok and res.stdout.strip().isdecimal():
            return int(res.stdout.strip())
    except HostError:
        pass
    return DEFAULT_PAGE_SIZE


def sample_proc_vmstat(ctx: Context) -> tuple[SwapInterval, ...]:
    """Read /proc/vmstat every second for ctx.sample_seconds (at least two intervals)."""
    if ctx.sample_seconds <= 0:
        return ()
    from llmdoctor.memory import interval_from_counters, parse_proc_vmstat

    count = min(max(int(round(ctx.sample_seconds)), 2), MAX_INTERVALS)
    step = ctx.sample_seconds / count
    page = _page_size(ctx)

    def read() -> dict[str, int]:
        return parse_proc_vmstat(ctx.host.read("/proc/vmstat", 64 * 1024).decode("ascii", "replace"))

    before, t0 = read(), time.monotonic()
    intervals = []
    for _ in range(count):
        time.sleep(max(step - (time.monotonic() - t0), 0.0))
        after, t1 = read(), time.monotonic()
        intervals.append(interval_from_counters(before, after, t1 - t0, page))
        before, t0 = after, t1
    return tuple(intervals)


def _live(ctx: Context) -> MemoryFact:
    from llmdoctor.memory import parse_meminfo

    notes: list[str] = []
    meminfo = None
    try:
        meminfo = parse_meminfo(ctx.host.read("/proc/meminfo", 64 * 1024).decode("ascii", "replace"))
    except (OSError, HostError, ParseError) as e:
        notes.append(f"/proc/meminfo: {e}")
    intervals: tuple[SwapInterval, ...] = ()
    try:
        intervals = sample_proc_vmstat(ctx)
    except (OSError, HostError, ParseError) as e:
        notes.append(f"/proc/vmstat: {e}")
    if meminfo is None and not intervals and ctx.sample_seconds > 0:
        raise FactUnavailable("cannot read /proc/meminfo or /proc/vmstat (" + "; ".join(notes) + ")")
    if meminfo is None and ctx.sample_seconds <= 0:
        raise FactUnavailable("cannot read /proc/meminfo (" + "; ".join(notes) + ")")
    return MemoryFact(meminfo, "/proc/meminfo" if meminfo else "", intervals, "/proc/vmstat" if intervals else "", None, tuple(notes))


def _evidence(ctx: Context) -> MemoryFact:
    host = ctx.host
    has_meminfo, has_vmstat = host.has("meminfo.txt"), host.has("vmstat.txt")
    if not has_meminfo and not has_vmstat:
        raise FactUnavailable("no meminfo.txt or vmstat.txt in the evidence", quiet=True)
    from llmdoctor.memory import parse_meminfo, parse_vmstat

    problems: list[str] = []
    meminfo = table = None
    if has_meminfo:
        try:
            meminfo = parse_meminfo(host.read("meminfo.txt").decode("utf-8", "replace"))
        except ParseError as e:
            problems.append(f"unparseable meminfo.txt: {e}")
    if has_vmstat:
        try:
            table = parse_vmstat(host.read("vmstat.txt").decode("utf-8", "replace"))
        except ParseError as e:
            problems.append(f"unparseable vmstat.txt: {e}")
    if meminfo is None and table is None:
        raise FactUnavailable("; ".join(problems))
    if table is not None and not table.live_rows:
        problems.append("vmstat.txt has only the since-boot row: record `vmstat 1 5` to see activity now")
    intervals = table.intervals() if table is not None else ()
    return MemoryFact(
        meminfo, "meminfo.txt" if meminfo else "", intervals, "vmstat.txt" if intervals else "", table, tuple(problems)
    )


@provider("memory")
def memory(ctx: Context) -> MemoryFact:
    if ctx.host.kind == "evidence":
        return _evidence(ctx)
    return _live(ctx)
