"""Judging a probe result (pure). Each function returns a `Verdict` with the
figures it compared, or None when the probe has no data for that question.

`kind` is "problem" (a check turns it into a finding), "healthy" or "inconclusive"
(shown as a summary line). All thresholds come from `thresholds`.
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


def queueing(result: ProbeResult) -> Verdict | None:
    """Pair released together: did the second wait for the first to finish?"""
    pair = [s for s in result.scenario("pair") if s.ok and _interval(s)]
    if len(pair) < 2:
        return None
    a, b = sorted(pair, key=lambda s: s.first_token_at)[:2]
    ia, ib = _interval(a), _interval(b)
    shorter = min(ia[1] - ia[0], ib[1] - ib[0])
    shared = overlap(ia, ib)
    frac = shared / shorter if shorter > 0 else (1.0 if shared > 0 else 0.0)
    single = _one(result, "single")
    base_ttft = single.ttft_s if single else a.ttft_s
    extra = b.first_token_at - b.sent_s - base_ttft
    figures = {"overlap_fraction": round(frac, 3), "first_stream": [round(ia[0], 4), round(ia[1], 4)],
               "second_stream": [round(ib[0], 4), round(ib[1], 4)], "second_ttft_s": round(b.ttft_s, 4),
               "single_ttft_s": round(base_ttft, 4), "slots": result.slots}
    lines = (f"two requests sent together: the first streamed from {ia[0] - a.sent_s:.2f} s to "
             f"{ia[1] - a.sent_s:.2f} s, the second's first token came at {b.ttft_s:.2f} s",
             f"the streams overlapped {frac:.0%} of the time (queueing when <= {T.QUEUE_MAX_OVERLAP:.0%}); "
             f"alone a first token takes {ms(base_ttft)}")
    if frac <= T.QUEUE_MAX_OVERLAP and extra >= T.QUEUE_MIN_EXTRA_WAIT_S:
        slots = f" (the server reports {result.slots} slot{'s' if result.slots != 1 else ''})" if result.slots else ""
        return Verdict("queueing", PROBLEM, f"Requests are served one at a time: the second waited "
                       f"{extra:.2f} s for the first to finish{slots}", lines, figures)
    return Verdict("queueing", HEALTHY, f"Two requests stream at the same time (overlap {frac:.0%})", lines, figures)


def batching(result: ProbeResult) -> Verdict | None:
    """Per-stream decode rate during the pair against a single stream's."""
    q = queueing(result)
    single = _one(result, "single")
    pair = [s for s in result.scenario("pair") if s.ok and s.decode_tps]
    if q is None or q.kind == PROBLEM or single is None or not single.decode_tps or len(pair) < 2:
        return None
    rate = sum(s.decode_tps for s in pair) / len(pair)
    share = rate / single.decode_tps
    figures = {"single_decode_tps": round(single.decode_tps, 2), "pair_decode_tps": round(rate, 2),
               "share": round(share, 3), "counts_from": single.counts_from}
    lines = (f"alone: {tps(single.decode_tps)}; two at once: {tps(rate)} each = {share:.0%} of the "
             f"single-stream rate (server counts: {single.counts_from})",
             f"healthy batching >= {T.HEALTHY_BATCH_SHARE:.0%}, shared hardware <= {T.BANDWIDTH_LIMIT_SHARE:.0%}")
    if share >= T.HEALTHY_BATCH_SHARE:
        return Verdict("batching", HEALTHY, f"Batching works: each of two streams keeps {share:.0%} of the "
                       "single-stream speed", lines, figures)
    if share <= T.BANDWIDTH_LIMIT_SHARE:
        return Verdict("batching", PROBLEM, f"Concurrent streams share the hardware: each of two runs at "
                       f"{share:.0%} of the single-stream speed", lines, figures)
    return Verdict("batching", INCONCLUSIVE, f"Two streams keep {share:.0%} of the single-stream speed "
                   "each (between healthy batching and a shared limit)", lines, figures, Confidence.MEDIUM)


