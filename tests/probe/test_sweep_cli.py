"""`llmdoctor probe --sweep` as a user runs it, against the Ollama replay (not a real Ollama;
tests/probe/test_sweep_real.py runs it on the real llama-server)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support.ollama_replay import ollama_replay
from tests.support.schema import report_doc

pytestmark = pytest.mark.timeout(120)
ENV = dict(os.environ, NO_COLOR="1", COLUMNS="120")

def interruptible() -> None:
    """The child takes Ctrl-C as a terminal gives it, even where this test process was started in the
    background of a script (sh ignores SIGINT there, and a child inherits an ignored signal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)



def run(*args, columns="120"):
    return subprocess.run([sys.executable, "-m", "llmdoctor", "probe", *args], capture_output=True, text=True,
                          env=dict(ENV, COLUMNS=columns), timeout=100)


def test_sweep_states_its_plan_first_and_finds_the_knee_of_one_slot():
    with ollama_replay(slots=1) as srv:
        p = run(srv.url, "--sweep", "--max-concurrency", "4", "--format", "json")
        sent = len(srv.requests)
    assert p.returncode == 0, p.stdout + p.stderr
    said = " ".join(p.stderr.split())  # (the plan line wraps at the width)
    plan_at, timed_at = said.index("sweep will send"), said.index("llmdoctor: plan: 1, 2, 4 streams")
    assert plan_at < timed_at and "12 streaming requests at 1, 2, 4 concurrent streams" in said
    assert "at least 4 requests each (12 requests), about" in said and "was cut" not in said
    doc = report_doc(p.stdout)
    (sweep,) = doc["sweep"]
    assert sent == 1 + 12 == 1 + sweep["requests_sent"]
    assert [lv["concurrency"] for lv in sweep["levels"]] == [1, 2, 4]
    assert [lv["sent"] for lv in sweep["levels"]] == [4, 4, 4]
    assert sweep["knee"]["concurrency"] == 2 and "knee =" in sweep["knee_rule"]
    assert sweep["users_within_target"]["users"] >= 1 and not sweep["partial"]
    assert sweep["tokens_used"] <= sweep["plan"]["token_budget"]
    assert {s["scenario"] for s in sweep["samples"]} == {"sweep-1", "sweep-2", "sweep-4"}
    (target,) = doc["targets"]
    assert {f["name"] for f in target["figures"]} >= {"sweep_knee_streams", "sweep_users_within_target"}


def test_sweep_text_fits_the_width_and_says_its_rules():
    with ollama_replay(slots=4) as srv:
        wide = run(srv.url, "--sweep", "--max-concurrency", "4", "--ttft-target", "500ms")
        narrow = run(srv.url, "--sweep", "--max-concurrency", "2", columns="44")
    assert wide.returncode == 0, wide.stdout + wide.stderr
    out = wide.stdout
    assert "Knee: none up to 4 streams" in out
    assert "Users within the 500ms TTFT target (p95): 4 or more" in out
    assert "Rule: knee = the smallest concurrency" in out and "TTFT p95" in out and "ITL p50" in out
    assert max(len(line) for line in out.splitlines()) <= 120
    assert narrow.returncode == 0, narrow.stderr
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 44
    assert "TTFT p50" in narrow.stdout and "ITL p50" not in narrow.stdout  # the narrow table


def test_token_budget_stops_the_sweep_before_it_would_pass():
    with ollama_replay(slots=4) as srv:
        p = run(srv.url, "--sweep", "--max-concurrency", "4", "--token-budget", "800", "--format", "json")
        sent = len(srv.requests)
    assert p.returncode == 0, p.stderr
    (sweep,) = report_doc(p.stdout)["sweep"]
    assert sweep["partial"] and sweep["stopped_by"] == "token budget"
    assert sweep["tokens_used"] <= 800 and sent == 1 + 4 + 2  # warm-up, level 1, one round of 2
    assert [lv["complete"] for lv in sweep["levels"]] == [True, False]
    assert any("token budget" in n for n in sweep["notes"])


