"""The probe drawn in text: one row per request on a shared time axis.

Whether two streams overlapped or one queued behind the other is the whole point of
the probe; a row per request shows it at a glance:

    pair-1          ▒|██████████              ttft 0.05s
    pair-2          ·······▒|█████████        ttft 0.55s

Waiting `·`, model loading `L`, prefill `▒` (or `░` when the server gave no counts to
split waiting from prefill), decoding `█`, the first token `|`, a request that failed
`x`. Every line fits in `width` columns.
"""
from __future__ import annotations

import math

from llmdoctor.knowledge.probe.phases import (BEFORE_FIRST, DECODING, FAILED, LOADING, PREFILL, WAITING,
                                              RequestPhases, probe_phases)
from llmdoctor.knowledge.probe.result import ProbeResult

CHARS = {WAITING: "·", LOADING: "L", PREFILL: "▒", BEFORE_FIRST: "░", DECODING: "█", FAILED: "x"}
TTFT_MARK = "|"
LABEL_MAX = 14
SUFFIX = 12  # " ttft 12.34s"
MIN_BAR = 10


def _seconds(v: float) -> str:
    return f"{v:.2f}s" if v < 10 else f"{v:.1f}s" if v < 100 else f"{v:.0f}s"


def _tick_step(span: float, cells: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving ticks at least 8 cells apart."""
    rough = span * 8 / max(cells, 1)
    power = 10 ** math.floor(math.log10(rough)) if rough > 0 else 1.0
    for m in (1, 2, 5, 10):
        if m * power >= rough:
            return m * power
    return 10 * power


def _axis(span: float, cells: int) -> str:
    step = _tick_step(span, cells)
    line = [" "] * cells
    t = 0.0
    while t <= span + 1e-9:
        col = min(cells - 1, int(t / span * cells)) if span else 0
        label = f"{t:g}s"
        if col + len(label) <= cells and all(c == " " for c in line[max(0, col - 1):col + len(label)]):
            line[col:col + len(label)] = label
        t += step
    return "".join(line).rstrip()


def _row(p: RequestPhases, span: float, cells: int) -> str:
    line = [" "] * cells

    def col(t: float) -> int:
        return min(cells - 1, max(0, int(t / span * cells))) if span else 0

    for seg in p.segments:
        a, b = col(seg.start), col(seg.end)
        for c in range(a, max(a + 1, b) if seg.kind in (DECODING, PREFILL, FAILED) else b):
            line[c] = CHARS[seg.kind]
    if p.first_token is not None:
        line[col(p.first_token)] = TTFT_MARK
    return "".join(line).rstrip()


NAMES = {WAITING: "waiting", LOADING: "loading", PREFILL: "prefill", BEFORE_FIRST: "waiting+prefill",
         DECODING: "decoding", FAILED: "failed"}


def legend(kinds: set[str], width: int = 80) -> str:
    """What the characters of this timeline mean (only those it uses)."""
    parts = [f"{CHARS[k]} {NAMES[k]}" for k in NAMES if k in kinds and k != DECODING]
    parts += [f"{CHARS[DECODING]} decoding", f"{TTFT_MARK} first token"]
    out, line = [], ""
    for part in parts:
        if line and len(line) + 2 + len(part) > width:
            out.append(line)
            line = ""
        line = f"{line}  {part}" if line else part
    return "\n".join(out + [line])


def timeline_lines(result: ProbeResult, width: int = 80) -> list[str]:
    """The timeline of one probe run, every line at most `width` columns."""
    width = max(width, 20)
    phases = probe_phases(result)
    title = f"Probe timeline · {result.url} ({result.engine}" + (
        f", {result.slots} slot{'s' if result.slots != 1 else ''})" if result.slots else ")")
    out = [title[:width]]
    if not phases:
        return out + ["  (no requests were sent)"[:width]]
    span = max(p.end for p in phases) or 1.0
    label_w = min(LABEL_MAX, max(len(p.id) for p in phases))
    suffix = SUFFIX if width - label_w - 1 - SUFFIX >= MIN_BAR else 0
    cells = max(1, width - label_w - 1 - suffix)
    out.append(" " * (label_w + 1) + _axis(span, cells))
    for p in phases:
        label = p.id[:label_w].ljust(label_w)
        bar = _row(p, span, cells)
        note = f"ttft {_seconds(p.ttft)}" if p.ttft is not None else p.status
        line = f"{label} {bar.ljust(cells)}"
        if suffix:
            line += f" {note[:suffix - 1]:>{suffix - 1}}"
        out.append(line.rstrip()[:width])
    out += legend({g.kind for p in phases for g in p.segments}, width).splitlines()
    return out


def timeline_text(runs, width: int = 80) -> str:
    """Every probe run's timeline (a ProbeRuns), separated by blank lines."""
    blocks = ["\n".join(timeline_lines(r, width)) for r in runs.results]
    return "\n\n".join(blocks) + ("\n" if blocks else "")
