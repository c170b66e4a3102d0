"""Headroom and what-if from sweeps recorded on the REAL llama-server (tests/fixtures/probe/
sweep_llamaserver_np{1,4}.json) and the REAL vLLM on a CPU (sweep_vllm_seqs{1,4}.json); see the
fixtures' README (no real Ollama sweep was recorded).
Deterministic: the fit and the simulation have no noise of their own, so the figures are pinned
where they follow from the recording, and the what-if from -np 1 to 4 is checked against what
the recorded 4-slot sweep measured and was fitted to."""
import json
import os
import subprocess
import sys
from pathlib import Path

from llmdoctor.judge.probe.sweep import judge_sweep
from llmdoctor.judge.probe.whatif import parse_setting, what_if
from llmdoctor.knowledge.probe.service import burst, level_point, usable_levels
from llmdoctor.knowledge.probe.sweep import sweeps_from_json

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "probe"


def recorded(name):
    (r,) = sweeps_from_json((FIXTURES / f"sweep_llamaserver_{name}.json").read_text())
    return r


def test_recorded_sweeps_fit_and_their_backtests_are_trusted():
    one, four = judge_sweep(recorded("np1")).headroom, judge_sweep(recorded("np4")).headroom
    assert one.trusted and four.trusted
    assert one.model.slots == 1 and four.model.slots == 4
    assert one.backtest.error < 0.2 and four.backtest.error < 0.25
    assert one.users.value == 1 and four.users.value == 4   # the 5th stream waits a whole 256-token answer
    assert 0 < one.rate_rps.value < four.rate_rps.value
    assert four.model.decode_s_per_seq > 0  # one thread on a CPU: the step grows with the batch


def test_what_if_one_slot_to_four_holds_what_four_slots_measured():
    one, four = recorded("np1"), recorded("np4")
    h4 = judge_sweep(four).headroom
    w = what_if(one, (parse_setting("-np=4"),), h4.targets)
    assert w.after.trusted and w.after.users.low <= h4.users.value <= w.after.users.high
    assert w.after.rate_rps.low <= h4.rate_rps.value <= w.after.rate_rps.high
    assert w.after.rate_rps.value > w.before.rate_rps.value  # the direction
    serial, free = w.ends
    for lv in usable_levels(four):
        measured = level_point(lv).ttft_p50_s
        assert burst(free, lv.concurrency).ttft(50) * (1 - w.after.band) <= measured
        assert measured <= burst(serial, lv.concurrency).ttft(50) * (1 + w.after.band)


def test_the_commands_print_it():
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "plan", "--what-if", "-np=4", "--from",
                        str(FIXTURES / "sweep_llamaserver_np1.json"), "--ttft-target", "2s"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "Now, 1 slot (p95 TTFT <= 2s and p95 ITL <= 250ms): 1 concurrent stream released" in p.stdout
    assert "With -np=4, 4 slots" in p.stdout and "Backtest: 4 streams held out, predicted from 1, 2" in p.stdout
    doc = json.loads(subprocess.run([sys.executable, "-m", "llmdoctor", "plan", "--what-if", "-np=4", "--from",
                                     str(FIXTURES / "sweep_llamaserver_np1.json"), "-f", "json"],
                                    capture_output=True, text=True, env=env, timeout=120).stdout)
    assert doc["what_if"][0]["after"]["users"]["value"] == 4


def test_the_readme_example_is_what_the_code_prints_for_its_saved_sweep():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "plan", "--what-if", "-np=4", "--from",
                        str(FIXTURES / "sweep_llamaserver_readme.json")], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    shown = [line for line in p.stdout.splitlines() if line.startswith(("Now,", "With", "  released", "  (range"))]
    assert shown and all(line in readme for line in shown), shown


def test_recorded_vllm_sweeps_say_why_they_are_not_trusted():
    from llmdoctor.render.sweep import headroom_lines

    one = judge_sweep(recorded_vllm("seqs1")).headroom
    assert one.model.slots == 1 and one.model.slots_source.startswith("fitted")  # vLLM does not say; TTFT does
    assert not one.trusted and one.users is None and one.backtest.error > 0.35  # the machine sped up at level 4
    assert "the backtest missed 4 streams by" in headroom_lines(one)[0]
    four = judge_sweep(recorded_vllm("seqs4")).headroom
    assert not four.trusted and four.users is None and "answers arrived in one bunch" in four.why
    w = what_if(recorded_vllm("seqs1"), (parse_setting("--max-num-seqs=4"),), one.targets)
    assert w.after is not None and not w.after.trusted and w.after.users is None  # the what-if inherits it


def recorded_vllm(name):
    (r,) = sweeps_from_json((FIXTURES / f"sweep_vllm_{name}.json").read_text())
    return r
