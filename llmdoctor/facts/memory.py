"""Fact "memory": RAM and swap totals, and swap traffic now.

Live hosts (local or SSH): /proc/meminfo once, /proc/vmstat read several times
across ctx.sample_seconds (one interval per second, at least two) through
host.read, so it needs nothing but /proc on the far side. A recording cannot be
sampled again: it answers /proc/meminfo from meminfo.txt and `vmstat` from vmstat.txt
(`vmstat 1 N`, whose first row is the since-boot average and is left out of the activity).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from llmdoctor.hosts.base import HostError, Unanswerable
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # llmdoctor.knowledge.memory is imported where used, once there is memory to read (start-up time)
    from llmdoctor.knowledge.memory import MemInfo, SwapInterval, VmstatTable
    from llmdoctor.facts.memory_fact import MemoryFact

MAX_INTERVALS = 10


def __getattr__(name: str) -> Any:
    """MemoryFact, from memory_fact.py on first use: most evidence holds no memory to report."""
    if name == "MemoryFact":
        from llmdoctor.facts.memory_fact import MemoryFact

        return MemoryFact
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _page_size(ctx: Context) -> int:
    from llmdoctor.knowledge.memory import DEFAULT_PAGE_SIZE

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
    from llmdoctor.knowledge.memory import interval_from_counters, parse_proc_vmstat

    count = min(max(int(round(ctx.sample_seconds)), 2), MAX_INTERVALS)
    step = ctx.sample_seconds / count
    page = _page_size(ctx)

    def read() -> dict[str, int]:
        return parse_proc_vmstat(ctx.host.read("/proc/vmstat", 64 * 1024).decode("ascii", "replace"))

    from llmdoctor.steps import waiting

    before, t0 = read(), time.monotonic()
    waiting(ctx.host, "sampling swap activity (/proc/vmstat)", ctx.sample_seconds)
    intervals = []
    for _ in range(count):
        time.sleep(max(step - (time.monotonic() - t0), 0.0))
        after, t1 = read(), time.monotonic()
        intervals.append(interval_from_counters(before, after, t1 - t0, page))
        before, t0 = after, t1
    return tuple(intervals)


def _meminfo(host, notes: list[str]) -> tuple[MemInfo | None, str]:
    """/proc/meminfo (a recording answers it from meminfo.txt) and where it came from."""
    try:
        data = host.read("/proc/meminfo", 64 * 1024)
    except (FileNotFoundError, Unanswerable):
        if not host.partial:
            notes.append("/proc/meminfo: not found")
        return None, ""
    except (OSError, HostError) as e:
        notes.append(f"/proc/meminfo: {e}")
        return None, ""
    source = host.where("/proc/meminfo") or "/proc/meminfo"
    from llmdoctor.knowledge.memory import parse_meminfo  # (only once there is something to parse: start-up time)

    try:
        return parse_meminfo(data.decode("utf-8", "replace")), source
    except ParseError as e:
        notes.append(f"unparseable {source}: {e}" if source != "/proc/meminfo" else f"/proc/meminfo: {e}")
        return None, ""


def _recorded_vmstat(host, notes: list[str]) -> tuple[VmstatTable | None, str]:
    """The `vmstat 1 N` a recording holds: its rows are the activity when it was recorded."""
    try:
        res = host.run(["vmstat", "1", "5"], timeout=10)
    except HostError:
        return None, ""
    from llmdoctor.knowledge.memory import parse_vmstat
    try:
        table = parse_vmstat(res.stdout)
    except ParseError as e:
        notes.append(f"unparseable {res.origin}: {e}")
        return None, ""
    if not table.live_rows:
        notes.append(f"{res.origin} has only the since-boot row: record `vmstat 1 5` to see activity now")
    return table, res.origin


@provider("memory")
def memory(ctx: Context) -> MemoryFact:
    host = ctx.host
    notes: list[str] = []
    meminfo, meminfo_source = _meminfo(host, notes)
    # a recording cannot be sampled twice: its own vmstat rows say what was moving
    return host.observe(lambda: _sampled(ctx, meminfo, meminfo_source, notes),
                        lambda: _recalled(host, meminfo, meminfo_source, notes))


def _recalled(host, meminfo, meminfo_source: str, notes: list[str]) -> MemoryFact:
    table, table_source = _recorded_vmstat(host, notes)
    if meminfo is None and table is None:
        if not notes:
            raise FactUnavailable("no /proc/meminfo or vmstat output in the evidence", quiet=True)
        raise FactUnavailable("; ".join(notes))
    intervals = table.intervals() if table is not None else ()
    from llmdoctor.facts.memory_fact import MemoryFact

    return MemoryFact(meminfo, meminfo_source, intervals, table_source if intervals else "", table, tuple(notes))


def _sampled(ctx: Context, meminfo, meminfo_source: str, notes: list[str]) -> MemoryFact:
    intervals: tuple[SwapInterval, ...] = ()
    try:
        intervals = sample_proc_vmstat(ctx)
    except (OSError, HostError, ParseError) as e:
        notes.append(f"/proc/vmstat: {e}")
    if meminfo is None and not intervals and ctx.sample_seconds > 0:
        raise FactUnavailable("cannot read /proc/meminfo or /proc/vmstat (" + "; ".join(notes) + ")")
    if meminfo is None and ctx.sample_seconds <= 0:
        raise FactUnavailable("cannot read /proc/meminfo (" + "; ".join(notes) + ")")
    from llmdoctor.facts.memory_fact import MemoryFact

    return MemoryFact(meminfo, meminfo_source, intervals, "/proc/vmstat" if intervals else "", None, tuple(notes))
