"""A service model of one LLM server, fitted from a concurrency sweep, and a small
simulation of it (pure, standard library only, deterministic).

Why a model and not the sweep's table: the table answers only at the levels it measured
(1, 2, 4, 8 streams released together); the operator asks about 6 users, a request rate,
or another `-np`. Every engine llmdoctor knows serves the same way, so one model covers them:

- at most `slots` requests are served at once (llama-server `-np`, OLLAMA_NUM_PARALLEL,
  vLLM `--max-num-seqs`, SGLang `--max-running-requests`), and the KV cache may hold fewer
  (`kv_seqs`); the others wait in arrival order (all four queue first come, first served);
- the engine works in steps: a step decodes one token of every running request, and a
  request admitted at a step boundary has its prompt prefilled in that step (llama-server's
  batch mixes both; vLLM's and SGLang's chunked prefill does too); its first token ends it;
- a decode step takes `decode_s + decode_s_per_seq * batch` (memory-bound decode grows slowly
  with the batch, compute-bound decode on a CPU grows fast: the fit tells which);
  prefill costs `prefill_s_per_token` for every prompt token in the step (batched prefill
  is compute-bound: two prompts take about twice one); `overhead_s` is what every first token
  pays beyond that (HTTP, tokenising, sampling), seen by the client only.

With one slot this is one-at-a-time service: a stream waits for the whole answer before it.
The simulation jumps from event to event (an arrival admitted, a request finished), never
token by token, so it costs O(requests) and is bounded by MAX_SIM_REQUESTS.
The fit is a least-squares line by hand (two parameters, no numpy): decode step time against
the batch each stream really shared (the overlap of the streams' decoding windows on the
sweep's clock), and first-token time against the prompt tokens released together.
"""
from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Iterable, Sequence

from llmdoctor.knowledge.probe.stats import p50, percentile
from llmdoctor.knowledge.probe.sweep import SweepLevel, SweepResult

MAX_SIM_REQUESTS = 2000          # no simulation runs more requests than this
MAX_BATCH = 256                  # "no limit seen": vLLM's default --max-num-seqs
OPEN_REQUESTS = 240              # requests simulated at an arrival rate (steady state, bounded)
DEFAULT_SEED = 7


class FitError(ValueError):
    """The sweep holds too little to fit a model (said in one line)."""


@dataclass(frozen=True)
class ServiceModel:
    slots: int | None                 # None: no limit seen up to the levels measured
    overhead_s: float
    prefill_s_per_token: float
    decode_s: float
    decode_s_per_seq: float
    prompt_tokens: int                # per request, as the sweep sent them
    output_tokens: int                # content chunks per answer (what ITL is measured between)
    max_batch_measured: int = 1       # the largest batch the fit saw
    kv_seqs: int | None = None        # most sequences the KV cache holds at once (None: not limiting)
    slots_source: str = ""

    @property
    def capacity(self) -> int:
        """Requests served at once: the slots, or what the KV cache holds, whichever is fewer."""
        return max(1, min(self.slots or MAX_BATCH, self.kv_seqs or MAX_BATCH))

    def step_s(self, batch: int) -> float:
        return self.decode_s + self.decode_s_per_seq * batch

    def request_s(self, batch: int = 1) -> float:
        """One request served alone in a batch of `batch`: its prefill and every decode step."""
        return self.prefill_s_per_token * self.prompt_tokens + max(0, self.output_tokens - 1) * self.step_s(batch)

    def throughput_rps(self) -> float:
        """Requests a second with every place busy (an upper bound for the arrival rate)."""
        c = self.capacity
        return c / max(1e-9, self.prefill_s_per_token * self.prompt_tokens * c
                       + max(0, self.output_tokens - 1) * self.step_s(c))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["capacity"] = self.capacity
        return d

    @classmethod
    def from_dict(cls, d: Any) -> "ServiceModel":
        if not isinstance(d, dict):
            raise ValueError("a service model must be an object")
        kw: dict[str, Any] = {}
        for f in fields(cls):
            v = d.get(f.name)
            if f.name == "slots_source":
                kw[f.name] = str(v or "")
            elif f.name in ("slots", "kv_seqs") and v is None:
                kw[f.name] = None
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"service model: {f.name!r} must be a number >= 0, not {v!r:.40}")
            else:
                kw[f.name] = int(v) if f.name in ("slots", "kv_seqs", "prompt_tokens", "output_tokens",
                                                  "max_batch_measured") else float(v)
        return cls(**kw)


