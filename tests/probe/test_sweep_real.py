"""`probe --sweep` against the REAL llama.cpp server (xllamacpp) with the medium tiny model:
the knee moves with the slots. Behind one slot the second of two streams waits for the
whole first one, so p50 TTFT at 2 streams climbs by half a stream (256 tokens: 1-2.5 s) and
the knee is at 2; with four slots two streams are prefilled together (about twice one
prompt on a CPU: below the 3x of the rule) and the climb comes at 4 or not at all.

2 cores shared with other work: the servers run one thread each (two threads that wait for
each other at every step are 5-10x slower when the cores are overcommitted: measured 1.5 s
against 15 s for one 64-token stream); 256 output tokens behind a ~43-token prompt keep half
a stream's decode (9-19 ms a token here) well above 2x the single stream's TTFT (prefill at
~6 ms a token) and its noise, and a sweep is retried at most twice when the
machine's noise blurs it. Bounded: 12 requests and 4 streams at most per sweep, a token
budget and a deadline.
"""
import math

import pytest

from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.sweep import SweepRunner
from llmdoctor.judge.probe.sweep import judge_sweep
from llmdoctor.knowledge.probe.sweep import SweepPlan
from tests.support.llamaserver import running_llama_server
from tests.support.schema import report_doc
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(900)]
TRIES = 3
PLAN = SweepPlan(max_concurrency=4, token_budget=3200, deadline_s=180, ttft_target_s=2.0, max_tokens=256)


@pytest.fixture(scope="module")
def model():
    return tiny_gguf("medium")


def sweep(url):
    v = judge_sweep(SweepRunner(detect(url), PLAN).run())
    assert not v.result.partial, v.result.notes
    assert v.result.requests_sent == PLAN.requests == 12
    assert v.result.tokens_used <= PLAN.token_budget
    assert all(s.failed == 0 and s.ok == 4 and s.itl_p50_s for s in v.levels), v.levels
    return v


def at(v):
    return math.inf if v.knee.concurrency is None else v.knee.concurrency


def test_the_knee_with_one_slot_is_lower_than_with_four(model):
    with running_llama_server(model, n_parallel=1, n_ctx=2048, n_threads=1) as url:
        for _ in range(TRIES):
            one = sweep(url)
            if at(one) == 2:
                break
    with running_llama_server(model, n_parallel=4, n_ctx=8192, n_threads=1) as url:
        for _ in range(TRIES):
            four = sweep(url)
            if at(four) > 2:
                break
    assert one.result.slots == 1 and four.result.slots == 4
    assert at(one) == 2, one.levels
    assert at(four) > 2, four.levels
    assert at(one) < at(four)
    # queueing shows in TTFT, not in the pace of each stream: ITL stays put behind one slot
    ttft1 = [s.ttft_p50_s for s in one.levels]
    assert ttft1 == sorted(ttft1) and ttft1[-1] > 3 * ttft1[0]
    assert one.users.users is not None and four.users.users is not None

    from llmdoctor import __version__
    from llmdoctor.model import Report
    from llmdoctor.render.sweep import SweepView, sweep_json, sweep_text

    view = SweepView(Report(__version__), (one, four))
    doc = report_doc(sweep_json(view))
    assert [s["knee"]["concurrency"] for s in doc["sweep"]] == [one.knee.concurrency, four.knee.concurrency]
    text = sweep_text(view, 80)
    assert "Knee: 2 streams" in text and max(len(line) for line in text.splitlines()) <= 80
    print(text)  # the real outputs, for `pytest -s`
    print([[round(s.ttft_s, 3) for s in level.samples] for v in (one, four) for level in v.result.levels])


def test_the_default_plan_is_cut_to_the_deadline_on_a_real_server(model):
    """The default plan (1, 2, 4, 8 streams x 4 = 20 requests behind one slot) timed by its first real
    request and cut to a 20 s deadline: one line says the cut plan before the second request, and it
    fits (or, where the machine's noise slows a later round past the estimate, the deadline stop says
    the --deadline the plan needs). Bounded: at most the 20 s deadline of requests. (20 s, not 30:
    on a quiet machine a request took 1.3 s, and the whole plan, 26 s, fitted 30 s uncut.)"""
    said = []
    deadline = 20
    plan = SweepPlan(deadline_s=deadline, ttft_target_s=2.0, fit_to_deadline=True)
    with running_llama_server(model, n_parallel=1, n_ctx=2048, n_threads=1) as url:
        target = detect(url)
        result = SweepRunner(target, plan, announce=said.append).run()
    assert target.slots == 1
    (line,) = said
    assert line.startswith("plan: ") and "(one request took" in line and "1 slot)" in line, line
    assert result.plan.estimate_s is not None and result.plan.requests < plan.requests, line
    assert "was cut to fit" in line and any(f"cut to fit the {deadline} s deadline" in n for n in result.notes)
    assert result.wall_s < deadline + 5
    if result.partial:  # a later round ran slower than the first request said
        assert result.stopped_by == "deadline" and any("raise --deadline to" in n for n in result.notes), result.notes
    else:
        assert result.requests_sent == result.plan.requests
    print(line, result.wall_s, result.notes)  # for `pytest -s`
