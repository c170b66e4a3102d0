"""The sweep's pure parts: the plan, durations, the knee rule and the users within target
(llmdoctor/judge/probe/sweep.py says the rules), with hypothesis for their properties."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.judge.probe.sweep import KNEE_FACTOR, KNEE_FLOOR_S, LevelStats, judge_sweep, knee, users_within
from llmdoctor.knowledge.probe.result import INTERRUPTED, TIMEOUT, StreamSample
from llmdoctor.knowledge.probe.sweep import (MIN_SAMPLES, SweepLevel, SweepPlan, SweepResult, concurrency_levels,
                                             parse_duration, rounds_at)

LEVELS = (1, 2, 4, 8, 16)


def stats(p50s, p95s=None, failed=()):
    p95s = p95s or p50s
    return [LevelStats(c, 4, 4 - (c in failed), int(c in failed), a, b, 0.01, 0.02)
            for c, a, b in zip(LEVELS, p50s, p95s)]


def test_levels_double_up_to_the_maximum():
    assert concurrency_levels(8) == (1, 2, 4, 8)
    assert concurrency_levels(6) == (1, 2, 4, 6)
    assert concurrency_levels(1) == (1,)
    assert concurrency_levels(1000) == (1, 2, 4, 8, 16, 32)
    assert [rounds_at(c) for c in (1, 2, 4, 8)] == [4, 2, 1, 1]


def test_plan_states_what_it_sends():
    assert SweepPlan().max_tokens == 128 and SweepPlan().token_bound <= SweepPlan().token_budget
    plan = SweepPlan(max_concurrency=8, token_budget=1000, deadline_s=30, ttft_target_s=0.5, max_tokens=64)
    assert plan.requests == 4 + 4 + 4 + 8
    assert plan.token_bound == 8 + 20 * 64
    text = plan.describe("http://x:1")
    for part in ("20 streaming requests", "1, 2, 4, 8 concurrent streams", "<= 64 output tokens",
                 "token budget 1000", "deadline 30 s", "TTFT target 500ms", "may stop it"):
        assert part in text


@pytest.mark.parametrize("text,seconds", [("2s", 2.0), ("500ms", 0.5), ("1.5", 1.5), (" 2 s ", 2.0),
                                          ("1m", 60.0), ("250MS", 0.25), (".5s", 0.5)])
def test_durations_take_units(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "2h", "nan", "inf", "-1s", "0", "0ms", "two", "2 s s", "1e999"])
def test_bad_durations_are_refused(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_queueing_behind_one_slot_has_its_knee_at_2():
    # one slot: the k-th of c streams waits k-1 whole streams (0.5 s each)
    k = knee(stats([0.05, 0.30, 0.80, 1.80]))
    assert k.concurrency == 2 and k.baseline_s == 0.05
    assert k.threshold_s == pytest.approx(max(KNEE_FACTOR * 0.05, 0.05 + KNEE_FLOOR_S))


def test_four_slots_climb_after_4_and_a_flat_server_has_no_knee():
    assert knee(stats([0.05, 0.06, 0.08, 0.60])).concurrency == 8
    # a CPU's batched prefill: ~c times one prompt (measured 0.19 s, 0.47 s, 1.19 s on -np 4)
    assert knee(stats([0.19, 0.47, 1.19])).concurrency == 4
    flat = knee(stats([0.05, 0.06, 0.07, 0.09]))
    assert flat.concurrency is None and flat.tested == 8


def test_the_floor_keeps_a_fast_servers_jitter_from_being_a_knee():
    # 3x of 20 ms is 60 ms: a climb in ratio, none a user feels
    assert knee(stats([0.02, 0.06, 0.06, 0.07])).concurrency is None


def test_single_stream_noise_raises_the_threshold():
    assert knee(stats([0.10, 0.30, 0.40, 0.90], p95s=[0.50, 0.4, 0.5, 1.0])).concurrency == 8


def test_failed_requests_are_a_knee_and_miss_the_target():
    s = stats([0.05, 0.06, 0.07, 0.09], failed=(4,))
    k = knee(s)
    assert k.concurrency == 4 and k.failed
    u = users_within(s, 2.0)
    assert u.users == 2 and not u.at_least and u.over_at == 4


def test_users_within_the_target():
    s = stats([0.05, 0.3, 0.8, 1.8], p95s=[0.06, 0.5, 1.4, 3.1])
    u = users_within(s, 2.0)
    assert (u.users, u.at_least, u.over_at, u.over_p95_s) == (4, False, 8, 3.1)
    assert users_within(s, 5.0).users == 8 and users_within(s, 5.0).at_least
    assert users_within(s, 0.01).users == 0
    assert users_within([], 2.0).users is None


def test_incomplete_levels_are_left_out():
    s = stats([0.05, 0.06, 5.0])
    s[2] = LevelStats(4, 2, 1, 0, 5.0, 5.0, None, None, complete=False)
    assert knee(s).concurrency is None and knee(s).tested == 2
    assert users_within(s, 2.0).users == 2 and users_within(s, 2.0).at_least


def test_judge_sweep_counts_ok_failed_and_interrupted():
    def ok(i, ttft):
        return StreamSample(f"s{i}", "sweep-1", ttft_s=ttft, chunk_s=(ttft, ttft + 0.01, ttft + 0.03))

    level1 = SweepLevel(1, tuple(ok(i, 0.05) for i in range(4)))
    level2 = SweepLevel(2, (ok(5, 0.4), StreamSample("s6", "sweep-2", status=TIMEOUT, error="x"),
                            ok(7, 0.5), StreamSample("s8", "sweep-2", status=INTERRUPTED)), complete=False)
    v = judge_sweep(SweepResult("u", "llamacpp", "m", SweepPlan(), levels=(level1, level2), stopped_by="deadline"))
    one, two = v.levels
    assert (one.ok, one.failed, one.ttft_p50_s) == (4, 0, 0.05)
    assert one.itl_p50_s == pytest.approx(0.015)
    assert (two.sent, two.ok, two.failed, two.complete) == (4, 2, 1, False)
    assert v.knee.concurrency is None and v.result.partial
    d = v.to_dict()
    assert d["partial"] and d["stopped_by"] == "deadline" and len(d["samples"]) == 8


# -- properties ----------------------------------------------------------------------
ttft = st.floats(min_value=0.001, max_value=30.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(ttft, min_size=2, max_size=5))
def test_monotone_ttft_climbs_once(values):
    """With p50 TTFT non-decreasing in concurrency, every level from the knee on is above the
    threshold and every level before it is not."""
    p50s = sorted(values)
    k = knee(stats(p50s))
    if k.concurrency is None:
        assert all(v <= k.threshold_s for v in p50s[1:])
        return
    i = LEVELS.index(k.concurrency)
    assert all(v <= k.threshold_s for v in p50s[1:i]) and all(v > k.threshold_s for v in p50s[i:])


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0.001, max_value=5.0), st.lists(st.floats(min_value=-1.0, max_value=1.0), min_size=1,
                                                          max_size=4))
def test_noise_within_the_floor_is_never_a_knee(base, noise):
    """Level p50s that stay within KNEE_FLOOR_S of the single stream's never make a knee."""
    p50s = [base] + [max(0.0, base + n * KNEE_FLOOR_S) for n in noise]
    assert knee(stats(p50s)).concurrency is None


