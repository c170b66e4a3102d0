"""The probe's steps as a person at a terminal sees them (a pty), and as a script sees them (a pipe):
one stderr line per step, saying which request and what is left of the deadline, only on the
terminal or with -v; never in stdout."""
import json
import os
import subprocess
import sys

import pytest

from tests.support.ollama_replay import ollama_replay
from tests.support.terminal import on_a_terminal

pytestmark = pytest.mark.timeout(120)
ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LLMDOCTOR_QUIET")}
ENV["NO_COLOR"] = "1"
CLI = [sys.executable, "-m", "llmdoctor"]


def step_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("probe: ")]


def test_probe_steps_go_to_a_terminal_and_stdout_stays_json():
    with ollama_replay(slots=4) as srv:
        code, out, err = on_a_terminal([*CLI, "probe", srv.url, "--format", "json", "--deadline", "60"], ENV)
    assert code in (0, 1), err
    json.loads(out)  # nothing but the report on stdout
    steps = step_lines(err)
    assert any("warm-up request" in s for s in steps), err
    singles = [s for s in steps if s.startswith("probe: single stream, short prompt")]
    assert len(singles) == 3 and all(" s left]" in s and "done," in s for s in singles), steps
    assert "[1 request done" in singles[0]  # the warm-up came first
    assert all(len(line) <= 100 for line in err.splitlines())  # the terminal's width


def test_probe_steps_stay_off_a_pipe_unless_verbose():
    with ollama_replay(slots=4) as srv:
        quiet = subprocess.run([*CLI, "probe", srv.url, "--format", "json"], capture_output=True, text=True,
                               env=ENV, timeout=100)
        loud = subprocess.run([*CLI, "probe", srv.url, "--format", "json", "-v"], capture_output=True, text=True,
                              env=ENV, timeout=100)
    assert quiet.returncode in (0, 1) and not step_lines(quiet.stderr), quiet.stderr
    assert any(" s left]" in s for s in step_lines(loud.stderr)), loud.stderr
    json.loads(quiet.stdout), json.loads(loud.stdout)


def test_sweep_steps_on_a_terminal_say_the_level_and_time_left():
    with ollama_replay(slots=4) as srv:
        code, out, err = on_a_terminal([*CLI, "probe", srv.url, "--sweep", "--max-concurrency", "2",
                                        "--format", "json"], ENV, columns=60)
    assert code == 0, err
    json.loads(out)
    rounds = [s for s in step_lines(" ".join(err.split("\n")).replace(" probe: ", "\nprobe: "))
              if "at once, round" in s]
    assert rounds and all("s left)" in s for s in rounds), err
    assert all(len(line) <= 60 for line in err.splitlines()), err  # the plan lines wrap too


def test_diagnose_probe_steps_on_a_terminal():
    with ollama_replay(slots=4) as srv:
        code, out, err = on_a_terminal([*CLI, "diagnose", "--url", srv.url, "--probe", "--format", "json"], ENV,
                                       timeout=100)
    json.loads(out)
    flat = " ".join(err.split())
    assert "probe " in flat and "single stream, short prompt" in flat and "s left]" in flat, err


def test_ctrl_c_in_a_live_diagnose_says_what_was_cut():
    """Ctrl-C while diagnose samples (its step line says so on the terminal): exit 130, no half report."""
    code, out, err = on_a_terminal([*CLI, "diagnose", "--sample-seconds", "20", "--format", "json"], ENV,
                                   timeout=100, interrupt_when=lambda e: "sampling" in e)
    assert "sampling" in err, err
    assert code == 130 and out == "", (code, out, err)
    flat = " ".join(err.split())
    assert "llmdoctor: interrupted: diagnosing" in flat and "was cut before its report" in flat, err
    assert "Traceback" not in err
