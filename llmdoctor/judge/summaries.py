"""Report summary lines for the facts whose summary is a judgement, not a reading.

A fact value summarises itself (`value.summary()`) when its lines are plain figures. The
probe's summary names a verdict per question (queueing, sharing, prefill, unload), and the
memory summary counts the intervals that were swap activity: that is judging, so those are
written here, where the thresholds are, and the report asks here first.
"""
from __future__ import annotations

from typing import Any, Callable


def _probe(runs: Any) -> list[tuple[str, str]]:
    from llmdoctor.judge.probe.verdicts import summary_lines

    return [line for r in runs.results for line in summary_lines(r)]


def _memory(fact: Any) -> list[tuple[str, str]]:
    from llmdoctor.judge.swap import assess_swap
    from llmdoctor.knowledge.units import human_bytes

    lines: list[tuple[str, str]] = []
    m = fact.meminfo
    if m is not None:
        lines.append(("RAM", f"{human_bytes(m.mem_total)} total, {human_bytes(m.mem_available)} available"))
        if m.swap_total:
            lines.append(("Swap", f"{human_bytes(m.swap_total)} total, {human_bytes(m.swap_used)} used"))
        elif m.swap_total == 0:
            lines.append(("Swap", "none configured"))
    if fact.vmstat is not None and not fact.vmstat.live_rows:
        lines.append(("Swap activity", "unknown: vmstat.txt holds only the since-boot average (record `vmstat 1 5`)"))
    if fact.intervals:
        a = assess_swap(fact.intervals)
        if all(i.seconds for i in fact.intervals):
            window = f"mean over {sum(i.seconds or 0 for i in fact.intervals):.1f} s"
        else:
            window = f"mean of {len(fact.intervals)} rows"
        lines.append((
            "Swap activity",
            f"in {human_bytes(fact.swap_in_bps)}/s, out {human_bytes(fact.swap_out_bps)}/s "
            f"({window} of {fact.intervals_source}; {len(a.active)} of {len(a.intervals)} active)",
        ))
    return lines


SUMMARIES: dict[str, Callable[[Any], list[tuple[str, str]]]] = {"probe": _probe, "memory": _memory}


def summary_of(name: str, value: Any) -> list[tuple[str, str]]:
    """The (label, value) lines a fact contributes to the report's summary."""
    judged = SUMMARIES.get(name)
    if judged is not None:
        return judged(value)
    summarize = getattr(value, "summary", None)
    return list(summarize()) if callable(summarize) else []
