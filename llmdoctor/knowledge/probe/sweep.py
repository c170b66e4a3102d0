"""The concurrency sweep's plan and its raw result (pure).

`probe --sweep` releases 1, 2, 4, ... streams at once, up to `--max-concurrency`,
and repeats a level until it has at least `MIN_SAMPLES` requests, so every level's
p50/p95 rests on more than one or two numbers. Everything it may send is known
before the first request: the plan states it, and the token budget and the deadline
are checked before every round (a round never starts when its worst case would pass
the budget), so the sweep stops early, and says so, rather than overspend.

The budget counts output tokens (what each request may generate, `max_tokens`), the
cost the operator controls; the short fixed prompt is the same for every request.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from llmdoctor.knowledge.probe import prompts
from llmdoctor.knowledge.probe.result import StreamSample

DEFAULT_MAX_CONCURRENCY = 8
MAX_CONCURRENCY_LIMIT = 32
DEFAULT_TOKEN_BUDGET = 4096      # output tokens, warm-up included
DEFAULT_TTFT_TARGET_S = 2.0
# Per request: a stream queued behind another waits for this many tokens' decode, which must
# stand well clear of what sharing costs (batched prefill); 128 tokens is 1-5 s on most servers.
SWEEP_OUTPUT_TOKENS = 128
# Short to read (the sweep measures waiting and sharing, not prefill: the light probe's long
# prompt does that) and asking for a long answer, so a real model runs to max_tokens.
SWEEP_PROMPT = "Write a long story."
MIN_SAMPLES = 4                  # requests per level at least (level 1: four in a row)
WARMUP_TOKENS = 8
# Sizing the default plan to its deadline (fitted): it may keep as few as this many requests a
# level (one more would be a single reading's p50), and plans to use at most this share of what
# the deadline leaves; the rest is for the gaps between rounds and a round slower than the first.
FIT_MIN_SAMPLES = 2
FIT_SHARE = 0.9
FIT_MIN_LEVELS = 2               # 1 and 2 streams: the least that tells waiting from sharing
MAX_DEADLINE_S = 600.0         # --deadline's maximum (cli/probe.py)

# Why a sweep stopped before its last level.
COMPLETE = ""
BY_DEADLINE = "deadline"
BY_BUDGET = "token budget"
BY_INTERRUPT = "interrupted"
BY_FAILURE = "failures"

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|sec|m|min)?\s*$", re.I)
_UNIT_S = {"ms": 0.001, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0}


def parse_duration(text: str) -> float:
    """Seconds from "2s", "500ms", "1.5", "1m" (a bare number is seconds). Raises
    ValueError on anything else, zero, NaN or infinity."""
    m = _DURATION.match(str(text))
    if not m:
        raise ValueError(f"not a duration: {text!r} (write e.g. 2s or 500ms)")
    value = float(m.group(1)) * _UNIT_S[(m.group(2) or "s").lower()]
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"a duration must be more than zero: {text!r}")
    return value


def concurrency_levels(max_concurrency: int) -> tuple[int, ...]:
    """1, 2, 4, ... below the maximum, then the maximum itself."""
    top = max(1, min(int(max_concurrency), MAX_CONCURRENCY_LIMIT))
    levels, c = [], 1
    while c < top:
        levels.append(c)
        c *= 2
    return tuple(levels) + (top,)


def rounds_at(concurrency: int, min_samples: int = MIN_SAMPLES) -> int:
    """Rounds (bursts of `concurrency` streams released together) to reach `min_samples`."""
    return max(1, math.ceil(min_samples / concurrency))


def about(seconds_: float) -> str:
    """A planned duration as a person says it: 45 s, 3 min, 1.5 min."""
    if seconds_ < 90:
        return f"{max(1, round(seconds_))} s"
    return f"{round(seconds_ / 60, 1):g} min"


@dataclass(frozen=True)
class SweepPlan:
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    token_budget: int = DEFAULT_TOKEN_BUDGET
    deadline_s: float = 60.0
    ttft_target_s: float = DEFAULT_TTFT_TARGET_S
    max_tokens: int = SWEEP_OUTPUT_TOKENS
    itl_target_s: float | None = None   # the headroom's second target (p95 ITL), when asked
    min_samples: int = MIN_SAMPLES
    # The default plan (no --max-concurrency given): once the first request is measured, it
    # is cut down to what fits the deadline (fitted). An explicit plan is kept, and told.
    fit_to_deadline: bool = False
    estimate_s: float | None = None     # what the plan should take, from the first measured request

    @property
    def levels(self) -> tuple[int, ...]:
        return concurrency_levels(self.max_concurrency)

    @property
    def requests(self) -> int:
        """Requests of the whole sweep, the warm-up not counted."""
        return sum(c * rounds_at(c, self.min_samples) for c in self.levels)

    def needs_s(self, request_s: float, slots: int | None) -> float:
        """What the plan's requests take when one request takes `request_s` alone: a round of
        c streams on s slots is ceil(c/s) requests one after another (streams beyond the slots
        wait for a whole request). Unknown slots count as one: the estimate errs long, so a
        plan sized by it fits; on a batching server sharing slows each step a little, which
        the deadline check before every round still covers."""
        per = max(1, slots or 1)
        return sum(rounds_at(c, self.min_samples) * math.ceil(c / per) * request_s for c in self.levels)

    def fitted(self, request_s: float, slots: int | None, room_s: float) -> "SweepPlan":
        """The largest plan that fits `room_s` seconds (FIT_SHARE of it): all levels with fewer
        requests each first (down to FIT_MIN_SAMPLES), then fewer levels; the smallest one
        when nothing fits (the line then says so). Its `estimate_s` is set."""
        from dataclasses import replace

        levels = self.levels
        tops = [c for c in reversed(levels) if levels.index(c) + 1 >= min(FIT_MIN_LEVELS, len(levels))]
        smallest = None
        for top in tops:
            for n in range(self.min_samples, FIT_MIN_SAMPLES - 1, -1):
                cand = replace(self, max_concurrency=top, min_samples=n)
                need = cand.needs_s(request_s, slots)
                smallest = replace(cand, estimate_s=round(need, 1))
                if need <= FIT_SHARE * room_s:
                    return smallest
        return smallest or replace(self, estimate_s=round(self.needs_s(request_s, slots), 1))

    def summary(self) -> str:
        """"1, 2, 4 streams, at least 4 requests each (12 requests), about 40 s"."""
        text = (f"{', '.join(str(c) for c in self.levels)} stream{'s' if self.levels != (1,) else ''}, "
                f"at least {self.min_samples} request{'s' if self.min_samples > 1 else ''} each "
                f"({self.requests} requests)")
        return text + (f", about {about(self.estimate_s)}" if self.estimate_s is not None else "")

    def raise_deadline(self, spent_s: float = 0.0) -> str:
        """How to let the whole plan run: the --deadline it needs, or the levels to drop."""
        if self.estimate_s is None:
            return "raise --deadline or lower --max-concurrency"
        need = math.ceil((spent_s + self.estimate_s / FIT_SHARE) / 10) * 10
        if need > MAX_DEADLINE_S:
            return (f"it needs about {about(spent_s + self.estimate_s)}, more than --deadline's "
                    f"{MAX_DEADLINE_S:g} s: lower --max-concurrency")
        return f"raise --deadline to {need}" + ("" if self.fit_to_deadline else " or lower --max-concurrency")

    @property
    def token_bound(self) -> int:
        """The most output tokens the whole plan could generate, warm-up included."""
        return WARMUP_TOKENS + self.requests * self.max_tokens

    def describe(self, where: str) -> str:
        levels = ", ".join(str(c) for c in self.levels)
        text = (f"sweep will send to {where}: one warm-up, then {self.requests} streaming requests at "
                f"{levels} concurrent streams (released together, each level repeated to at least "
                f"{MIN_SAMPLES} requests), <= {self.max_tokens} output tokens each, fixed harmless prompt "
                f"({SWEEP_PROMPT!r}); "
                f"token budget {self.token_budget} output tokens, deadline {self.deadline_s:g} s, "
                f"TTFT target {seconds(self.ttft_target_s)}"
                + (f", ITL target {seconds(self.itl_target_s)}" if self.itl_target_s else ""))
        if self.fit_to_deadline:
            text += "; the first request's time sizes the plan to the deadline"
        if self.token_bound > self.token_budget:
            text += (f"; the whole plan could use {self.token_bound} tokens, so the budget may stop it "
                     f"before the last level")
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"max_concurrency": self.max_concurrency, "levels": list(self.levels),
                "requests": self.requests, "max_tokens": self.max_tokens,
                "token_budget": self.token_budget, "token_bound": self.token_bound,
                "deadline_s": self.deadline_s, "ttft_target_s": self.ttft_target_s,
                "itl_target_s": self.itl_target_s, "min_samples": self.min_samples,
                "fit_to_deadline": self.fit_to_deadline, "estimate_s": self.estimate_s}


def sweep_prompt() -> str:
    """The sweep's fixed prompt, behind the probe's marker (a unique prefix: no cache serves it)."""
    return f"{prompts.marker()} {SWEEP_PROMPT}"


def seconds(v: float) -> str:
    """A duration as a person writes it: 500ms, 2s, 1.5s."""
    return f"{v * 1000:.0f}ms" if v < 1 else f"{v:g}s"


def duration(v: float | None) -> str:
    """A TTFT or ITL as the sweep table and its verdict lines print it."""
    if v is None:
        return "-"
    return f"{v * 1000:.1f}ms" if v < 0.1 else f"{v:.2f}s" if v < 10 else f"{v:.1f}s"


@dataclass(frozen=True)
class SweepLevel:
    """One concurrency level: every request sent at it, in order."""

    concurrency: int
    samples: tuple[StreamSample, ...] = ()
    complete: bool = True  # False: the sweep stopped inside this level

    def to_dict(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "complete": self.complete,
                "samples": [s.to_dict() for s in self.samples]}


@dataclass(frozen=True)
class SweepResult:
    url: str
    engine: str
    model: str
    plan: SweepPlan
    slots: int | None = None
    levels: tuple[SweepLevel, ...] = ()
    warmup: StreamSample | None = None
    stopped_by: str = COMPLETE
    tokens_used: int = 0
    wall_s: float = 0.0
    started_at: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def partial(self) -> bool:
        """Stopped before its plan was done (a stop after failures has its answer)."""
        return self.stopped_by in (BY_DEADLINE, BY_BUDGET, BY_INTERRUPT)

    @property
    def requests_sent(self) -> int:
        return sum(len(level.samples) for level in self.levels)


def output_tokens(sample: StreamSample) -> int:
    """What one request generated: the server's count, else its content chunks."""
    return sample.completion_tokens if sample.completion_tokens is not None else len(sample.chunk_s)


