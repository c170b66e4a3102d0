"""`llmdoctor probe` as a user runs it, against the Ollama replay (not a real Ollama)."""
import os
import socket
import subprocess
import sys

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



def run(*args):
    return subprocess.run([sys.executable, "-m", "llmdoctor", "probe", *args], capture_output=True, text=True,
                          env=ENV, timeout=100)


def test_probe_json_has_findings_and_raw_timings():
    with ollama_replay(slots=1) as srv:
        p = run(srv.url, "--format", "json", "-v")
    assert p.returncode == 1, p.stdout + p.stderr  # a warning
    doc = report_doc(p.stdout)
    (target,) = doc["targets"]
    assert target["engine"] == "ollama"
    assert [f["check"] for f in target["findings"]] == ["probe-queueing"]
    assert "OLLAMA_NUM_PARALLEL" in target["findings"][0]["fix"]["config"]
    (raw,) = doc["probe"]
    assert raw["requests_sent"] == 13 and raw["tokens_generated"] > 0  # a warm-up, 3 x (single, long, pair)
    assert {s["scenario"] for s in raw["samples"]} == {"warmup", "single", "long", "pair"}
    assert raw["runs"] == 3 and {s["run"] for s in raw["samples"] if s["scenario"] != "warmup"} == {1, 2, 3}
    verdicts = {v["name"]: v for v in raw["verdicts"]}
    assert verdicts["queueing"]["kind"] == "problem"
    assert verdicts["queueing"]["figures"]["spread"]["overlap_fraction"]["runs"] == 3
    assert raw["loads"][0]["source"] == "/api/ps" and raw["busy"] is False
    assert all(len(s["chunk_s"]) == s["completion_tokens"] for s in raw["samples"])
    assert "probe:" in p.stderr  # progress goes to stderr (-v: also when piped), never into the JSON


def test_probe_text_and_markdown_on_a_healthy_server():
    with ollama_replay(slots=4) as srv:
        text = run(srv.url)
        md = run(srv.url, "--format", "markdown")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "probe single stream" in text.stdout and "TTFT" in text.stdout
    assert md.returncode == 0 and md.stdout.lstrip().startswith("#")


def test_load_mode_says_what_it_sends_before_sending():
    with ollama_replay(slots=2) as srv:
        p = run(srv.url, "--mode", "load", "--concurrency", "3", "--format", "json")
        sent = len(srv.requests)
    assert "load mode will send" in p.stderr and "3 concurrent streaming requests" in p.stderr
    assert sent == 1 + 3 + 3 * (3 + 1)  # warm-up, 3 singles, 3 rounds of 3 streams and the injected long prompt
    assert p.returncode in (0, 1, 2), p.stderr


def test_unreachable_url_exits_3_with_a_reason():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    p = run(f"http://127.0.0.1:{port}", "--format", "json")
    assert p.returncode == 3
    assert "nothing answers" in p.stdout + p.stderr
    assert "Traceback" not in p.stdout + p.stderr


def test_bad_mode_exits_3():
    p = run("http://127.0.0.1:9", "--mode", "storm")
    assert p.returncode == 3 and "--mode" in p.stderr


def test_ctrl_c_stops_cleanly_and_prints_what_was_measured():
    import signal
    import time

    with ollama_replay(slots=1, itl_s=0.1) as srv:
        p = subprocess.Popen([sys.executable, "-m", "llmdoctor", "probe", srv.url, "--format", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                             preexec_fn=interruptible)
        deadline = time.monotonic() + 30
        while len(srv.requests) < 2 and time.monotonic() < deadline:  # the single stream is running
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        start = time.monotonic()
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - start
    assert took < 5, took
    assert "Traceback" not in err
    assert p.returncode == 3
    (raw,) = report_doc(out)["probe"]
    assert raw["interrupted"] is True
    assert raw["samples"][0]["status"] == "ok" and raw["samples"][-1]["status"] == "interrupted"


def test_probe_draws_the_streams_in_text_and_html():
    """One slot: the timeline shows one of the pair waiting behind the other; the page has both charts."""
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the html extra)")
    with ollama_replay(slots=1) as srv:
        text = run(srv.url)
        page = run(srv.url, "--format", "html")
    assert text.returncode == 1, text.stdout + text.stderr
    tail = text.stdout[text.stdout.index("Probe timeline · "):]
    assert max(len(line) for line in tail.splitlines()) <= 120  # COLUMNS
    rows = {line.split()[0]: line for line in tail.splitlines()[2:] if line.startswith("pair-")}
    rows = {k: v for k, v in rows.items() if k.endswith(".1")}  # the first of three runs
    assert set(rows) == {"pair-1.1", "pair-2.1"}
    first, later = sorted(rows.values(), key=lambda r: r.index("|"))
    assert later.index("|") - first.index("|") > 5 and "·····" in later  # it waited: queued, not shared
    assert page.returncode == 1, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>") and page.stdout.count("<svg") == 2


def test_ctrl_c_during_diagnose_probe_exits_130_and_says_what_was_cut():
    """diagnose --probe used to catch Ctrl-C inside the probe and report half a probe with exit 0."""
    import signal
    import time

    with ollama_replay(slots=1, itl_s=0.1) as srv:
        p = subprocess.Popen([sys.executable, "-m", "llmdoctor", "diagnose", "--url", srv.url, "--probe",
                              "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                             preexec_fn=interruptible)
        deadline = time.monotonic() + 60
        while len(srv.requests) < 2 and time.monotonic() < deadline:  # the probe is streaming
            time.sleep(0.05)
        assert len(srv.requests) >= 2, "the probe never started"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 130, (out, err)
    assert "Traceback" not in err and out == ""  # no half report
    assert "interrupted: the live probe of" in err and "cut after" in err, err


def test_a_deadline_stop_is_ours_and_says_the_time_the_probe_needs():
    """~2 s a request behind one slot: a 6 s deadline ends the probe early; the note says it was our
    deadline (not a stalled server), the time all 13 requests need at that pace, and the flag."""
    with ollama_replay(slots=1, itl_s=0.1) as srv:
        p = run(srv.url, "--format", "json", "--deadline", "6")
    (raw,) = report_doc(p.stdout)["probe"]
    notes = " ".join(raw["notes"])
    assert "stopped early by the 6 s probe deadline (ours: the server did not stall)" in notes, notes
    assert "all 13 requests need about" in notes and "raise --deadline to" in notes, notes
    assert not any(s["status"] == "stalled" for s in raw["samples"])
