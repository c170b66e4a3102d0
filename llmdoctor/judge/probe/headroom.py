"""Headroom: how many concurrent streams, and what request rate, stay within a TTFT and an
ITL target, from the service model fitted to a sweep (knowledge/probe/service.py), with an
error bar and a backtest that decides whether to say a number at all (pure).

The backtest holds the highest measured level out, fits the model on the levels below, and
predicts the held-out one: that is the question the operator asks (a level not measured,
above those that were). Its error, the larger relative miss of p50 TTFT and mean ITL (the
pace of decoding, however the engine bunches tokens into chunks), is the error bar: the range
is what the model gives with every latency that much worse (the low end) and that much better
(the high end), never narrower than HEADROOM_MIN_BAND. Above
HEADROOM_TRUST_ERROR the prediction is not trusted and no number is printed.

"Concurrent streams" are released together, as the sweep sends them (the worst case of
that many users); the request rate is Poisson arrivals, the steady state of many users.
Targets are on p95 TTFT and p95 ITL (a user feels the slow tail).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from llmdoctor.judge.thresholds import (HEADROOM_BUNCHED_SHARE, HEADROOM_BUNCHED_WINDOW, HEADROOM_EXTRAPOLATION,
                                        HEADROOM_MIN_BAND, HEADROOM_MIN_LEVELS, HEADROOM_TRUST_ERROR)
from llmdoctor.knowledge.probe.service import (FitError, Outcome, ServiceModel, at_rate, burst, fit, level_point,
                                               usable_levels)
from llmdoctor.knowledge.probe.sweep import SweepResult, duration as _s, seconds

MAX_USERS = 1024        # the users search stops here (a lower bound beyond)
RATE_STEPS = 18         # bisection steps of the rate search (1/2^18 of the range)

HEADROOM_RULE = (f"model fitted on the levels measured; backtest = the highest level held out and predicted from "
                 f"the others (with the slots fitted on all); trusted when it misses p50 TTFT and mean ITL by at most "
                 f"{HEADROOM_TRUST_ERROR:.0%}; range = the latencies that much worse and better "
                 f"(at least {HEADROOM_MIN_BAND:.0%})")


@dataclass(frozen=True)
class Targets:
    ttft_s: float
    itl_s: float | None = None

    def met(self, o: Outcome, scale: float = 1.0) -> bool:
        ttft, itl = o.ttft(95), o.itl_q(95)
        if ttft is None or ttft * scale > self.ttft_s:
            return False
        return self.itl_s is None or itl is None or itl * scale <= self.itl_s

    def describe(self) -> str:
        text = f"p95 TTFT <= {seconds(self.ttft_s)}"
        return text + (f" and p95 ITL <= {seconds(self.itl_s)}" if self.itl_s else "")


@dataclass(frozen=True)
class Backtest:
    concurrency: int                  # the level held out
    fitted_on: tuple[int, ...]
    predicted: dict[str, float | None]
    measured: dict[str, float | None]
    error: float                      # the larger relative miss of p50 TTFT and mean ITL

    def to_dict(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "fitted_on": list(self.fitted_on),
                "predicted": dict(self.predicted), "measured": dict(self.measured), "error": round(self.error, 4)}


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    at_least: bool = False            # the search stopped at its bound: more than that

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Headroom:
    targets: Targets
    model: ServiceModel | None
    backtest: Backtest | None
    trusted: bool
    why: str = ""                     # why no number (not trusted, nothing to fit)
    users: Estimate | None = None
    rate_rps: Estimate | None = None
    band: float = HEADROOM_MIN_BAND
    measured_up_to: int = 0
    curve: tuple[tuple[int, float, float, float], ...] = ()   # (streams, TTFT p50, TTFT p95, ITL p95) predicted
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"targets": {"ttft_p95_s": self.targets.ttft_s, "itl_p95_s": self.targets.itl_s},
                "model": self.model.to_dict() if self.model else None,
                "backtest": self.backtest.to_dict() if self.backtest else None,
                "trusted": self.trusted, "why": self.why, "band": round(self.band, 4),
                "users": self.users.to_dict() if self.users else None,
                "rate_rps": self.rate_rps.to_dict() if self.rate_rps else None,
                "measured_up_to": self.measured_up_to,
                "curve": [{"concurrency": c, "ttft_p50_s": a, "ttft_p95_s": b, "itl_p95_s": i}
                          for c, a, b, i in self.curve],
                "notes": list(self.notes), "rule": HEADROOM_RULE}


def rel_error(predicted: float | None, measured: float | None) -> float:
    if predicted is None or measured is None or measured <= 0:
        return 0.0
    return abs(predicted - measured) / measured


def backtest(result: SweepResult, slots: int | None = None) -> Backtest | None:
    """The highest usable level predicted by the model fitted on the others (None: too few levels).
    `slots`: the engine's, or the count fitted on every level (queueing shows only at the levels
    above the slots, so holding the highest out would hide it; the backtest tests the timings)."""
    levels = usable_levels(result)
    if len(levels) < HEADROOM_MIN_LEVELS:
        return None
    held, rest = levels[-1], levels[:-1]
    model = fit(result, rest, slots=slots or result.slots, slots_source="engine")
    pred = burst(model, held.concurrency).summary()
    p = level_point(held)
    meas = {"ttft_p50_s": p.ttft_p50_s, "ttft_p95_s": p.ttft_p95_s, "itl_mean_s": p.itl_mean_s,
            "itl_p50_s": p.itl_p50_s, "itl_p95_s": p.itl_p95_s}
    err = max(rel_error(pred["ttft_p50_s"], meas["ttft_p50_s"]), rel_error(pred["itl_mean_s"], meas["itl_mean_s"]))
    return Backtest(held.concurrency, tuple(lv.concurrency for lv in rest), pred, meas, err)


def bunched(result: SweepResult) -> tuple[int, int]:
    """(answers that arrived in one bunch, answers) over the usable levels: their chunks all came
    within HEADROOM_BUNCHED_WINDOW of the request's time, so the stream hides the engine's steps."""
    answers = [s for lv in usable_levels(result) for s in lv.samples if len(s.chunk_s) >= 3]
    n = sum(1 for s in answers if s.chunk_s[-1] - s.chunk_s[0] < HEADROOM_BUNCHED_WINDOW * s.chunk_s[-1])
    return n, len(answers)


def _largest(ok: Callable[[int], bool], top: int) -> tuple[int, bool]:
    """The largest n in 1..top with ok(n) (ok falls once with n); (0, False) when even 1 fails."""
    if not ok(1):
        return 0, False
    if ok(top):
        return top, True
    lo, hi = 1, top          # ok(lo), not ok(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo, False


def max_users(model: ServiceModel, targets: Targets, scale: float = 1.0) -> tuple[int, bool]:
    return _largest(lambda c: targets.met(burst(model, c), scale), MAX_USERS)


def max_rate(model: ServiceModel, targets: Targets, scale: float = 1.0) -> float:
    """The highest Poisson arrival rate (requests/s) within the targets (0: not even a trickle)."""
    top = 1.5 * model.throughput_rps()
    if not targets.met(at_rate(model, top * 1e-3), scale):
        return 0.0
    lo, hi = top * 1e-3, top
    if targets.met(at_rate(model, hi), scale):
        return hi
    for _ in range(RATE_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if targets.met(at_rate(model, mid), scale) else (lo, mid)
    return lo


def predict(model: ServiceModel, targets: Targets, band: float) -> tuple[Estimate, Estimate]:
    """Users and rate within the targets, each with its range over latencies x (1 +- band)."""
    (u, at_least), (lo, _), (hi, hi_more) = (max_users(model, targets), max_users(model, targets, 1 + band),
                                             max_users(model, targets, max(0.05, 1 - band)))
    high = max_rate(model, targets, max(0.05, 1 - band))
    rate = Estimate(max_rate(model, targets), max_rate(model, targets, 1 + band), high,
                    at_least=high >= 1.5 * model.throughput_rps())  # the search's bound: the server never saturated
    return Estimate(u, lo, hi, at_least or hi_more), rate


def curve(model: ServiceModel, up_to: int) -> tuple[tuple[int, float, float, float], ...]:
    out = []
    for c in range(1, max(2, min(up_to, 64)) + 1):
        s = burst(model, c).summary()
        out.append((c, s["ttft_p50_s"] or 0.0, s["ttft_p95_s"] or 0.0, s["itl_p95_s"] or 0.0))
    return tuple(out)


def judge_headroom(result: SweepResult, targets: Targets, model: ServiceModel | None = None,
                   bt: Backtest | None = None, notes: tuple[str, ...] = ()) -> Headroom:
    """The headroom of the sweep's server (or of `model`, a what-if built from its fit, judged
    with the original's backtest `bt`)."""
    levels = usable_levels(result)
    top = max((lv.concurrency for lv in levels), default=0)
    dropped = [lv.concurrency for lv in result.levels if lv.complete and lv not in levels]
    extra = tuple(notes) + ((f"levels with a failed request are left out of the fit: "
                             f"{', '.join(map(str, dropped))} streams",) if dropped else ())
    try:
        if model is None:
            model = fit(result, slots=result.slots, slots_source="engine")
            bt = backtest(result, model.slots)
    except FitError as e:
        return Headroom(targets, None, None, False, f"nothing to fit: {e}", measured_up_to=top, notes=extra)
    band = max(HEADROOM_MIN_BAND, bt.error if bt else 0.0)
    users, rate = predict(model, targets, band)
    shape = curve(model, max(2 * top, int(users.high) + 2))
    lumps, answers = bunched(result)
    if answers and lumps >= HEADROOM_BUNCHED_SHARE * answers:
        why = (f"{lumps} of {answers} answers arrived in one bunch (every chunk within "
               f"{HEADROOM_BUNCHED_WINDOW:.0%} of the request's time): the stream does not show the engine's "
               f"steps, so a model fitted to it cannot tell waiting from working")
        return Headroom(targets, model, bt, False, why, band=band, measured_up_to=top, curve=shape, notes=extra)
    if bt is None:
        why = (f"only {len(levels)} complete level{'s' if len(levels) != 1 else ''} measured: a backtest needs "
               f"{HEADROOM_MIN_LEVELS} (one to hold out); sweep with --max-concurrency 4 or more")
        return Headroom(targets, model, None, False, why, band=band, measured_up_to=top, curve=shape, notes=extra)
    if bt.error > HEADROOM_TRUST_ERROR:
        why = (f"the backtest missed {bt.concurrency} streams by {bt.error:.0%} (more than "
               f"{HEADROOM_TRUST_ERROR:.0%}): the model does not describe this server well enough to predict")
        return Headroom(targets, model, bt, False, why, band=band, measured_up_to=top, curve=shape, notes=extra)
    if users.high > HEADROOM_EXTRAPOLATION * top:
        extra += (f"the range reaches {users.high:g} streams, over {HEADROOM_EXTRAPOLATION}x the {top} measured: "
                  f"extrapolated (decode step time taken as linear in the batch)",)
    return Headroom(targets, model, bt, True, "", users, rate, band, top, shape, extra)


