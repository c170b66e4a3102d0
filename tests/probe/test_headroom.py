"""The service model, its fit, its simulation and the headroom on synthetic sweeps with known
parameters (tests/probe/synthetic_sweep.py steps a server token by token), and on garbage."""
import json
import math

import pytest

from llmdoctor.judge.probe.headroom import Targets, backtest, judge_headroom, max_rate, max_users
from llmdoctor.judge.probe.sweep import judge_sweep
from llmdoctor.knowledge.probe.service import (FitError, ServiceModel, at_rate, burst, fit, least_squares,
                                               nonneg_line, poisson_arrivals, simulate, weighted_percentile)
from llmdoctor.knowledge.probe.sweep import sweeps_from_json
from llmdoctor.render.sweep import SweepView, headroom_lines, sweep_json
from tests.probe.synthetic_sweep import synthetic_sweep
from tests.support.schema import report_doc

TRUE = dict(overhead=0.02, k=0.002, prompt=20, d0=0.01, d1=0.002, out=64)


def close(a, b, rel=0.05, abs_=1e-4):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


@pytest.mark.parametrize("slots,tell", [(1, True), (1, False), (4, True), (4, False), (256, False)])
def test_the_fit_recovers_the_parameters_of_a_noiseless_server(slots, tell):
    r = synthetic_sweep(slots=slots, tell_slots=tell, **TRUE)
    m = fit(r, slots=r.slots)
    assert m.slots == (None if slots == 256 else slots)
    assert close(m.overhead_s, 0.02) and close(m.prefill_s_per_token, 0.002) and close(m.step_s(1), 0.012)
    if slots > 1:  # one slot never batches: the step's slope cannot be seen, only the step of one
        assert close(m.decode_s, 0.01) and close(m.decode_s_per_seq, 0.002)
    assert m.prompt_tokens == 20 and m.output_tokens == 64


def test_the_fit_stays_close_on_a_noisy_server_and_the_backtest_trusts_it():
    r = synthetic_sweep(slots=4, tell_slots=False, noise=0.15, seed=3, **TRUE)
    m = fit(r)
    assert m.slots == 4
    assert close(m.decode_s, 0.01, rel=0.25) and close(m.decode_s_per_seq, 0.002, rel=0.3)
    h = judge_headroom(r, Targets(1.0, 0.05))
    assert h.trusted and h.backtest.concurrency == 8 and h.backtest.fitted_on == (1, 2, 4)
    assert h.backtest.error < 0.2
    assert h.users.low <= h.users.value <= h.users.high
    assert h.rate_rps.low <= h.rate_rps.value <= h.rate_rps.high


def test_one_slot_is_one_at_a_time_service():
    m = ServiceModel(1, 0.0, 0.001, 0.01, 0.0, 10, 11)
    o = burst(m, 3)
    one = 10 * 0.001 + 10 * 0.01  # prefill, then ten decode steps
    assert [round(t, 6) for t in sorted(o.ttft_s)] == [round(0.01 + i * one, 6) for i in range(3)]
    assert close(o.end_s, 3 * one) and o.itl_q(50) == pytest.approx(0.01)


def test_continuous_batching_shares_the_steps():
    m = ServiceModel(8, 0.0, 0.001, 0.01, 0.005, 10, 5)
    o = burst(m, 4)
    assert all(t == pytest.approx(0.04) for t in o.ttft_s)   # four prompts prefilled in one step
    assert o.itl_q(50) == pytest.approx(0.01 + 4 * 0.005)     # then steps of a batch of 4
    assert o.end_s == pytest.approx(0.04 + 4 * 0.03)


def test_the_simulation_is_deterministic_bounded_and_monotone_in_the_rate():
    m = ServiceModel(2, 0.01, 0.001, 0.01, 0.002, 20, 32)
    assert poisson_arrivals(3.0, 50, seed=1) == poisson_arrivals(3.0, 50, seed=1)
    assert len(simulate(m, [0.0] * 10 ** 6).ttft_s) == 2000
    p95 = [at_rate(m, r).ttft(95) for r in (1, 3, 6, 12)]
    assert p95 == sorted(p95)


