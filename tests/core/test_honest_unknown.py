"""Honest unknown: "no problems found" only about what was examined; with nothing engine-relevant
to read, "could not diagnose" (exit 3) and why, in every format (issue 10)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.schema import report_doc

ROOT = Path(__file__).resolve().parents[2]
HEALTHY = ROOT / "tests" / "fixtures" / "evidence" / "ollama-healthy"


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True, env=env,
                          timeout=60, cwd=ROOT)


def _random_bytes(d: Path) -> Path:
    (d / "journal.log").write_bytes(bytes(range(256)) * 40)
    (d / "notes.txt").write_bytes(os.urandom(2048))
    return d


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize("make", ["empty", "random-bytes"])
def test_nothing_to_read_is_could_not_diagnose(tmp_path, fmt, make):
    d = _random_bytes(tmp_path) if make == "random-bytes" else tmp_path
    p = run("diagnose", "--evidence", str(d), "--format", fmt)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    if fmt == "json":
        [t] = report_doc(p.stdout)["targets"]
        assert t["status"] == "could not diagnose" and "no LLM engine" in t["could_not_diagnose"]
        assert t["findings"] == [] and t["examined"] == []
    else:
        assert "ould not diagnose" in p.stdout and "No problems found" not in p.stdout


def test_log_with_no_line_inside_the_window(tmp_path):
    # collected on 2026-11-30; the log's only lines are from 2025: nothing inside --since 24h
    (tmp_path / "meta.json").write_text(json.dumps({"engine": "ollama", "time": "2026-11-30T12:00:00Z"}))
    (tmp_path / "journal.log").write_text(
        '[GIN] 2025/01/12 - 00:52:46 | 200 | 19.293643585s |      10.0.0.123 | POST     "/api/chat"\n')
    p = run("diagnose", "--evidence", str(tmp_path), "--format", "json")
    [t] = report_doc(p.stdout)["targets"]
    assert p.returncode == 3 and t["status"] == "could not diagnose", p.stdout
    assert any("no line inside the log window" in u["reason"] for u in t["unavailable"])
    p = run("diagnose", "--evidence", str(tmp_path), "--format", "json", "--since", "800d")
    assert report_doc(p.stdout)["targets"][0]["status"] == "diagnosed"


def test_no_problems_found_names_what_was_examined():
    p = run("diagnose", "--evidence", str(HEALTHY))
    assert p.returncode == 0, p.stdout
    assert "No problems found in what was examined." in p.stdout and "Examined: Ollama log" in p.stdout


def test_unknown_only_and_missing_log_are_errors(tmp_path):
    p = run("diagnose", "--evidence", str(HEALTHY), "--only", "ollama-one-slot", "--only", "no-such-check")
    assert p.returncode == 3 and "--only no-such-check" in p.stderr and not p.stdout
    p = run("diagnose", "--only", "QUEUEING", "--evidence", str(HEALTHY))
    assert p.returncode == 0  # a cause is a valid --only name
    p = run("diagnose", "--log", str(tmp_path / "missing.log"), "--sample-seconds", "0")
    assert p.returncode == 3 and "no such file" in p.stderr


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html", "nagios"])
def test_an_unreachable_target_is_could_not_diagnose_in_every_format(fmt):
    from llmdoctor.model import Report, TargetReport
    from llmdoctor.render import render

    why = "gpu-7: unreachable: connection refused (ssh: connect to host gpu-7 port 22: Connection refused)"
    out = render(Report("t", (TargetReport("gpu-7", "unreachable", (), (), (why,), reachable=False),)), fmt)
    assert "could not diagnose" in out.lower() or ("unreachable" in out.lower() and fmt == "nagios"), out
    assert "connection refused" in out.lower()
    assert "No findings" not in out and "no problems found" not in out.lower()
    if fmt == "text":
        assert out.count("Connection refused") == 1, out  # said once, not again under "Could not examine"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # bound, never listening: a connection to it is refused
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("how", ["ssh", "url"])
def test_an_unreachable_target_from_the_command_line_agrees_in_every_format(how):
    """End to end (issue 27, item 4): an SSH target whose port refuses and an engine URL nothing
    answers on give exit 3 and "could not diagnose" with the reason in text, Markdown, JSON and
    HTML alike, never "No findings." beside a JSON that says it could not diagnose."""
    port = _closed_port()
    target = ["-H", f"127.0.0.1:{port}"] if how == "ssh" else ["--url", f"http://127.0.0.1:{port}"]
    reasons = set()
    for fmt in ("text", "markdown", "json", "html"):
        p = run("diagnose", *target, "--sample-seconds", "0", "--format", fmt)
        assert p.returncode == 3, (fmt, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr
        if fmt == "json":
            (t,) = report_doc(p.stdout)["targets"]
            assert t["status"] == "could not diagnose" and not t["findings"], t
            reasons.add(t["could_not_diagnose"])
        else:
            assert "could not diagnose" in p.stdout.lower(), (fmt, p.stdout)
            assert "No findings" not in p.stdout and "no problems found" not in p.stdout.lower(), (fmt, p.stdout)
    (why,) = reasons
    assert (f"port {port}" in why) and ("refused" in why.lower() if how == "ssh" else "answered" in why), why