# -- the verdict in words: the sweep's summary line and every output say it alike --------------------

def _rate(r: float) -> str:
    return f"{r:.3g}"


def _range(e, fmt) -> str:
    more = " or more" if e.at_least else ""
    if fmt(e.low) == fmt(e.high):
        return f"{fmt(e.value)}{more}"
    return f"{fmt(e.value)} (range {fmt(e.low)} to {fmt(e.high)}{more})"


def model_line(m) -> str:
    """The fitted service model in one sentence."""
    slots = f"{m.slots} slot{'s' if m.slots != 1 else ''}" if m.slots else "no slot limit seen"
    kv = f", the KV cache holds {m.kv_seqs}" if m.kv_seqs else ""
    return (f"Model: {slots} ({m.slots_source}){kv}; first token {_s(m.overhead_s)} + "
            f"{m.prefill_s_per_token * 1000:.3g} ms per prompt token released together ({m.prompt_tokens} each); "
            f"decode step {_s(m.decode_s)} + {m.decode_s_per_seq * 1000:.3g} ms per stream in the batch; "
            f"{m.output_tokens} chunks an answer; first come, first served.")


def backtest_line(b) -> str:
    p, m = b.predicted, b.measured
    return (f"Backtest: {b.concurrency} streams held out, predicted from {', '.join(map(str, b.fitted_on))}: "
            f"p50 TTFT {_s(p['ttft_p50_s'])} predicted, {_s(m['ttft_p50_s'])} measured; "
            f"mean ITL {_s(p['itl_mean_s'])} predicted, {_s(m['itl_mean_s'])} measured: error {b.error:.0%}.")


def headroom_lines(h, what: str = "Headroom") -> list[str]:
    """The prediction, its backtest and the model, or why there is no number."""
    if h is None:
        return []
    head = f"{what} ({h.targets.describe()})"
    if h.model is None:
        return [f"{head}: not predicted ({h.why})."]
    out = []
    if h.trusted:
        plural = "s" if h.users.value != 1 or h.users.high != 1 else ""
        out.append(f"{head}: {_range(h.users, lambda x: f'{x:g}')} concurrent stream{plural} released together; "
                   f"{_range(h.rate_rps, _rate)} requests/s arriving at random.")
    else:
        out.append(f"{head}: not predicted: the prediction is not to be trusted ({h.why}).")
    if h.backtest:
        out.append(backtest_line(h.backtest))
    out.append(model_line(h.model))
    out += [f"Note: {n}" for n in h.notes]
    return out
