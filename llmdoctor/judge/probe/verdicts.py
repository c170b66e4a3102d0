"""Judging a probe result (pure). Each function returns a `Verdict` with the
figures it compared, or None when the probe has no data for that question.

`kind` is "problem" (a check turns it into a finding), "healthy" or "inconclusive"
(shown as a summary line). All thresholds come from `thresholds`.

A repeated scenario (the probe runs each three times) is judged run by run: a verdict is a
problem, or healthy, only when every run says so; runs on both sides of the threshold make it
inconclusive, and its figures carry the spread (runs, min, p50, max). Runs with others'
requests before or after them (the server's load, read around each run) are left out: what
was measured then says as much about the others as about the server.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llmdoctor.knowledge.engines import OLLAMA
from llmdoctor.judge.probe import thresholds as T
from llmdoctor.knowledge.probe.result import HTTP_ERROR, ProbeResult, StreamSample
from llmdoctor.knowledge.probe.stats import max_concurrency, overlap, p50, p95
from llmdoctor.model import Confidence

PROBLEM, HEALTHY, INCONCLUSIVE = "problem", "healthy", "inconclusive"


@dataclass(frozen=True)
class Verdict:
    name: str            # queueing | batching | prefill | prefill-stall | model-unload | queue-full
    kind: str
    title: str
    evidence: tuple[str, ...]
    figures: dict[str, Any] = field(default_factory=dict)
    confidence: Confidence = Confidence.HIGH


def ms(s: float | None) -> str:
    if s is None:
        return "n/a"
    if s < 0.1:
        return f"{s * 1000:.1f} ms"
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def tps(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.1f} tokens/s"


def _one(result: ProbeResult, scenario: str) -> StreamSample | None:
    xs = [s for s in result.scenario(scenario) if s.ok and s.ttft_s is not None]
    return xs[0] if xs else None


def _interval(s: StreamSample) -> tuple[float, float] | None:
    if s.first_token_at is None or s.last_token_at is None:
        return None
    return (s.first_token_at, s.last_token_at)


def _busy(result: ProbeResult, scenario: str, run: int) -> bool:
    """Others' requests ran or waited before the run, or right after it: the next reading (the
    probe has nothing in flight then either) tells of a request that arrived meanwhile."""
    load = result.load_before(scenario, run)
    if load is None:
        return False
    i = result.loads.index(load)
    after = result.loads[i + 1] if i + 1 < len(result.loads) else None
    return load.busy or (after is not None and after.busy)


def _groups(result: ProbeResult, scenario: str, need=lambda s: True) -> tuple[list[list[StreamSample]], int]:
    """The ok samples of each run of a scenario, less the runs with others' requests before or
    after them (`_busy`), and how many runs were left out for that."""
    by_run: dict[int, list[StreamSample]] = {}
    for s in result.scenario(scenario):
        if s.ok and need(s):
            by_run.setdefault(s.run, []).append(s)
    kept = {r: xs for r, xs in by_run.items() if not _busy(result, scenario, r)}
    return [kept[r] for r in sorted(kept)], len(by_run) - len(kept)


def _median_of(result: ProbeResult, scenario: str, attr: str) -> float | None:
    groups, _ = _groups(result, scenario, lambda s: getattr(s, attr) is not None)
    return p50(getattr(xs[0], attr) for xs in groups) if groups else None


def spread(values: list[float]) -> dict[str, Any]:
    """min / median / max of one figure over the runs."""
    return {"runs": len(values), "min": round(min(values), 4), "p50": round(p50(values), 4),
            "max": round(max(values), 4)}


def spread_line(what: str, values: list[float], fmt=lambda v: f"{v:.2f}") -> str:
    if len(values) == 1:
        return f"{what} {fmt(values[0])}"
    return (f"{what} {fmt(p50(values))} (median of {len(values)} runs; min {fmt(min(values))}, "
            f"max {fmt(max(values))})")


def _busy_verdict(name: str, skipped: int, result: ProbeResult) -> Verdict:
    first = result.busy_loads[0].describe() if result.busy_loads else "others' requests"
    return Verdict(name, INCONCLUSIVE, f"Not judged: the server was busy with other requests before "
                   f"{'each' if skipped > 1 else 'the'} run ({first})", (f"{skipped} run(s) left out: others' requests "
                   "were running or queued before or after them",), {"busy_runs": skipped}, Confidence.LOW)


def _split(kinds: list[str]) -> str | None:
    """PROBLEM or HEALTHY when every run agrees, None when the runs disagree."""
    return kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None


def _queue_run(result: ProbeResult, pair: list[StreamSample], base_ttft: float | None):
    a, b = sorted(pair, key=lambda s: s.first_token_at)[:2]
    ia, ib = _interval(a), _interval(b)
    shorter = min(ia[1] - ia[0], ib[1] - ib[0])
    shared = overlap(ia, ib)
    frac = shared / shorter if shorter > 0 else (1.0 if shared > 0 else 0.0)
    base = base_ttft if base_ttft is not None else a.ttft_s
    extra = b.first_token_at - b.sent_s - base
    return a, b, ia, ib, frac, extra, base


def queueing(result: ProbeResult) -> Verdict | None:
    """Pairs released together: did the second wait for the first to finish? Every run must agree."""
    groups, skipped = _groups(result, "pair", lambda s: _interval(s) is not None)
    groups = [g for g in groups if len(g) >= 2]
    if not groups:
        return _busy_verdict("queueing", skipped, result) if skipped else None
    base_ttft = _median_of(result, "single", "ttft_s")
    runs = [_queue_run(result, g, base_ttft) for g in groups]
    kinds = [PROBLEM if frac <= T.QUEUE_MAX_OVERLAP and extra >= T.QUEUE_MIN_EXTRA_WAIT_S else HEALTHY
             for *_, frac, extra, _b in runs]
    fracs, extras = [r[4] for r in runs], [r[5] for r in runs]
    a, b, ia, ib, frac, extra, base_ttft = runs[0]
    figures = {"overlap_fraction": round(p50(fracs), 3), "first_stream": [round(ia[0], 4), round(ia[1], 4)],
               "second_stream": [round(ib[0], 4), round(ib[1], 4)], "second_ttft_s": round(b.ttft_s, 4),
               "single_ttft_s": round(base_ttft, 4), "slots": result.slots,
               "spread": {"overlap_fraction": spread(fracs), "extra_wait_s": spread(extras)},
               "busy_runs": skipped}
    lines = (f"two requests sent together: the first streamed from {ia[0] - a.sent_s:.2f} s to "
             f"{ia[1] - a.sent_s:.2f} s, the second's first token came at {b.ttft_s:.2f} s",
             spread_line("the streams overlapped", fracs, lambda v: f"{v:.0%}")
             + f" (queueing when <= {T.QUEUE_MAX_OVERLAP:.0%}); alone a first token takes {ms(base_ttft)}")
    kind = _split(kinds)
    if kind == PROBLEM:
        slots = f" (the server reports {result.slots} slot{'s' if result.slots != 1 else ''})" if result.slots else ""
        return Verdict("queueing", PROBLEM, f"Requests are served one at a time: the second waited "
                       f"{p50(extras):.2f} s for the first to finish{slots}", lines, figures)
    if kind is None:
        return Verdict("queueing", INCONCLUSIVE, f"{kinds.count(PROBLEM)} of {len(kinds)} pairs queued, the "
                       f"others streamed together (overlap {min(fracs):.0%}-{max(fracs):.0%} across the "
                       f"{T.QUEUE_MAX_OVERLAP:.0%} threshold)", lines, figures, Confidence.LOW)
    return Verdict("queueing", HEALTHY, f"Two requests stream at the same time (overlap {p50(fracs):.0%})",
                   lines, figures)


def batching(result: ProbeResult) -> Verdict | None:
    """Per-stream decode rate during each pair against the median single-stream rate."""
    q = queueing(result)
    single = _median_of(result, "single", "decode_tps")
    groups, _ = _groups(result, "pair", lambda s: bool(s.decode_tps))
    groups = [g for g in groups if len(g) >= 2]
    if q is None or q.kind != HEALTHY or not single or not groups:
        return None
    shares = [sum(s.decode_tps for s in g) / len(g) / single for g in groups]
    share, rate = p50(shares), p50(shares) * single
    counts_from = groups[0][0].counts_from
    figures = {"single_decode_tps": round(single, 2), "pair_decode_tps": round(rate, 2),
               "share": round(share, 3), "counts_from": counts_from, "spread": {"share": spread(shares)}}
    lines = (f"alone: {tps(single)}; two at once: {tps(rate)} each = {share:.0%} of the "
             f"single-stream rate (server counts: {counts_from})",
             spread_line("share of the single-stream rate", shares, lambda v: f"{v:.0%}")
             + f"; healthy batching >= {T.HEALTHY_BATCH_SHARE:.0%}, shared hardware <= {T.BANDWIDTH_LIMIT_SHARE:.0%}")
    if min(shares) >= T.HEALTHY_BATCH_SHARE:
        return Verdict("batching", HEALTHY, f"Batching works: each of two streams keeps {share:.0%} of the "
                       "single-stream speed", lines, figures)
    if max(shares) <= T.BANDWIDTH_LIMIT_SHARE:
        return Verdict("batching", PROBLEM, f"Concurrent streams share the hardware: each of two runs at "
                       f"{share:.0%} of the single-stream speed", lines, figures)
    return Verdict("batching", INCONCLUSIVE, f"Two streams keep {min(shares):.0%}-{max(shares):.0%} of the "
                   "single-stream speed each (between, or across, healthy batching and a shared limit)",
                   lines, figures, Confidence.MEDIUM)


def prefill(result: ProbeResult) -> Verdict | None:
    """Long prompt on an idle server: how long before the first token? Every run must agree."""
    groups, skipped = _groups(result, "long", lambda s: s.ttft_s is not None)
    if not groups:
        return _busy_verdict("prefill", skipped, result) if skipped else None
    runs = [g[-1] for g in groups]  # a resent (resized) prompt is the run's measurement
    s = runs[0]
    ttfts = [x.ttft_s for x in runs]
    ref = min(T.PREFILL_REFERENCE_TOKENS, result.context or T.PREFILL_REFERENCE_TOKENS)
    rates = [x.prefill_tps for x in runs if x.prefill_tps]
    ests = [ref / r for r in rates]
    rate = p50(rates) if rates else None
    est = ref / rate if rate else None
    figures = {"ttft_s": round(p50(ttfts), 4), "prompt_tokens": s.prompt_tokens,
               "prefill_tps": round(rate, 2) if rate else None,
               "reference_tokens": ref, "reference_ttft_s": round(est, 3) if est else None,
               "spread": {"ttft_s": spread(ttfts)} | ({"prefill_tps": spread(rates)} if rates else {}),
               "busy_runs": skipped}
    lines = [f"a {s.prompt_tokens or '?'}-token prompt on an idle server: "
             + spread_line("first token", ttfts, ms) + f" (PREFILL when >= {T.PREFILL_TTFT_WARN_S:.0f} s)"]
    if rate:
        lines.append(f"prefill {tps(rate)} (server counts: {s.counts_from}): a {ref}-token prompt "
                     f"would wait ~{est:.1f} s (PREFILL when >= {T.PREFILL_REFERENCE_WARN_S:.0f} s)")
    slow_ttft = [t >= T.PREFILL_TTFT_WARN_S for t in ttfts]
    slow_rate = [e >= T.PREFILL_REFERENCE_WARN_S for e in ests]
    if all(slow_ttft):
        return Verdict("prefill", PROBLEM, f"Long prompts wait {p50(ttfts):.1f} s for the first token "
                       "on an idle server", tuple(lines), figures)
    if slow_rate and all(slow_rate) and not any(slow_ttft):
        return Verdict("prefill", PROBLEM, f"Prompt processing is slow ({tps(rate)}): a {ref}-token "
                       f"prompt waits ~{est:.0f} s", tuple(lines), figures, Confidence.MEDIUM)
    if any(slow_ttft) or any(slow_rate):
        return Verdict("prefill", INCONCLUSIVE, f"Long prompts waited {ms(min(ttfts))}-{ms(max(ttfts))} for the "
                       f"first token: the runs fall on both sides of the threshold", tuple(lines), figures,
                       Confidence.LOW)
    return Verdict("prefill", HEALTHY, f"Prompt processing is fast enough ({ms(p50(ttfts))} for "
                   f"{s.prompt_tokens or '?'} tokens)", tuple(lines), figures)


def _stall_run(inj: StreamSample, streams: list[StreamSample]) -> tuple[float, float, str, float] | None:
    """(longest gap, its stream's median gap, stream id, prefill time) while `inj` was prefilled."""
    # The prefill itself, not the injected request's queue wait: the server's own
    # prompt time when it reports one, else everything up to the first token.
    busy = inj.prompt_tokens / inj.prefill_tps if inj.prompt_tokens and inj.prefill_tps else inj.ttft_s
    window = (inj.first_token_at - min(busy, inj.ttft_s), inj.first_token_at)
    worst: tuple[float, float, str] | None = None  # (gap, median itl, id)
    for s in streams:
        med = p50(s.itl)
        if not med:
            continue
        for (t1, t2), g in zip(zip(s.chunk_s, s.chunk_s[1:]), s.itl):
            if overlap((s.sent_s + t1, s.sent_s + t2), window) > 0 and (worst is None or g / med > worst[0] / worst[1]):
                worst = (g, med, s.id)
    if worst is None or not worst[1]:
        return None
    return worst + (busy,)


def prefill_stall(result: ProbeResult) -> Verdict | None:
    """Load mode: did the injected long prompt pause the running streams? Every run must agree."""
    injected, _ = _groups(result, "load-long", lambda s: s.ttft_s is not None)
    streams, _ = _groups(result, "load", lambda s: len(s.chunk_s) >= 3)
    by_run = {g[0].run: g for g in streams}
    runs = []
    for g in injected:
        inj = g[0]
        got = _stall_run(inj, by_run.get(inj.run, []))
        if got is not None:
            runs.append((inj,) + got)
    if not runs:
        return None
    stalls = [gap >= T.PREFILL_STALL_FACTOR * med and gap >= T.PREFILL_STALL_MIN_S for _, gap, med, _, _ in runs]
    inj, gap, med, sid, busy = max(runs, key=lambda r: r[1] / r[2])
    ratios = [r[1] / r[2] for r in runs]
    figures = {"longest_gap_s": round(gap, 4), "median_itl_s": round(med, 4),
               "injected_prompt_tokens": inj.prompt_tokens, "injected_ttft_s": round(inj.ttft_s, 4),
               "spread": {"gap_over_median": spread(ratios), "longest_gap_s": spread([r[1] for r in runs])}}
    lines = (f"while a {inj.prompt_tokens or '?'}-token prompt was processed ({ms(busy)}), stream {sid} "
             f"paused {ms(gap)} between two tokens; its median gap is {ms(med)}",
             spread_line("longest pause / median gap", ratios, lambda v: f"{v:.1f}x")
             + f"; stall when >= {T.PREFILL_STALL_FACTOR:.0f}x the median and >= {ms(T.PREFILL_STALL_MIN_S)}")
    if all(stalls):
        return Verdict("prefill-stall", PROBLEM, f"A long prompt froze the running streams for {ms(gap)}",
                       lines, figures)
    if any(stalls):
        return Verdict("prefill-stall", INCONCLUSIVE, f"A long prompt froze the running streams in "
                       f"{sum(stalls)} of {len(stalls)} runs", lines, figures, Confidence.LOW)
    return Verdict("prefill-stall", HEALTHY, "A long prompt did not stall the running streams", lines, figures)


def load_concurrency(result: ProbeResult) -> Verdict | None:
    """Load mode: how many streams ran at once, against the configured slots. Every run must agree."""
    groups, skipped = _groups(result, "load", lambda s: _interval(s) is not None)
    groups = [g for g in groups if len(g) >= 2]
    if not groups:
        return _busy_verdict("load-concurrency", skipped, result) if skipped else None
    mosts = [max_concurrency(_interval(s) for s in g) for g in groups]
    streams = [s for g in groups for s in g]
    most, n = min(mosts), len(groups[0])
    ttfts = [s.ttft_s for s in streams]
    itls = [g for s in streams for g in s.itl]
    single = _median_of(result, "single", "ttft_s")
    waits = [max(0.0, t - single) for t in ttfts] if single is not None else []
    figures = {"streams": n, "max_concurrent": most, "slots": result.slots,
               "ttft_p50_s": p50(ttfts), "ttft_p95_s": p95(ttfts), "itl_p50_s": p50(itls), "itl_p95_s": p95(itls),
               "queue_wait_p50_s": p50(waits), "queue_wait_p95_s": p95(waits),
               "spread": {"max_concurrent": spread([float(m) for m in mosts])}, "busy_runs": skipped}
    lines = (f"{n} streams sent together: " + spread_line("the most streaming at once", [float(m) for m in mosts],
                                                           lambda v: f"{v:.0f}")
             + (f"; the server reports {result.slots} slots" if result.slots else ""),
             f"TTFT p50 {ms(p50(ttfts))}, p95 {ms(p95(ttfts))}; ITL p50 {ms(p50(itls))}, p95 {ms(p95(itls))}"
             + (f"; queue wait p95 {ms(p95(waits))}" if waits else ""))
    expected = min(result.slots, n) if result.slots else None
    kinds = [PROBLEM if m == 1 or (expected and m < expected) else HEALTHY for m in mosts]
    kind = _split(kinds)
    if kind == PROBLEM:
        of = f" of {expected} expected" if expected and expected > 1 else ""
        return Verdict("load-concurrency", PROBLEM, f"Only {max(mosts)}{of} of {n} streams sent together "
                       "ran at once: the others queued", lines, figures)
    if kind is None:
        return Verdict("load-concurrency", INCONCLUSIVE, f"{min(mosts)}-{max(mosts)} of {n} streams ran at once "
                       f"across the runs ({expected or '?'} expected)", lines, figures, Confidence.LOW)
    return Verdict("load-concurrency", HEALTHY if expected else INCONCLUSIVE,
                   f"{most} of {n} streams ran at once; TTFT p95 {ms(p95(ttfts))}, ITL p95 "
                   f"{ms(p95(itls))}" + (f", queue wait p95 {ms(p95(waits))}" if waits else ""), lines, figures)


def _ps_evidence(result: ProbeResult) -> tuple[bool | None, str]:
    """Ollama /api/ps before and after the warm-up: (absent before and present after, the line)."""
    before, after = result.load_before("warmup", 0), result.load_before("after warmup", 0)
    if before is None or after is None or before.source != "/api/ps" or after.source != "/api/ps":
        return None, ""
    was, now = result.model in before.models, result.model in after.models
    return (not was and now), (f"/api/ps before the first request: {result.model} "
                              f"{'in memory' if was else 'not in memory'}; after: {'in memory' if now else 'not in memory'}")


def model_unload(result: ProbeResult) -> Verdict | None:
    """Did the first request pay for loading the model? Only the engine's own evidence says so:
    Ollama's load_duration, or /api/ps showing the model absent before and present after. A slow
    first request on an engine that reports no loads is a busy server or a cold start, not known which."""
    w = _one(result, "warmup")
    if w is None:
        return None
    loaded, ps_line = _ps_evidence(result)
    if result.engine == OLLAMA or w.load_s is not None:
        load = w.load_s or 0.0
        figures = {"load_duration_s": round(load, 4), "warmup_ttft_s": round(w.ttft_s, 4), "loaded_by_probe": loaded}
        lines = tuple(x for x in (f"first request: load_duration {load:.2f} s, first token after {ms(w.ttft_s)}",
                                  ps_line) if x)
        if load >= T.LOAD_DURATION_WARN_S or loaded:
            spent = f"{load:.1f} s loading it" if load >= T.LOAD_DURATION_WARN_S else "loading it (/api/ps)"
            return Verdict("model-unload", PROBLEM, f"The model was not in memory: the first request spent "
                           f"{spent}", lines + (f"a resident model loads in < {T.LOAD_DURATION_WARN_S} s",),
                           figures)
        return Verdict("model-unload", HEALTHY, "The model was already loaded", lines, figures)
    nxt = _median_of(result, "single", "ttft_s")
    if nxt is None:
        return None
    figures = {"warmup_ttft_s": round(w.ttft_s, 4), "next_ttft_s": round(nxt, 4)}
    line = f"first request's first token after {ms(w.ttft_s)}, the next requests' (median) after {ms(nxt)}"
    busy = _busy(result, "warmup", 0)
    if busy or (w.ttft_s >= T.WARMUP_TTFT_FACTOR * nxt and w.ttft_s - nxt >= T.LOAD_EXTRA_MIN_S):
        # This engine reports no loads: the extra wait may as well be requests ahead of the
        # probe on a busy server. Saying MODEL_UNLOAD here would blame a reload it cannot see.
        why = "the server was busy before it" if busy else f"it took {w.ttft_s - nxt:.1f} s longer than the next"
        return Verdict("model-unload", INCONCLUSIVE, f"Not known whether the first request carried a load: "
                       f"{why}, and {result.engine} reports no model loads (a busy server or a cold start)",
                       (line,), figures, Confidence.LOW)
    return Verdict("model-unload", HEALTHY, "No cold start on the first request", (line,), figures)


BUSY_MARKERS = ("maximum pending requests exceeded", "server busy", "no slot available", "no slots available")


def queue_full(result: ProbeResult) -> Verdict | None:
    """A request refused because the server's queue is full (Ollama 503)."""
    refused = [s for s in result.samples if s.status == HTTP_ERROR and
               (s.http_status == 503 and any(m in s.error.lower() for m in BUSY_MARKERS))]
    if not refused:
        return None
    lines = tuple(f"{s.id}: {s.error}" for s in refused[:3])
    return Verdict("queue-full", PROBLEM, f"{len(refused)} of {len(result.samples)} probe requests were "
                   "refused: the server's queue is full", lines, {"refused": len(refused)})


ALL = (model_unload, queueing, batching, prefill, load_concurrency, prefill_stall, queue_full)


def assess(result: ProbeResult) -> list[Verdict]:
    return [v for v in (f(result) for f in ALL) if v is not None]


def summary_lines(result: ProbeResult) -> list[tuple[str, str]]:
    """Figures for a report's summary: what the server was doing, baseline TTFT/ITL/rates over
    the runs, and the verdicts."""
    out: list[tuple[str, str]] = []
    label = "probe"
    if result.loads:
        busy = result.busy_loads
        first = result.loads[0]
        if busy:
            out.append((f"{label} server load", f"BUSY with others' requests at {len(busy)} of "
                        f"{len([x for x in result.loads if x.at != 'end'])} readings (first before {busy[0].at}: "
                        f"{busy[0].describe()}); waited {result.idle_wait_s:.1f} s for idle; the runs with "
                        "others' requests before or after them are left out of the verdicts"))
        else:
            out.append((f"{label} server load", f"idle before every run ({first.describe()})"
                        if first.known else first.describe()))
    groups, _ = _groups(result, "single", lambda s: s.ttft_s is not None)
    singles = [g[0] for g in groups] or [s for s in result.scenario("single") if s.ok and s.ttft_s is not None]
    if singles:
        s = singles[0]
        ttfts = [x.ttft_s for x in singles]
        itl50 = [v for v in (p50(x.itl) for x in singles) if v is not None]
        rates = [x.decode_tps for x in singles if x.decode_tps]
        text = f"TTFT {ms(p50(ttfts))}"
        if len(singles) > 1:
            text += f" (min {ms(min(ttfts))}, max {ms(max(ttfts))}, {len(singles)} runs)"
        elif s.ttfb_s is not None and s.ttft_s - s.ttfb_s > 0.01:
            text += f" (first byte {ms(s.ttfb_s)})"
        text += (f", ITL p50 {ms(p50(itl50) if itl50 else None)} p95 {ms(p95([g for x in singles for g in x.itl]))}"
                 f", decode {tps(p50(rates) if rates else None)}")
        out.append((f"{label} single stream", text))
    for v in assess(result):
        out.append((f"{label} {v.name}", f"{v.kind}: {v.title}"))
    out.append((f"{label} cost", f"{result.requests_sent} requests, {result.tokens_generated} tokens, "
                f"{result.wall_s:.1f} s ({result.engine}, model {result.model})"))
    return out


def verdict_dicts(result: ProbeResult) -> list[dict[str, Any]]:
    """The verdicts in JSON form: name, kind, title, evidence and figures (a repeated
    scenario's figures carry a "spread": runs, min, p50, max)."""
    return [{"name": v.name, "kind": v.kind, "title": v.title, "evidence": list(v.evidence),
             "figures": v.figures, "confidence": v.confidence.value} for v in assess(result)]


def runs_with_verdicts(runs: Any) -> list[dict[str, Any]]:
    """ProbeRuns.to_dict() with each result's verdicts added (JSON's `probe` section)."""
    return [dict(d, verdicts=verdict_dicts(r)) for r, d in zip(runs.results, runs.to_dict())]
