"""The probe's charts as inline SVG, drawn by matplotlib's SVG back-end.

Why matplotlib: the timeline is a Gantt chart (`broken_barh`: waiting, loading,
prefill and decoding per request on one time axis, the first token marked) and the
latency chart shows distributions (inter-token gaps per request as box plots): both are
native there. Its SVG back-end writes text as paths (`svg.fonttype = path`), so the page
needs no font and no script, and it runs without a display (no pyplot, no global
state: one `Figure` per chart). pygal would draw the timeline only as stacked bars with
an invisible first segment, cannot mark a point on a bar, and links a script from the
web unless told not to.
"""
from __future__ import annotations

import io
import re

from llmdoctor.knowledge.probe.phases import (BEFORE_FIRST, DECODING, FAILED, LOADING, PREFILL, WAITING,
                                              probe_phases)
from llmdoctor.knowledge.probe.result import ProbeResult
from llmdoctor.render.unavailable import HtmlUnavailable  # noqa: F401 (raised here, caught by the CLI)

COLOURS = {WAITING: "#b0b7c3", LOADING: "#9467bd", PREFILL: "#ff7f0e", BEFORE_FIRST: "#f5c28b",
           DECODING: "#1f77b4", FAILED: "#d62728"}
NAMES = {WAITING: "waiting", LOADING: "model loading", PREFILL: "prefill", BEFORE_FIRST: "waiting + prefill (not split)",
         DECODING: "decoding", FAILED: "failed"}
INSTALL_HINT = "--format html needs matplotlib: pip install 'llmdoctor[html]'"


def _figure(width_in: float, height_in: float):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise HtmlUnavailable(INSTALL_HINT) from e
    return Figure(figsize=(width_in, height_in), dpi=96, layout="constrained")


def _svg(fig, label: str) -> str:
    """The figure as an <svg> element (no XML prologue), labelled for screen readers."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "llmdoctor"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "llmdoctor (matplotlib)"})
    text = buf.getvalue()
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text[text.index("<svg"):], flags=re.S)
    return re.sub(r"<svg\b", f'<svg role="img" aria-label="{label}"', text, count=1)


def timeline_svg(result: ProbeResult) -> str:
    """One bar per request on the probe's clock: where its time went, TTFT marked."""
    phases = probe_phases(result)
    fig = _figure(9.0, 1.2 + 0.45 * max(1, len(phases)))
    ax = fig.add_subplot()
    seen: set[str] = set()
    for row, p in enumerate(phases):
        for seg in p.segments:
            width = max(seg.end - seg.start, 0.004)
            ax.broken_barh([(seg.start, width)], (row - 0.35, 0.7), facecolors=COLOURS[seg.kind],
                           label=None if seg.kind in seen else NAMES[seg.kind])
            seen.add(seg.kind)
        if p.first_token is not None:
            ax.plot([p.first_token], [row], marker="|", markersize=18, markeredgewidth=2.5, color="#111111",
                    label=None if "ttft" in seen else "first token (TTFT)")
            seen.add("ttft")
            ax.annotate(f"TTFT {p.ttft:.2f} s", (p.first_token, row), xytext=(4, 7), textcoords="offset points",
                        fontsize=8)
    ax.set_yticks(range(len(phases)), [p.id for p in phases])
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the probe started")
    ax.set_title(f"Probe timeline: {result.engine} at {result.url}", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlim(left=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(phases) > 2 else -0.45), ncol=4,
              fontsize=8, frameon=False)
    return _svg(fig, "probe timeline")


