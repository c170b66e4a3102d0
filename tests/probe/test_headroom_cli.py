"""`probe --sweep --itl-target --save` and `plan --what-if --from` as a user runs them, against
the Ollama replay (tests/support/ollama_replay.py: not a real Ollama; tests/probe/test_headroom_real.py
runs the real llama-server), and the broken files a user may hand them."""
import json
import os
import subprocess
import sys

import pytest

from tests.support.ollama_replay import ollama_replay
from tests.support.schema import report_doc

pytestmark = pytest.mark.timeout(180)
ENV = dict(os.environ, NO_COLOR="1", COLUMNS="120")


def llmdoctor(*args):
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True, env=ENV,
                          timeout=150)


def test_sweep_prints_headroom_and_saves_what_plan_what_if_reads(tmp_path):
    saved = tmp_path / "sweep.json"
    with ollama_replay(slots=1, itl_s=0.004) as srv:
        p = llmdoctor("probe", srv.url, "--sweep", "--max-concurrency", "4", "--ttft-target", "1s",
                      "--itl-target", "100ms", "--save", str(saved))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ITL target 100ms" in p.stderr and f"sweep saved to {saved}" in p.stderr
    assert "Headroom (p95 TTFT <= 1s and p95 ITL <= 100ms)" in p.stdout and "Backtest: 4 streams held out" in p.stdout
    (sweep,) = report_doc(saved.read_text())["sweep"]
    h = sweep["headroom"]
    assert h["backtest"]["fitted_on"] == [1, 2] and h["model"]["slots"] == 1  # fitted: Ollama does not say
    w = llmdoctor("plan", "--what-if", "OLLAMA_NUM_PARALLEL=4", "--from", str(saved), "-f", "json")
    assert w.returncode in (0, 1), w.stderr
    (one,) = json.loads(w.stdout)["what_if"]
    assert one["slots_before"] == 1 and one["slots_after"] == 4
    if one["after"]["trusted"]:
        assert one["after"]["users"]["high"] >= one["before"]["users"]["value"]
    text = llmdoctor("plan", "--what-if", "OLLAMA_NUM_PARALLEL=4", "--from", str(saved))
    assert "What if OLLAMA_NUM_PARALLEL=4" in text.stdout and "Now, 1 slot" in text.stdout


@pytest.mark.parametrize("content,why", [
    (None, "No such file"), ("", "not JSON"), ("{", "not JSON"), ('{"targets": []}', 'no "sweep" list'),
    ('{"sweep": [{"plan": 1, "levels": [], "samples": []}]}', "a sweep needs"),
    ('{"sweep": [{"plan": {}, "levels": [], "samples": []}]}', "nothing to fit"),
])
def test_a_broken_sweep_file_is_one_line_and_exit_3(tmp_path, content, why):
    f = tmp_path / "sweep.json"
    if content is not None:
        f.write_text(content)
    p = llmdoctor("plan", "--what-if", "-np=4", "--from", str(f))
    if why == "nothing to fit":  # a well-formed sweep that measured nothing: said, not a crash
        assert p.returncode == 1 and "nothing to fit" in p.stdout, p.stdout + p.stderr
        return
    assert p.returncode == 3 and p.stderr.startswith("llmdoctor: --from") and why in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1


def test_what_if_usage_errors_exit_3(tmp_path):
    assert llmdoctor("plan", "--what-if", "-np=4").returncode == 3
    p = llmdoctor("plan", "--what-if", "NUM_GPU=2", "--from", str(tmp_path / "x.json"))
    assert p.returncode == 3 and "give SETTING=VALUE" in p.stderr
    p = llmdoctor("probe", "http://127.0.0.1:9", "--sweep", "--itl-target", "fast")
    assert p.returncode == 3 and "--itl-target" in p.stderr