@settings(max_examples=300, deadline=None)
@given(st.lists(ttft, min_size=2, max_size=5), st.floats(min_value=1.0, max_value=20.0))
def test_a_uniformly_slower_server_never_has_a_later_knee(values, factor):
    def at(xs):
        c = knee(stats(xs)).concurrency
        return math.inf if c is None else c

    assert at([v * factor for v in values]) <= at(values)


@settings(max_examples=300, deadline=None)
@given(st.lists(ttft, min_size=1, max_size=5), ttft, ttft)
def test_more_patience_carries_at_least_as_many_users(p95s, a, b):
    s = stats(p95s, p95s)
    low, high = sorted((a, b))
    lo, hi = users_within(s, low), users_within(s, high)
    assert lo.users <= hi.users
    assert all(x.ttft_p95_s <= low for x in s if x.concurrency <= lo.users)
    if not lo.at_least:
        assert next(x for x in s if x.concurrency == lo.over_at).ttft_p95_s > low


def test_min_samples_is_what_the_plan_says():
    assert all(c * rounds_at(c) >= MIN_SAMPLES for c in concurrency_levels(32))


def test_fitting_the_default_plan_drops_requests_then_levels():
    from llmdoctor.knowledge.probe.sweep import FIT_MIN_SAMPLES, SweepPlan

    plan = SweepPlan(max_concurrency=8, fit_to_deadline=True)
    # one slot, 2 s a request: a round of c streams takes 2c s; 1, 2, 4, 8 x 4 = 20 requests one by one
    assert plan.needs_s(2.0, 1) == 2.0 * (4 + 4 + 4 + 8)
    assert plan.needs_s(2.0, 8) == 2.0 * (4 + 2 + 1 + 1)  # all streams in slots: one request a round
    roomy = plan.fitted(2.0, 1, 100.0)
    assert roomy.levels == (1, 2, 4, 8) and roomy.min_samples == 4 and roomy.estimate_s == 40.0
    fewer = plan.fitted(2.0, 1, 40.0)  # 36 s usable: 3 a level (19 requests, 38 s) does not fit, 2 does
    assert fewer.levels == (1, 2, 4, 8) and fewer.min_samples == FIT_MIN_SAMPLES
    cut = plan.fitted(2.0, 1, 20.0)
    assert cut.levels == (1, 2, 4) and cut.estimate_s <= 18.0
    tight = plan.fitted(2.0, 1, 1.0)  # nothing fits: the smallest plan, which says how long it needs
    assert tight.levels == (1, 2) and tight.min_samples == FIT_MIN_SAMPLES
    assert tight.raise_deadline() == "raise --deadline to 10"


def test_a_plan_past_the_deadline_limit_says_to_lower_the_concurrency():
    from llmdoctor.knowledge.probe.sweep import SweepPlan

    plan = SweepPlan(max_concurrency=32, estimate_s=900.0)
    assert "more than --deadline's 600 s: lower --max-concurrency" in plan.raise_deadline()
    assert SweepPlan(estimate_s=50.0).raise_deadline(5.0) == "raise --deadline to 70 or lower --max-concurrency"