def latency_svg(result: ProbeResult) -> str:
    """Time to first token per request, and the spread of its inter-token gaps."""
    samples = sorted(result.samples, key=lambda s: (round(s.sent_s, 2), s.id))
    fig = _figure(9.0, 1.6 + 0.35 * max(1, len(samples)))
    ttft_ax, itl_ax = fig.subplots(1, 2, sharey=True)
    ids = [s.id for s in samples]
    ttfts = [s.ttft_s or 0.0 for s in samples]
    ttft_ax.barh(range(len(samples)), ttfts, color=[COLOURS[PREFILL] if s.ok else COLOURS[FAILED] for s in samples])
    ttft_ax.set_xlabel("time to first token (s)")
    ttft_ax.set_title("Time to first token", fontsize=10)
    ttft_ax.grid(axis="x", alpha=0.3)
    gaps = [[g * 1000 for g in s.itl] or [0.0] for s in samples]
    itl_ax.boxplot(gaps, orientation="horizontal", positions=range(len(samples)), widths=0.6, showfliers=True,
                   patch_artist=True, boxprops={"facecolor": COLOURS[DECODING], "alpha": 0.6})
    ttft_ax.set_yticks(range(len(samples)), ids)  # the box plot set its own (positions) on the shared axis
    ttft_ax.set_ylim(len(samples) - 0.5, -0.5)
    itl_ax.tick_params(labelleft=False)
    itl_ax.set_xlabel("gap between streamed tokens (ms)")
    itl_ax.set_title("Inter-token latency", fontsize=10)
    itl_ax.grid(axis="x", alpha=0.3)
    return _svg(fig, "probe latency")


def headroom_svg(verdict) -> str:
    """A sweep's measured TTFT (p50, p95) per level, the fitted model's curve through and beyond
    them, and the TTFT target; the ITL beside it when an ITL target was asked."""
    h = verdict.headroom
    itl_target = h.targets.itl_s if h is not None else None
    fig = _figure(9.0, 3.6)
    axes = fig.subplots(1, 2) if itl_target else [fig.subplots(1, 1)]
    ax = axes[0]
    done = [s for s in verdict.levels if s.complete and s.ttft_p50_s is not None]
    ax.plot([s.concurrency for s in done], [s.ttft_p50_s for s in done], "o", color=COLOURS[DECODING],
            label="measured p50")
    ax.plot([s.concurrency for s in done], [s.ttft_p95_s for s in done], "^", color=COLOURS[PREFILL],
            label="measured p95")
    if h is not None and h.curve:
        xs = [c for c, *_ in h.curve]
        ax.plot(xs, [p for _, p, _, _ in h.curve], "-", color=COLOURS[DECODING], alpha=0.7, label="model p50")
        ax.plot(xs, [p for _, _, p, _ in h.curve], "--", color=COLOURS[PREFILL], alpha=0.8, label="model p95")
    target = h.targets.ttft_s if h is not None else verdict.result.plan.ttft_target_s
    ax.axhline(target, color=COLOURS[FAILED], linewidth=1.2, label=f"target {target:g} s")
    ax.set_xlabel("concurrent streams")
    ax.set_ylabel("time to first token (s)")
    ax.set_title("TTFT: measured and fitted", fontsize=10)
    ax.grid(alpha=0.3)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, frameon=False)
    if itl_target:
        bx = axes[1]
        bx.plot([s.concurrency for s in done], [(s.itl_p95_s or 0) * 1000 for s in done], "^",
                color=COLOURS[PREFILL], label="measured p95")
        if h.curve:
            bx.plot([c for c, *_ in h.curve], [i * 1000 for *_, i in h.curve], "--", color=COLOURS[PREFILL],
                    alpha=0.8, label="model p95")
        bx.axhline(itl_target * 1000, color=COLOURS[FAILED], linewidth=1.2, label=f"target {itl_target * 1000:g} ms")
        bx.set_xlabel("concurrent streams")
        bx.set_ylabel("inter-token latency (ms)")
        bx.set_title("ITL: measured and fitted", fontsize=10)
        bx.grid(alpha=0.3)
        bx.set_xlim(left=0)
        bx.set_ylim(bottom=0)
        bx.legend(fontsize=8, frameon=False)
    return _svg(fig, "sweep headroom")