# -- simulation ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What the simulated clients saw."""

    ttft_s: tuple[float, ...]
    itl: tuple[tuple[float, int], ...]   # (gap, how many tokens had it)
    end_s: float

    def ttft(self, q: float) -> float | None:
        return percentile(self.ttft_s, q)

    def itl_q(self, q: float) -> float | None:
        return weighted_percentile(self.itl, q)

    def itl_mean(self) -> float | None:
        n = sum(c for _, c in self.itl)
        return sum(v * c for v, c in self.itl) / n if n else None

    def summary(self) -> dict[str, float | None]:
        return {"ttft_p50_s": self.ttft(50), "ttft_p95_s": self.ttft(95), "itl_mean_s": self.itl_mean(),
                "itl_p50_s": self.itl_q(50), "itl_p95_s": self.itl_q(95)}


def weighted_percentile(pairs: Iterable[tuple[float, int]], q: float) -> float | None:
    """The q-th percentile of values given with counts (the lower value at a tie)."""
    xs = sorted((v, n) for v, n in pairs if n > 0)
    total = sum(n for _, n in xs)
    if not total:
        return None
    rank = max(1, math.ceil(total * q / 100.0))
    seen = 0
    for v, n in xs:
        seen += n
        if seen >= rank:
            return v
    return xs[-1][0]


def simulate(model: ServiceModel, arrivals: Sequence[float]) -> Outcome:
    """Serve requests arriving at these times (seconds, sorted) and return what clients saw."""
    arr = sorted(float(a) for a in arrivals)[:MAX_SIM_REQUESTS]
    n, cap = len(arr), model.capacity
    prompt, out = model.prompt_tokens, max(1, model.output_tokens)
    active: list[int] = []               # tokens still to decode, per running request
    ttft: list[float] = []
    itl: list[tuple[float, int]] = []
    t, i = 0.0, 0
    while True:
        new = 0
        while i < n and arr[i] <= t + 1e-12 and len(active) + new < cap:
            new += 1
            i += 1
        if not active and not new:
            if i >= n:
                break
            t = max(t, arr[i])
            continue
        if new:  # one step: the new prompts prefilled, one token for everyone running
            dur = model.prefill_s_per_token * prompt * new + (model.step_s(len(active)) if active else 0.0)
            dur = max(dur, 1e-9)
            t += dur
            if active:
                itl.append((dur, len(active)))
                active = [r - 1 for r in active if r > 1]
            ttft += [t - arr[j] + model.overhead_s for j in range(i - new, i)]
            active += [out - 1] * new if out > 1 else []
            continue
        dur = max(model.step_s(len(active)), 1e-9)
        steps = min(active)
        if i < n and len(active) < cap:  # the next arrival is admitted at the first step boundary after it
            steps = min(steps, max(1, math.ceil((arr[i] - t) / dur - 1e-9)))
        t += steps * dur
        itl.append((dur, steps * len(active)))
        active = [r - steps for r in active if r > steps]
    return Outcome(tuple(ttft), tuple(itl), t)


def burst(model: ServiceModel, concurrency: int) -> Outcome:
    """`concurrency` requests released together, as one round of the sweep."""
    return simulate(model, [0.0] * max(1, min(int(concurrency), MAX_SIM_REQUESTS)))


def poisson_arrivals(rate: float, requests: int = OPEN_REQUESTS, seed: int = DEFAULT_SEED) -> list[float]:
    """Poisson arrivals at `rate` a second: one fixed draw scaled by 1/rate, so a higher
    rate is the same traffic compressed (the search over rates sees no new noise)."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(max(1, min(requests, MAX_SIM_REQUESTS))):
        t += rng.expovariate(1.0)
        out.append(t / rate)
    return out


def at_rate(model: ServiceModel, rate: float, requests: int = OPEN_REQUESTS, seed: int = DEFAULT_SEED) -> Outcome:
    return simulate(model, poisson_arrivals(rate, requests, seed))


# -- fit -------------------------------------------------------------------------------------

def least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the line through the points; slope 0 when x does not vary."""
    n = len(xs)
    if n == 0:
        raise FitError("no points to fit")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 1e-12 * max(1.0, mx * mx):
        return my, 0.0
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def nonneg_line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """The least-squares line with intercept and slope kept >= 0 (a time never shrinks with load,
    nor is it negative: noise that says so is refitted with the offending term at 0)."""
    a, b = least_squares(xs, ys)
    if b < 0:
        return max(0.0, sum(ys) / len(ys)), 0.0
    if a < 0:
        sxx = sum(x * x for x in xs)
        return 0.0, (sum(x * y for x, y in zip(xs, ys)) / sxx) if sxx > 0 else 0.0
    return a, b


@dataclass(frozen=True)
class Point:
    """One level as measured, for the fit and the backtest."""

    concurrency: int
    ttft_p50_s: float
    ttft_p95_s: float
    itl_p50_s: float | None
    itl_p95_s: float | None
    itl_mean_s: float | None = None  # every stream's decoding time over its gaps: the pace, however chunks bunch


