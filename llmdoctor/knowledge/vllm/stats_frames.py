"""A large vLLM log read by two processes: what the helper sends for each region.

On a log of gigabytes most of the scan's time is its loop over stats lines (one Python step
each, VllmLogScanner._stats_lines). So the reader hands the later part of such a log to a
helper process that reads the same regions (the same reads from the same offset give the same
buffers) and runs that loop on them, while the reader scans the earlier part itself; then the
reader goes on through the later regions with the helper's frames instead of the loop.

A frame says, for one region: its bounds, its newline count, the line starts the loop would
have handed on (other "KV cache" lines, anchored rare lines), and its stats lines in order:
every line to parse as (start, end, 'V' position, its records' regex groups and bounds: the
reader skips the regex), and between them the quiet lines, as a count
or, among the region's last `keep` stats lines (the ones a result may report), as their spans.
The reader parses the listed lines itself, in order, so its state evolves as in a scan of its
own. A line the helper called quiet is quiet for the reader too: the helper saw no Running
higher than the reader did (it starts at 0), and the rest of the test does not depend on the
state. Frames are plain ints, lists and tuples: marshal carries them.

Pure: no I/O.
"""
from __future__ import annotations


def frame_items(trace: list, keep: int) -> list:
    """The stats part of a frame from a traced loop (VllmLogScanner._stats_lines with `trace`):
    (quiet lines before it, start, end, 'V' position, records) per parsed line, then the quiet
    lines' spans."""
    spans = trace[-1]
    quiet_total = len(spans) >> 1
    tail_from = max(0, quiet_total + len(trace) - 1 - keep)  # the first entry that may be reported
    items: list = []
    done = entry = 0  # quiet lines laid out; entries (quiet and parsed lines) before them
    for k, ls, le, p, records in trace[:-1]:
        _quiet_items(items, spans, done, k, entry, tail_from)
        entry += k - done + 1
        done = k
        items.append((ls, le, p, records))
    _quiet_items(items, spans, done, quiet_total, entry, tail_from)
    return items


def _quiet_items(items: list, spans: list, first: int, stop: int, entry: int, tail_from: int) -> None:
    """Quiet lines first..stop-1 (entry: the entries before the first): counted before
    tail_from, as spans from it on."""
    if stop <= first:
        return
    split = min(stop, max(first, first + tail_from - entry))
    if split > first:
        items.append(split - first)
    if stop > split:
        items.append(spans[2 * split: 2 * stop])
