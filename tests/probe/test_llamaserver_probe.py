"""The probe against the REAL llama.cpp server (xllamacpp) with the medium tiny model.

2 shared cores: assertions are orderings and ratios, and a burst is retried at most
twice when the machine's noise blurs it. Each server starts once for this module.
"""
import pytest

from llmdoctor.knowledge.probe import prompts
from llmdoctor.knowledge.probe.accuracy import agreement
from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from llmdoctor.judge.probe.verdicts import PROBLEM, queueing
from tests.support.llamaserver import running_llama_server
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(180)]
TRIES = 3  # one burst plus at most two retries


@pytest.fixture(scope="module")
def model():
    return tiny_gguf("medium")


@pytest.fixture(scope="module")
def one_slot(model):
    with running_llama_server(model, n_parallel=1, n_ctx=2048) as url:
        yield url


@pytest.fixture(scope="module")
def four_slots(model):
    with running_llama_server(model, n_parallel=4, n_ctx=8192) as url:
        yield url


def findings(result):
    from llmdoctor.app.diagnose import judge_probe as judge
    from llmdoctor.knowledge.probe.result import ProbeRuns

    return judge(ProbeRuns((result,))).targets[0].findings


def test_detects_llama_server_slots_and_context(four_slots):
    t = detect(four_slots)
    assert t.engine == "llamacpp" and t.slots == 4 and t.slots_source == "/props total_slots"
    assert t.context == 2048  # -c 8192 split across an explicit -np 4
    assert t.rtt_s is not None and t.rtt_s < 0.5


def test_server_fixture_exposes_its_log(one_slot):
    assert one_slot.pid > 0
    assert "n_slots = 1" in one_slot.log_text()  # llama.cpp's own start-up line


def test_one_slot_is_found_queueing(one_slot):
    for _ in range(TRIES):
        r = ProbeRunner(detect(one_slot)).light()
        found = [f for f in findings(r) if f.check == "probe-queueing"]
        if found:
            break
    assert found, f"no QUEUEING on -np 1: {queueing(r)}"
    f = found[0]
    assert f.cause.value == "QUEUEING"
    assert any("overlapped" in e.text for e in f.evidence)
    assert "-np 4" in f.fix.commands[0]
    assert r.requests_sent <= 13 and all(s.completion_tokens <= 20 for s in r.samples if s.completion_tokens)


def test_four_slots_are_not_queueing(four_slots):
    for _ in range(TRIES):
        r = ProbeRunner(detect(four_slots)).light()
        v = queueing(r)
        if v is not None and v.kind != PROBLEM:
            break
    assert v is not None and v.kind != PROBLEM, v
    assert not [f for f in findings(r) if f.check == "probe-queueing"]
    # in a run that streamed together, both first tokens arrive long before either stream ends
    runs = {}
    for s in r.scenario("pair"):
        if s.ok:
            runs.setdefault(s.run, []).append(s)
    pairs = [sorted(p, key=lambda s: s.first_token_at) for p in runs.values() if len(p) == 2]
    assert any(b.first_token_at < a.last_token_at for a, b in pairs), pairs


def test_probe_medians_agree_with_server_timings_within_10_percent(four_slots):
    """TTFT (minus the round trip) vs prompt_ms; ITL vs predicted_per_token_ms
    (llmdoctor/knowledge/probe/accuracy.py says how each side is measured); medians over requests."""
    target = detect(four_slots)
    for _ in range(TRIES):
        runner = ProbeRunner(target)
        reqs = [runner.request(f"acc-{i}", "single", prompts.long_prompt(300), 32) for i in range(4)]
        samples = [runner.run([q])[0] for q in reqs]  # one at a time: an idle server each time
        a = agreement(samples, target.rtt_s)
        if a and a.ttft_error <= 0.10 and a.itl_error <= 0.10:
            break
    assert a is not None and a.samples == 4
    assert a.ttft_error <= 0.10, a
    assert a.itl_error <= 0.10, a


def test_load_mode_names_what_it_sends_and_measures(four_slots):
    from llmdoctor.facts.live_probe.scenarios import describe_load

    target = detect(four_slots)
    text = describe_load(target, None)
    assert "5 concurrent streaming requests" in text and "-token prompt" in text
    r = ProbeRunner(target).load()
    load = r.scenario("load")
    rounds = {s.run for s in load}
    assert rounds <= {1, 2, 3} and len(load) == 5 * len(rounds) and all(s.ok for s in load), r.errors
    assert {s.run for s in r.scenario("load-long")} == rounds