def test_users_and_rate_searches_meet_the_targets_and_fail_beyond():
    m = ServiceModel(4, 0.02, 0.002, 0.01, 0.002, 20, 64)
    t = Targets(1.0, 0.05)
    users, more = max_users(m, t)
    assert users >= 1 and not more
    assert t.met(burst(m, users)) and not t.met(burst(m, users + 1))
    rate = max_rate(m, t)
    assert t.met(at_rate(m, rate)) and not t.met(at_rate(m, rate * 1.1))
    assert max_users(m, Targets(0.001)) == (0, False)  # a single stream misses it


def test_a_bad_backtest_is_not_trusted_and_gives_no_number():
    r = synthetic_sweep(slots=4, **TRUE)
    # the top level twice as slow as the server below it could be: nothing fitted on 1, 2, 4 sees it
    top = r.levels[-1]
    slow = tuple(type(s)(**{**s.__dict__, "ttft_s": s.ttft_s * 3, "chunk_s": tuple(x * 3 for x in s.chunk_s)})
                 for s in top.samples)
    r = type(r)(**{**r.__dict__, "levels": r.levels[:-1] + (type(top)(top.concurrency, slow),)})
    h = judge_headroom(r, Targets(2.0))
    assert not h.trusted and h.users is None and h.backtest.error > 0.35
    text = "\n".join(headroom_lines(h))
    assert "not to be trusted" in text and "Backtest: 8 streams held out" in text


def test_too_few_levels_say_so():
    r = synthetic_sweep(slots=1, max_c=2, **TRUE)
    h = judge_headroom(r, Targets(2.0))
    assert not h.trusted and backtest(r) is None and "a backtest needs 3" in h.why


def test_least_squares_by_hand():
    assert least_squares([1, 2, 3], [3, 5, 7]) == pytest.approx((1.0, 2.0))
    assert least_squares([2, 2], [1, 3]) == (2.0, 0.0)
    assert nonneg_line([1, 2, 3], [3, 2, 1]) == (2.0, 0.0)  # time never shrinks with load
    assert weighted_percentile([(1.0, 9), (5.0, 1)], 50) == 1.0 and weighted_percentile([], 50) is None
    with pytest.raises(FitError):
        least_squares([], [])


def test_the_sweep_json_round_trips_with_its_headroom_in_the_schema():
    r = synthetic_sweep(slots=1, noise=0.05, **TRUE)
    v = judge_sweep(r)
    from llmdoctor import __version__
    from llmdoctor.model import Report

    text = sweep_json(SweepView(Report(__version__), (v,)))
    doc = report_doc(text)
    (s,) = doc["sweep"]
    assert s["headroom"]["trusted"] and s["headroom"]["backtest"]["concurrency"] == 8
    assert s["headroom"]["model"]["slots"] == 1
    (back,) = sweeps_from_json(text)
    assert judge_sweep(back).headroom.users == v.headroom.users


@pytest.mark.parametrize("text,why", [
    ("", "not JSON"), ("[1, 2]", "no \"sweep\""), ('{"sweep": []}', "no \"sweep\""),
    ('{"sweep": [1]}', "must be an object"), ('{"sweep": [{"plan": {}, "levels": [], "samples": {}}]}', "lists"),
    ('{"sweep": [{"plan": {"max_tokens": -1}, "levels": [], "samples": []}]}', "max_tokens"),
    ('{"sweep": [{"plan": {}, "levels": [{"concurrency": "x"}], "samples": []}]}', "concurrency"),
    ('{"sweep": [{"plan": {}, "levels": [], "samples": [{"id": 1}]}]}', "sample"),
    ('{"sweep": [{"plan": {}, "levels": [], "samples": [{"id": "a", "scenario": "s", "chunk_s": [NaN]}]}]}', "chunk_s"),
])
def test_a_broken_sweep_json_is_one_clear_message(text, why):
    with pytest.raises(ValueError, match=why):
        sweeps_from_json(text)


def test_garbage_sweeps_never_crash_the_fit():
    import random

    rng = random.Random(5)
    good = json.loads(sweep_json(SweepView(__import__("llmdoctor.model", fromlist=["Report"]).Report("x"),
                                           (judge_sweep(synthetic_sweep(slots=2, max_c=4, **TRUE)),))))
    for _ in range(60):
        doc = json.loads(json.dumps(good))
        for s in rng.sample(doc["sweep"][0]["samples"], 3):
            key = rng.choice(["ttft_s", "chunk_s", "prompt_tokens", "status", "sent_s"])
            s[key] = rng.choice([None, 0, -1, [], "x", 1e9, [0.0, 0.0, 0.0]])
        try:
            (r,) = sweeps_from_json(json.dumps(doc))
        except ValueError:
            continue
        judge_sweep(r)  # any headroom or a reason, never a traceback