def prefill(result: ProbeResult) -> Verdict | None:
    """Long prompt on an idle server: how long before the first token?"""
    s = _one(result, "long")
    if s is None:
        return None
    ref = min(T.PREFILL_REFERENCE_TOKENS, result.context or T.PREFILL_REFERENCE_TOKENS)
    est = ref / s.prefill_tps if s.prefill_tps else None
    figures = {"ttft_s": round(s.ttft_s, 4), "prompt_tokens": s.prompt_tokens,
               "prefill_tps": round(s.prefill_tps, 2) if s.prefill_tps else None,
               "reference_tokens": ref, "reference_ttft_s": round(est, 3) if est else None}
    lines = [f"a {s.prompt_tokens or '?'}-token prompt on an idle server: first token after {ms(s.ttft_s)}"
             f" (PREFILL when >= {T.PREFILL_TTFT_WARN_S:.0f} s)"]
    if s.prefill_tps:
        lines.append(f"prefill {tps(s.prefill_tps)} (server counts: {s.counts_from}): a {ref}-token prompt "
                     f"would wait ~{est:.1f} s (PREFILL when >= {T.PREFILL_REFERENCE_WARN_S:.0f} s)")
    if s.ttft_s >= T.PREFILL_TTFT_WARN_S:
        return Verdict("prefill", PROBLEM, f"Long prompts wait {s.ttft_s:.1f} s for the first token "
                       "on an idle server", tuple(lines), figures)
    if est is not None and est >= T.PREFILL_REFERENCE_WARN_S:
        return Verdict("prefill", PROBLEM, f"Prompt processing is slow ({tps(s.prefill_tps)}): a {ref}-token "
                       f"prompt waits ~{est:.0f} s", tuple(lines), figures, Confidence.MEDIUM)
    return Verdict("prefill", HEALTHY, f"Prompt processing is fast enough ({ms(s.ttft_s)} for "
                   f"{s.prompt_tokens or '?'} tokens)", tuple(lines), figures)


def prefill_stall(result: ProbeResult) -> Verdict | None:
    """Load mode: did the injected long prompt pause the running streams?"""
    inj = _one(result, "load-long")
    streams = [s for s in result.scenario("load") if s.ok and len(s.chunk_s) >= 3]
    if inj is None or not streams:
        return None
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
    gap, med, sid = worst
    figures = {"longest_gap_s": round(gap, 4), "median_itl_s": round(med, 4),
               "injected_prompt_tokens": inj.prompt_tokens, "injected_ttft_s": round(inj.ttft_s, 4)}
    lines = (f"while a {inj.prompt_tokens or '?'}-token prompt was processed ({ms(busy)}), stream {sid} "
             f"paused {ms(gap)} between two tokens; its median gap is {ms(med)}",
             f"stall when >= {T.PREFILL_STALL_FACTOR:.0f}x the median and >= {ms(T.PREFILL_STALL_MIN_S)}")
    if gap >= T.PREFILL_STALL_FACTOR * med and gap >= T.PREFILL_STALL_MIN_S:
        return Verdict("prefill-stall", PROBLEM, f"A long prompt froze the running streams for {ms(gap)}",
                       lines, figures)
    return Verdict("prefill-stall", HEALTHY, "A long prompt did not stall the running streams", lines, figures)