def test_deadline_stops_the_sweep_and_the_result_is_partial():
    with ollama_replay(slots=1, itl_s=0.02) as srv:  # ~2.6 s a stream: level 1 alone needs 10 s
        start = time.monotonic()
        p = run(srv.url, "--sweep", "--deadline", "5", "--format", "json")
        took = time.monotonic() - start
    assert took < 15, took
    (sweep,) = report_doc(p.stdout)["sweep"]
    assert sweep["partial"] and sweep["stopped_by"] == "deadline" and sweep["wall_s"] < 6.5
    assert all(lv["failed"] == 0 for lv in sweep["levels"])  # cut off by us, not failed by the server


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 3), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_stop_cleanly_with_what_was_measured(sig, code):
    with ollama_replay(slots=1, itl_s=0.02) as srv:
        p = subprocess.Popen([sys.executable, "-m", "llmdoctor", "probe", srv.url, "--sweep", "--format", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                             preexec_fn=interruptible)
        deadline = time.monotonic() + 30
        while len(srv.requests) < 3 and time.monotonic() < deadline:  # level 1 is running
            time.sleep(0.05)
        p.send_signal(sig)
        start = time.monotonic()
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - start
    assert took < 5, took
    assert "Traceback" not in err
    assert p.returncode == code, err
    (sweep,) = report_doc(out)["sweep"]
    assert sweep["partial"] and sweep["stopped_by"] == "interrupted"
    assert sweep["samples"][0]["status"] == "ok" and sweep["samples"][-1]["status"] == "interrupted"


def test_usage_errors_are_one_line_and_exit_3_before_anything_is_sent():
    p = run("http://127.0.0.1:9", "--sweep", "--format", "yaml")
    assert p.returncode == 3 and "unknown --format" in p.stderr  # html is a sweep format too (the headroom chart)
    p = run("http://127.0.0.1:9", "--sweep", "--ttft-target", "fast")
    assert p.returncode == 3 and "--ttft-target" in p.stderr and "Traceback" not in p.stderr
    p = run("http://127.0.0.1:9", "--sweep", "--mode", "load")
    assert p.returncode == 3 and "drop --mode and --concurrency" in p.stderr
    p = run("http://127.0.0.1:9", "--sweep", "-n", "4")
    assert p.returncode == 3 and "drop --mode and --concurrency" in p.stderr


def test_the_default_plan_is_cut_to_the_deadline_from_the_first_request():
    """~2.6 s a stream behind one slot: 1, 2, 4, 8 streams x 4 need ~52 s, so an 18 s deadline keeps
    1 and 2 streams with 2 requests each (~10 s; up to 4 s a request on a loaded machine), says so
    before the second request, and finishes."""
    with ollama_replay(slots=1, itl_s=0.02) as srv:
        p = run(srv.url, "--sweep", "--deadline", "18", "--format", "json")
        sent = len(srv.requests)
    said = " ".join(p.stderr.split())
    assert "the first request's time sizes the plan to the deadline" in said
    assert "llmdoctor: plan: 1, 2 streams, at least 2 requests each (4 requests), about 1" in said, said
    assert "so the default 1, 2, 4, 8 streams, at least 4 requests each (20 requests) was cut to fit" in said
    assert "will not fit" not in said
    (sweep,) = report_doc(p.stdout)["sweep"]
    assert sweep["plan"]["fit_to_deadline"] and sweep["plan"]["levels"] == [1, 2]
    assert sweep["plan"]["min_samples"] == 2 and 10 <= sweep["plan"]["estimate_s"] < 16.2
    assert not sweep["partial"] and sent == 1 + 4 and sweep["wall_s"] < 18
    assert any("cut to fit the 18 s deadline" in n for n in sweep["notes"])


def test_an_explicit_plan_that_cannot_fit_says_so_and_the_flag_to_raise():
    with ollama_replay(slots=1, itl_s=0.02) as srv:
        p = run(srv.url, "--sweep", "--max-concurrency", "4", "--deadline", "8", "--format", "json")
    said = " ".join(p.stderr.split())
    plan = said[said.index("llmdoctor: plan:"):]
    assert plan.startswith("llmdoctor: plan: 1, 2, 4 streams, at least 4 requests each (12 requests), about")
    assert "it will not fit: raise --deadline to" in plan and "or lower --max-concurrency" in plan
    assert "was cut" not in plan  # an explicit plan is kept
    (sweep,) = report_doc(p.stdout)["sweep"]
    assert sweep["partial"] and sweep["stopped_by"] == "deadline" and not sweep["plan"]["fit_to_deadline"]
    assert any("the plan needs about" in n and "raise --deadline to" in n for n in sweep["notes"]), sweep["notes"]


def test_an_unreachable_sweep_target_is_could_not_diagnose_in_text_and_json():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    text, doc = run(url, "--sweep"), run(url, "--sweep", "--format", "json")
    assert text.returncode == doc.returncode == 3
    (target,) = report_doc(doc.stdout)["targets"]
    assert target["status"] == "could not diagnose"
    said = " ".join(text.stdout.split())
    assert f"{url} · engine: unreachable" in said
    assert f"Could not diagnose: {' '.join(target['could_not_diagnose'].split())}" in said