# -- what-if -----------------------------------------------------------------------------------

def test_what_if_settings_parse_and_garbage_is_refused():
    from llmdoctor.judge.probe.whatif import CACHE_TYPE, CONTEXT, SLOTS, parse_setting

    assert parse_setting("OLLAMA_NUM_PARALLEL=4").kind == SLOTS and parse_setting("-np 4").value == 4
    assert parse_setting("--max-running-requests=16").value == 16
    assert parse_setting("--max-model-len 32768").kind == CONTEXT
    assert parse_setting("OLLAMA_KV_CACHE_TYPE=q8_0").kind == CACHE_TYPE
    for bad in ("", "=", "FOO=1", "-np", "-np=x", "-np=0", "-np=99999", "--kv-cache-dtype=int3"):
        with pytest.raises(ValueError, match="--what-if"):
            parse_setting(bad)


def test_what_if_more_slots_predicts_more_headroom_and_spans_the_unknown_batching():
    from llmdoctor.judge.probe.whatif import parse_setting, what_if

    one = synthetic_sweep(slots=1, **TRUE)
    w = what_if(one, (parse_setting("-np=4"),), Targets(2.0))
    assert w.slots_before == 1 and w.slots_after == 4 and w.after.trusted
    assert w.after.users.value > w.before.users.value and w.after.rate_rps.value > w.before.rate_rps.value
    truth = judge_headroom(synthetic_sweep(slots=4, max_c=16, **TRUE), Targets(2.0))  # the server with 4 slots
    assert w.after.users.low <= truth.users.value <= w.after.users.high
    assert any("never batched" in n for n in w.after.notes)


def test_what_if_kv_arithmetic_spill_and_split():
    from llmdoctor.judge.probe.whatif import KvArith, parse_setting, what_if

    r = synthetic_sweep(slots=1, engine="ollama", tell_slots=False, **TRUE)
    kv = KvArith({"f16": 1000, "q8_0": 500}, budget_bytes=10_000_000, context=4096)
    fits = what_if(r, (parse_setting("OLLAMA_NUM_PARALLEL=2"),), Targets(2.0), kv)
    assert fits.after is not None and any("of the" in n for n in fits.notes)
    spill = what_if(r, (parse_setting("OLLAMA_NUM_PARALLEL=4"),), Targets(2.0), kv)  # 16k tokens x 1000 B > 10 MB
    assert spill.after is None and "CPU_SPILL" in spill.why
    q8 = what_if(r, (parse_setting("OLLAMA_NUM_PARALLEL=4"), parse_setting("OLLAMA_KV_CACHE_TYPE=q8_0")),
                 Targets(2.0), kv)
    assert q8.after is not None  # half the bytes: it fits again
    split = what_if(synthetic_sweep(slots=1, **TRUE), (parse_setting("-np 8"), parse_setting("-c 512")), Targets(2.0))
    assert split.after is None and "64 tokens a slot" in split.why
    pool = what_if(synthetic_sweep(slots=2, engine="vllm", **TRUE), (parse_setting("--max-num-seqs=64"),),
                   Targets(2.0), KvArith({"f16": 1000}, 840_000, 4096))
    assert pool.after.model.kv_seqs == 10 and pool.after.model.capacity == 10  # the pool holds 10 of 84 tokens


def test_the_html_page_draws_measured_points_the_fitted_curve_and_the_target():
    pytest.importorskip("matplotlib")
    import dataclasses

    from llmdoctor.model import Report
    from llmdoctor.render import render

    r = synthetic_sweep(slots=2, noise=0.05, **TRUE)
    r = dataclasses.replace(r, plan=dataclasses.replace(r.plan, itl_target_s=0.03))
    page = render(SweepView(Report("x"), (judge_sweep(r),)), "html")
    assert page.count('<svg role="img" aria-label="sweep headroom"') == 1
    assert "<script" not in page.lower() and "Backtest: 8 streams held out" in page
    assert "Points: what each level measured. Lines: what the model" in page