def _ok(level: SweepLevel) -> list:
    return [s for s in level.samples if s.ok and s.ttft_s is not None]


def level_point(level: SweepLevel) -> Point | None:
    ok = _ok(level)
    if not ok:
        return None
    gaps = [g for s in ok for g in s.itl]
    span = sum(s.chunk_s[-1] - s.chunk_s[0] for s in ok if len(s.chunk_s) >= 2)
    return Point(level.concurrency, p50(s.ttft_s for s in ok), percentile((s.ttft_s for s in ok), 95),
                 p50(gaps), percentile(gaps, 95), span / len(gaps) if gaps else None)


def usable_levels(result: SweepResult) -> list[SweepLevel]:
    """Complete levels where every request was answered (a failed one is no timing)."""
    return [lv for lv in result.levels
            if lv.complete and lv.samples and all(s.ok and s.ttft_s is not None for s in lv.samples)]


def decode_points(levels: Iterable[SweepLevel]) -> list[tuple[float, float]]:
    """(batch shared, mean inter-chunk gap) per stream: the batch is the mean number of streams
    decoding during this stream's decoding window (on the sweep's one clock), itself included.
    The mean, not the median: an engine that sends tokens in bunches (vLLM on a CPU streams
    several per chunk, most gaps near 0) still spends its window decoding them."""
    out = []
    for level in levels:
        ok = [s for s in _ok(level) if len(s.chunk_s) >= 3]
        wins = [(s.sent_s + s.chunk_s[0], s.sent_s + s.chunk_s[-1]) for s in ok]
        for s, (a, b) in zip(ok, wins):
            if b <= a:
                continue
            shared = sum(max(0.0, min(b, y) - max(a, x)) for x, y in wins) / (b - a)
            out.append((max(1.0, shared), (b - a) / (len(s.chunk_s) - 1)))
    return out


def _median_int(values: Iterable[float | None], default: int) -> int:
    v = p50(x for x in values if x is not None)
    return default if v is None else int(round(v))


def fit(result: SweepResult, levels: Sequence[SweepLevel] | None = None, slots: int | None = None,
        slots_source: str = "") -> ServiceModel:
    """The model from the sweep's usable levels (or the `levels` given: a backtest leaves one
    out). `slots` known (llama-server's /props) is used; unknown, it is chosen among the
    levels' concurrencies (and "no limit") as the one whose simulated sweep best matches
    the measured p50 TTFTs. Raises FitError when nothing can be fitted."""
    levels = list(usable_levels(result) if levels is None else levels)
    if not levels:
        raise FitError("no complete sweep level where every request was answered")
    samples = [s for lv in levels for s in _ok(lv)]
    prompt = _median_int((s.prompt_tokens for s in samples), 0) or 1  # unknown: prefill is per request
    output = _median_int((len(s.chunk_s) for s in samples), 1)
    dec = decode_points(levels)
    if not dec:
        raise FitError("no answer streamed three chunks or more: nothing to time the decode steps by")
    d0, d1 = nonneg_line([b for b, _ in dec], [g for _, g in dec])
    points = sorted((p for p in map(level_point, levels) if p), key=lambda p: p.concurrency)
    top = max(p.concurrency for p in points)
    base = ServiceModel(None, 0.0, 0.0, d0, d1, prompt, output, max(1, round(max(b for b, _ in dec))))
    tps = p50(s.prefill_tps for s in samples if s.prefill_tps)

    def with_slots(n: int | None, source: str) -> ServiceModel:
        within = [p for p in points if n is None or p.concurrency <= n] or points[:1]  # the lowest measured
        xs, ys = [p.concurrency * prompt for p in within], [p.ttft_p50_s for p in within]
        if len({*xs}) >= 2:
            o, k = nonneg_line(xs, ys)
        elif tps and prompt > 1:  # one level: the server's own prefill rate splits its TTFT
            k = 1.0 / tps
            o = max(0.0, ys[0] - xs[0] * k)
        else:
            o, k = ys[0], 0.0
        return replace(base, slots=n, overhead_s=o, prefill_s_per_token=k,
                       slots_source=source)

    if slots:
        return with_slots(slots, slots_source or "given")
    candidates = [with_slots(c, "fitted: where TTFT climbs as queueing") for c in
                  sorted({p.concurrency for p in points}) if c < top]
    candidates.append(with_slots(None, f"fitted: no queueing seen up to {top} streams"))

    def miss(m: ServiceModel) -> float:
        return sum(math.log(max(1e-6, burst(m, p.concurrency).ttft(50) or 1e-6) / max(1e-6, p.ttft_p50_s)) ** 2
                   for p in points)

    return min(candidates, key=miss)
