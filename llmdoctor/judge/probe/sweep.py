"""The concurrency sweep judged: per-level TTFT/ITL percentiles, the knee, and how
many concurrent users stay within a TTFT target (pure).

The knee is where time-to-first-token starts to climb: the smallest concurrency whose
p50 TTFT is above all three of
  - KNEE_FACTOR (3) times the single-stream p50 (a relative climb),
  - the single-stream p50 plus KNEE_FLOOR_S (so a fast server's few milliseconds of
    jitter are no climb),
  - the single-stream p95 (the noise one stream already shows).
A level where a request failed (an HTTP error, a timeout, a stall) counts as climbed.
Why 3x: streams that share the hardware pay for each other's prefill, and where prefill is
compute-bound (a CPU) two short prompts batched together take about twice one (measured on
llama-server -np 4: 2.0-2.4x at 2 streams, 6x at 4); a stream that queues behind another
waits for its whole answer, so with one slot the p50 at 2 streams is the single-stream TTFT
plus half a stream (with 128 output tokens 4-8x on the same server). With one slot the
knee is at 2; with N slots it is where the batched prefill has tripled, or above N.

Users within the target: the highest concurrency whose p95 TTFT is within the target
with every lower level within it too, and no failed request; when even the highest level
tested stays within it, the server carries at least that many (a lower bound).
Levels the sweep did not finish (deadline, budget, Ctrl-C) are left out of both.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from llmdoctor.knowledge.probe.result import INTERRUPTED
from llmdoctor.knowledge.probe.stats import p50, p95
from llmdoctor.knowledge.probe.sweep import SweepLevel, SweepResult, duration, seconds

KNEE_FACTOR = 3.0
KNEE_FLOOR_S = 0.1

KNEE_RULE = (f"knee = the smallest concurrency whose p50 TTFT is above all of {KNEE_FACTOR:g}x the "
             f"single-stream p50, the single-stream p50 + {seconds(KNEE_FLOOR_S)} and the single-stream p95 "
             f"(its noise), or where a request failed")
USERS_RULE = ("users within target = the highest concurrency whose p95 TTFT, and that of every "
              "lower level, is within the target with no failed request")


@dataclass(frozen=True)
class LevelStats:
    concurrency: int
    sent: int
    ok: int
    failed: int                    # answered badly; interrupted requests are not failures
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    itl_p50_s: float | None
    itl_p95_s: float | None
    complete: bool = True

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def level_stats(level: SweepLevel) -> LevelStats:
    ok = [s for s in level.samples if s.ok]
    failed = sum(1 for s in level.samples if not s.ok and s.status != INTERRUPTED)
    ttfts = [s.ttft_s for s in ok if s.ttft_s is not None]
    itls = [g for s in ok for g in s.itl]
    return LevelStats(level.concurrency, len(level.samples), len(ok), failed, p50(ttfts), p95(ttfts),
                      p50(itls), p95(itls), level.complete)


@dataclass(frozen=True)
class Knee:
    concurrency: int | None       # None: no climb up to `tested` (or nothing to compare with)
    tested: int                   # the highest complete level
    baseline_s: float | None      # single-stream p50 TTFT
    threshold_s: float | None     # the p50 a level must exceed
    ttft_p50_s: float | None = None  # at the knee
    failed: bool = False          # the knee is where requests failed

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def knee(stats: Iterable[LevelStats]) -> Knee:
    levels = sorted((s for s in stats if s.complete), key=lambda s: s.concurrency)
    tested = levels[-1].concurrency if levels else 0
    single = levels[0] if levels and levels[0].concurrency == 1 else None
    if single is None or single.ttft_p50_s is None:
        return Knee(None, tested, None, None)
    base = single.ttft_p50_s
    threshold = max(KNEE_FACTOR * base, base + KNEE_FLOOR_S, single.ttft_p95_s or base)
    for s in levels[1:]:
        if s.failed or s.ttft_p50_s is None:
            return Knee(s.concurrency, tested, base, threshold, s.ttft_p50_s, failed=True)
        if s.ttft_p50_s > threshold:
            return Knee(s.concurrency, tested, base, threshold, s.ttft_p50_s)
    return Knee(None, tested, base, threshold)


@dataclass(frozen=True)
class UsersWithin:
    target_s: float
    users: int | None             # None: no complete level to judge
    at_least: bool                # every level tested stayed within: a lower bound
    over_at: int | None = None    # the first level beyond the target
    over_p95_s: float | None = None

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def users_within(stats: Iterable[LevelStats], target_s: float) -> UsersWithin:
    levels = sorted((s for s in stats if s.complete), key=lambda s: s.concurrency)
    if not levels:
        return UsersWithin(target_s, None, False)
    users = 0
    for s in levels:
        if s.failed or s.ttft_p95_s is None or s.ttft_p95_s > target_s:
            return UsersWithin(target_s, users, False, s.concurrency, s.ttft_p95_s)
        users = s.concurrency
    return UsersWithin(target_s, users, True)


@dataclass(frozen=True)
class SweepVerdict:
    result: SweepResult
    levels: tuple[LevelStats, ...]
    knee: Knee
    users: UsersWithin
    headroom: Any = None   # judge.probe.headroom.Headroom: the fitted model's prediction

    def to_dict(self) -> dict:
        r = self.result
        return {"url": r.url, "engine": r.engine, "model": r.model, "slots": r.slots,
                "plan": r.plan.to_dict(), "partial": r.partial, "stopped_by": r.stopped_by,
                "requests_sent": r.requests_sent, "tokens_used": r.tokens_used, "wall_s": r.wall_s,
                "started_at": r.started_at, "notes": list(r.notes),
                "levels": [s.to_dict() for s in self.levels], "knee": self.knee.to_dict(),
                "knee_rule": KNEE_RULE, "users_within_target": self.users.to_dict(), "users_rule": USERS_RULE,
                "headroom": self.headroom.to_dict() if self.headroom else None,
                "warmup": r.warmup.to_dict() if r.warmup else None,
                "samples": [s.to_dict() for level in r.levels for s in level.samples]}


def judge_sweep(result: SweepResult) -> SweepVerdict:
    from llmdoctor.judge.probe.headroom import Targets, judge_headroom

    stats = tuple(level_stats(level) for level in result.levels)
    headroom = judge_headroom(result, Targets(result.plan.ttft_target_s, result.plan.itl_target_s))
    return SweepVerdict(result, stats, knee(stats), users_within(stats, result.plan.ttft_target_s), headroom)


def sweep_figures(verdict: SweepVerdict):
    """The knee and the users within target as performance data (the knee only when found)."""
    from llmdoctor.model import Figure

    out = [Figure("sweep_requests", float(verdict.result.requests_sent))]
    if verdict.knee.concurrency is not None:
        out.append(Figure("sweep_knee_streams", float(verdict.knee.concurrency)))
    if verdict.users.users is not None:
        out.append(Figure("sweep_users_within_target", float(verdict.users.users)))
    h = verdict.headroom
    if h is not None and h.trusted and h.users is not None:
        out.append(Figure("headroom_streams", float(h.users.value)))
        out.append(Figure("headroom_rate_rps", round(h.rate_rps.value, 4)))
    if h is not None and h.backtest is not None:
        out.append(Figure("headroom_backtest_error", round(h.backtest.error, 4)))
    return tuple(out)


def knee_line(v) -> str:
    k = v.knee
    if k.baseline_s is None:
        return "Knee: unknown (no single-stream TTFT was measured)"
    if k.concurrency is None:
        return (f"Knee: none up to {k.tested} streams: p50 TTFT stayed at or below {duration(k.threshold_s)} "
                f"(single stream {duration(k.baseline_s)})")
    if k.failed:
        return f"Knee: {k.concurrency} streams: requests failed there (single-stream p50 TTFT {duration(k.baseline_s)})"
    return (f"Knee: {k.concurrency} streams: p50 TTFT {duration(k.ttft_p50_s)} is "
            f"{k.ttft_p50_s / k.baseline_s:.1f}x the single-stream {duration(k.baseline_s)} "
            f"(over the {duration(k.threshold_s)} threshold)")


def users_line(v) -> str:
    u = v.users
    target = f"the {seconds(u.target_s)} TTFT target (p95)"
    if u.users is None:
        return f"Users within {target}: unknown (no level was completed)"
    if u.at_least:
        return f"Users within {target}: {u.users} or more (every level tested stayed within it)"
    why = "requests failed" if u.over_p95_s is None else f"p95 TTFT {duration(u.over_p95_s)}"
    if u.users == 0:
        return f"Users within {target}: none (a single stream already misses it: {why})"
    return f"Users within {target}: {u.users} concurrent stream{'s' if u.users > 1 else ''} (at {u.over_at}: {why})"


def summary_lines(verdict: SweepVerdict) -> tuple[tuple[str, str], ...]:
    """The report's summary lines for one engine's sweep: its knee, its users, its headroom, its notes."""
    from llmdoctor.judge.probe.headroom import headroom_lines

    return ((("sweep knee", knee_line(verdict).partition(": ")[2]),
             ("sweep users", users_line(verdict).partition(": ")[2]))
            + tuple(("sweep headroom", line.partition("): ")[2] or line) for line in headroom_lines(verdict.headroom)[:1])
            + tuple(("sweep note", n) for n in verdict.result.notes))