def load_concurrency(result: ProbeResult) -> Verdict | None:
    """Load mode: how many streams ran at once, against the configured slots."""
    streams = [s for s in result.scenario("load") if s.ok and _interval(s)]
    if len(streams) < 2:
        return None
    most = max_concurrency(_interval(s) for s in streams)
    ttfts = [s.ttft_s for s in streams]
    itls = [g for s in streams for g in s.itl]
    single = _one(result, "single")
    waits = [max(0.0, t - single.ttft_s) for t in ttfts] if single else []
    figures = {"streams": len(streams), "max_concurrent": most, "slots": result.slots,
               "ttft_p50_s": p50(ttfts), "ttft_p95_s": p95(ttfts), "itl_p50_s": p50(itls), "itl_p95_s": p95(itls),
               "queue_wait_p50_s": p50(waits), "queue_wait_p95_s": p95(waits)}
    lines = (f"{len(streams)} streams sent together: at most {most} streamed at once"
             + (f"; the server reports {result.slots} slots" if result.slots else ""),
             f"TTFT p50 {ms(p50(ttfts))}, p95 {ms(p95(ttfts))}; ITL p50 {ms(p50(itls))}, p95 {ms(p95(itls))}"
             + (f"; queue wait p95 {ms(p95(waits))}" if waits else ""))
    expected = min(result.slots, len(streams)) if result.slots else None
    if most == 1 or (expected and most < expected):
        of = f" of {expected} expected" if expected and expected > 1 else ""
        return Verdict("load-concurrency", PROBLEM, f"Only {most}{of} of {len(streams)} streams sent together "
                       "ran at once: the others queued", lines, figures)
    return Verdict("load-concurrency", HEALTHY if expected else INCONCLUSIVE,
                   f"{most} of {len(streams)} streams ran at once; TTFT p95 {ms(p95(ttfts))}, ITL p95 "
                   f"{ms(p95(itls))}" + (f", queue wait p95 {ms(p95(waits))}" if waits else ""), lines, figures)


def model_unload(result: ProbeResult) -> Verdict | None:
    """Did the first request pay for loading the model?"""
    w, s = _one(result, "warmup"), _one(result, "single")
    if w is None:
        return None
    if result.engine == OLLAMA or w.load_s is not None:
        load = w.load_s or 0.0
        figures = {"load_duration_s": round(load, 4), "warmup_ttft_s": round(w.ttft_s, 4)}
        line = f"first request: load_duration {load:.2f} s, first token after {ms(w.ttft_s)}"
        if load >= T.LOAD_DURATION_WARN_S:
            return Verdict("model-unload", PROBLEM, f"The model was not in memory: the first request spent "
                           f"{load:.1f} s loading it", (line, f"a resident model loads in < {T.LOAD_DURATION_WARN_S} s"),
                           figures)
        return Verdict("model-unload", HEALTHY, "The model was already loaded", (line,), figures)
    if s is None:
        return None
    figures = {"warmup_ttft_s": round(w.ttft_s, 4), "next_ttft_s": round(s.ttft_s, 4)}
    line = f"first request's first token after {ms(w.ttft_s)}, the next request's after {ms(s.ttft_s)}"
    if w.ttft_s >= T.WARMUP_TTFT_FACTOR * s.ttft_s and w.ttft_s - s.ttft_s >= T.LOAD_EXTRA_MIN_S:
        # This engine reports no loads: the extra wait may as well be requests ahead of the
        # probe on a busy server. Saying MODEL_UNLOAD here would blame a reload it cannot see.
        return Verdict("model-unload", INCONCLUSIVE, f"The first request took {w.ttft_s - s.ttft_s:.1f} s longer "
                       f"than the next; {result.engine} reports no model loads, so this is a busy server "
                       "(requests ahead of it) or a cold start, not known which", (line,), figures)
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
    """Figures for a report's summary: baseline TTFT/ITL/rates and the verdicts."""
    out: list[tuple[str, str]] = []
    s = _one(result, "single")
    label = "probe"
    if s is not None:
        out.append((f"{label} single stream", f"TTFT {ms(s.ttft_s)}"
                    + (f" (first byte {ms(s.ttfb_s)})" if s.ttfb_s is not None and s.ttft_s - s.ttfb_s > 0.01 else "")
                    + f", ITL p50 {ms(p50(s.itl))} p95 {ms(p95(s.itl))}, decode {tps(s.decode_tps)}"))
    for v in assess(result):
        out.append((f"{label} {v.name}", f"{v.kind}: {v.title}"))
    out.append((f"{label} cost", f"{result.requests_sent} requests, {result.tokens_generated} tokens, "
                f"{result.wall_s:.1f} s ({result.engine}, model {result.model})"))
    return out