def _count(d: dict, name: str, default: Any = None) -> Any:
    v = d.get(name, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{name!r} must be a number >= 0, not {v!r:.40}")
    return v


def sweep_from_dict(d: Any) -> SweepResult:
    """One entry of a sweep JSON's "sweep" list (what `probe --sweep -f json` and `--save` write)
    back into a result. Raises ValueError, in one line, on anything else."""
    if not isinstance(d, dict):
        raise ValueError("a sweep must be an object")
    plan_d, levels_d, samples_d = d.get("plan"), d.get("levels"), d.get("samples")
    if not isinstance(plan_d, dict) or not isinstance(levels_d, list) or not isinstance(samples_d, list):
        raise ValueError("a sweep needs 'plan' (an object), 'levels' and 'samples' (lists)")
    itl = _count(plan_d, "itl_target_s")
    estimate = _count(plan_d, "estimate_s")
    plan = SweepPlan(max_concurrency=int(_count(plan_d, "max_concurrency", DEFAULT_MAX_CONCURRENCY)),
                     token_budget=int(_count(plan_d, "token_budget", DEFAULT_TOKEN_BUDGET)),
                     deadline_s=float(_count(plan_d, "deadline_s", 60.0)),
                     ttft_target_s=float(_count(plan_d, "ttft_target_s", DEFAULT_TTFT_TARGET_S)) or DEFAULT_TTFT_TARGET_S,
                     max_tokens=int(_count(plan_d, "max_tokens", SWEEP_OUTPUT_TOKENS)),
                     itl_target_s=float(itl) if itl else None,
                     min_samples=max(1, int(_count(plan_d, "min_samples", MIN_SAMPLES))),
                     fit_to_deadline=plan_d.get("fit_to_deadline") is True,
                     estimate_s=float(estimate) if estimate is not None else None)
    samples = [StreamSample.from_dict(s) for s in samples_d]
    levels = []
    for lv in levels_d:
        if not isinstance(lv, dict):
            raise ValueError("a sweep level must be an object")
        c = int(_count(lv, "concurrency", 0))
        if c < 1:
            raise ValueError("a sweep level needs a 'concurrency' of 1 or more")
        mine = tuple(s for s in samples if s.scenario == f"sweep-{c}")
        levels.append(SweepLevel(c, mine, complete=lv.get("complete") is not False))
    slots = _count(d, "slots")
    return SweepResult(str(d.get("url") or ""), str(d.get("engine") or ""), str(d.get("model") or ""), plan,
                       int(slots) if slots else None, tuple(levels), stopped_by=str(d.get("stopped_by") or ""),
                       tokens_used=int(_count(d, "tokens_used", 0)), wall_s=float(_count(d, "wall_s", 0.0)),
                       started_at=str(d.get("started_at") or ""),
                       notes=tuple(str(n) for n in d.get("notes") or () if isinstance(n, str)))


def sweeps_from_json(text: str) -> list[SweepResult]:
    """Every sweep in a saved sweep JSON (the report with its "sweep" list). ValueError says why not."""
    import json

    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not JSON ({str(e).splitlines()[0][:80]})") from None
    listed = doc.get("sweep") if isinstance(doc, dict) else None
    if not isinstance(listed, list) or not listed:
        raise ValueError("no \"sweep\" list in it: save one with `llmdoctor probe URL --sweep --save sweep.json`")
    try:
        return [sweep_from_dict(s) for s in listed]
    except (TypeError, OverflowError, RecursionError) as e:
        raise ValueError(f"a sweep that is not what llmdoctor writes ({type(e).__name__})") from None
