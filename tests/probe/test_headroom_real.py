"""Headroom, backtest and what-if on the REAL llama.cpp server (xllamacpp) with the medium tiny
model, at 1 and 4 slots (the setup of tests/probe/test_sweep_real.py: one thread per server on a
shared 2-core machine, 256 output tokens, 12 requests and 4 streams at most per sweep, a token
budget and a deadline).

What is asserted comes from the data measured, not from fixed times:
- the backtest (level 4 held out, predicted from 1 and 2) misses by no more than the trust
  threshold or twice the noise the sweep itself shows (how far the single-stream TTFTs and the
  streams' median ITLs stray from their median), whichever is larger;
- the what-if from the 1-slot sweep to -np 4 goes the right way (more streams, a higher rate) and
  its stated range (free to serial batching, widened by the band) holds the p50 TTFT measured at
  each level of the real 4-slot sweep.
A sweep is retried at most twice when the machine's noise blurs it.
"""
import os
import shutil
from pathlib import Path

import pytest

from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.sweep import SweepRunner
from llmdoctor.judge.probe.sweep import judge_sweep
from llmdoctor.judge.probe.whatif import parse_setting, what_if
from llmdoctor.judge.thresholds import HEADROOM_TRUST_ERROR
from llmdoctor.knowledge.probe.service import burst, level_point, usable_levels
from llmdoctor.knowledge.probe.stats import p50
from llmdoctor.knowledge.probe.sweep import SweepPlan, sweeps_from_json
from tests.support.llamaserver import running_llama_server
from tests.support.schema import report_doc
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(1200)]
TRIES = 3
PLAN = SweepPlan(max_concurrency=4, token_budget=3200, deadline_s=180, ttft_target_s=2.0, max_tokens=256,
                 itl_target_s=0.25)
RECORD = os.environ.get("LLMDOCTOR_RECORD_SWEEPS")  # a directory: keep the real sweeps (fixtures)


def noise(result) -> float:
    """How far single-stream TTFTs and per-stream median ITLs stray from their median (relative)."""
    levels = usable_levels(result)
    ttfts = [s.ttft_s for s in levels[0].samples]
    itls = [p50(s.itl) for lv in levels[:2] for s in lv.samples]
    return max(max(abs(x / p50(xs) - 1) for x in xs) for xs in (ttfts, itls))


def sweep(url, name, tmp_path):
    from llmdoctor import __version__
    from llmdoctor.model import Report
    from llmdoctor.render.sweep import SweepView, sweep_json

    v = judge_sweep(SweepRunner(detect(url), PLAN).run())
    assert not v.result.partial and v.result.requests_sent == 12, v.result.notes
    text = sweep_json(SweepView(Report(__version__), (v,)))
    report_doc(text)
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    if RECORD:
        shutil.copy(path, Path(RECORD) / f"sweep_llamaserver_{name}.json")
    (back,) = sweeps_from_json(text)  # what `plan --from` reads
    return v, back


def predicted_well(v, tol_of) -> bool:
    h = v.headroom
    return h.backtest is not None and h.backtest.error <= tol_of(v.result)


def tolerance(result) -> float:
    return max(HEADROOM_TRUST_ERROR, 2 * noise(result))


@pytest.fixture(scope="module")
def model():
    return tiny_gguf("medium")


def test_headroom_backtest_and_what_if_from_one_slot_to_four(model, tmp_path):
    with running_llama_server(model, n_parallel=1, n_ctx=2048, n_threads=1) as url:
        for _ in range(TRIES):
            one, one_back = sweep(url, "np1", tmp_path)
            if predicted_well(one, tolerance):
                break
    with running_llama_server(model, n_parallel=4, n_ctx=8192, n_threads=1) as url:
        for _ in range(TRIES):
            four, _ = sweep(url, "np4", tmp_path)
            if predicted_well(four, tolerance):
                break
    for v in (one, four):
        h, tol = v.headroom, tolerance(v.result)
        print(f"slots {v.result.slots}: backtest error {h.backtest.error:.2f} (tolerance {tol:.2f}), "
              f"predicted {h.backtest.predicted}, measured {h.backtest.measured}")
        assert h.model.slots == v.result.slots
        assert h.backtest.concurrency == 4 and h.backtest.fitted_on == (1, 2)
        assert h.backtest.error <= tol, (h.backtest, tol)
        if h.trusted:
            assert h.users.low <= h.users.value <= h.users.high

    w = what_if(one_back, (parse_setting("-np=4"),), one.headroom.targets)
    assert w.slots_before == 1 and w.slots_after == 4 and w.after is not None, w.why
    serial, free = w.ends
    band = w.after.band
    for lv in usable_levels(four.result):
        measured = level_point(lv).ttft_p50_s
        lo = burst(free, lv.concurrency).ttft(50) * (1 - max(band, tolerance(four.result)))
        hi = burst(serial, lv.concurrency).ttft(50) * (1 + max(band, tolerance(four.result)))
        print(f"-np 4 at {lv.concurrency} streams: p50 TTFT {measured:.3f}s measured, {lo:.3f}-{hi:.3f}s stated")
        assert lo <= measured <= hi, (lv.concurrency, lo, measured, hi)
    if w.after.trusted and one.headroom.trusted:  # the direction: four slots carry more than one
        assert w.after.users.value >= one.headroom.users.value
        assert w.after.rate_rps.value > one.headroom.rate_rps.value
    if w.after.trusted and four.headroom.trusted:  # the stated range holds what the 4-slot sweep's own fit says
        assert w.after.users.low <= four.headroom.users.value <= w.after.users.high
        assert w.after.rate_rps.low <= four.headroom.rate_rps.value <= w.after.rate_rps.high

    from llmdoctor.render.sweep import headroom_lines
    from llmdoctor.render.whatif import WhatIfView, whatif_text

    print("\n".join(headroom_lines(one.headroom)))
    print("\n".join(headroom_lines(four.headroom)))
    print(whatif_text(WhatIfView((w,), "np1.json")))
