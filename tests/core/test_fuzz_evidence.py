"""Hostile values in every evidence file kind: `1e308`, NaN, huge integers, and the wrong
JSON type (a string where a number is expected, a list where an object, null) must give a
report, never a traceback, a crashed check or a failed collector. Run in-process through
the command line's main, so each example costs milliseconds."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from llmdoctor.knowledge.ticket import split_ticket
from tests.support.inprocess import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
ROOT = Path(__file__).resolve().parents[2]
# (fixture, file): every evidence file kind the fixtures hold, each in a directory that uses it
KINDS = sorted({(d.name, f.name) for d in FIXTURES.iterdir() if d.is_dir()
                for f in d.iterdir() if f.is_file() and f.name != "expected.json"}
               | {(d.name, str(f.relative_to(d))) for d in FIXTURES.iterdir() if d.is_dir()
                  for f in d.rglob("*") if f.is_file() and len(f.relative_to(d).parts) > 1})
ONE_PER_KIND = sorted({name if "/" not in name else name.split("/")[0]: (fixture, name)
                       for fixture, name in KINDS}.values())
CRASHES = ("Traceback", "check crashed:", "collector failed:")

HOSTILE_NUMBERS = ["1e308", "-1e308", "1e309", "NaN", "Infinity", "-Infinity", "-1", "0", "9" * 40, "-0.0", "4294967296"]
hostile_json = st.recursive(
    st.none() | st.booleans() | st.sampled_from([1e308, -1e308, float("nan"), float("inf"), 10**40, -(2**63), 0])
    | st.text(max_size=8) | st.sampled_from(["", "1e308", "NaN", "12 GB", "abc"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:4]):
            yield from _paths(v, prefix + (i,))


def _set(doc, path, value):
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def mutate_json(text: str, data) -> str:
    doc = json.loads(text)
    paths = list(_paths(doc))
    path = paths[data.draw(st.integers(0, len(paths) - 1), label="path")]
    return json.dumps(_set(doc, path, data.draw(hostile_json, label="value")))


def mutate_text(text: str, data) -> str:
    numbers = list(re.finditer(r"-?\d+(?:\.\d+)?", text))
    lines = text.split("\n")
    if numbers and data.draw(st.booleans(), label="number"):
        for _ in range(data.draw(st.integers(1, 3), label="how many")):
            m = numbers[data.draw(st.integers(0, len(numbers) - 1), label="which")]
            text = text[:m.start()] + data.draw(st.sampled_from(HOSTILE_NUMBERS), label="n") + text[m.end():]
            numbers = list(re.finditer(r"-?\d+(?:\.\d+)?", text))
            if not numbers:
                break
        return text
    i = data.draw(st.integers(0, max(0, len(lines) - 1)), label="line")
    # (Hypothesis also draws the string constants of this module: a line reading "Traceback"
    # would be echoed by the report and taken for a crash)
    lines[i] = data.draw(st.text(max_size=60).filter(lambda s: not any(c in s for c in CRASHES))
                         | st.sampled_from(HOSTILE_NUMBERS), label="replacement")
    return "\n".join(lines)


def assert_no_crash(code: int, out: str) -> None:
    assert code in (0, 1, 2, 3), (code, out[-2000:])
    found = [c for c in CRASHES if c in out]
    assert not found, out[-3000:]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_hostile_values_in_any_evidence_file(tmp_path_factory, data):
    fixture, name = data.draw(st.sampled_from(ONE_PER_KIND), label="file")
    d = tmp_path_factory.mktemp("fuzz") / "ev"
    shutil.copytree(FIXTURES / fixture, d)
    p = d / name
    text = p.read_text(errors="replace")
    try:
        json.loads(text)
        is_json = name.endswith(".json")
    except ValueError:
        is_json = False
    p.write_text(mutate_json(text, data) if is_json else mutate_text(text, data))
    code, out = cli("diagnose", "--evidence", str(d), "--format", "json")
    assert_no_crash(code, out)


def test_every_json_file_with_every_wrong_type(tmp_path):
    """Deterministic sweep: each top-level field of each JSON evidence file replaced by each
    wrong type (the red-team's crashes were here)."""
    wrong = [None, "text", [1, 2], {"a": 1}, 1e308, float("nan"), -1, True]
    json_kinds = {name: fixture for fixture, name in KINDS if name.endswith(".json")}  # one directory per file kind
    for name, fixture in sorted(json_kinds.items()):
        src = (FIXTURES / fixture / name).read_text()
        try:
            doc = json.loads(src)
        except ValueError:
            continue
        keys = list(doc) if isinstance(doc, dict) else [None]
        for key in keys[:8]:
            for value in wrong:
                d = tmp_path / f"{fixture}-{len(list(tmp_path.iterdir()))}"
                shutil.copytree(FIXTURES / fixture, d)
                (d / name).write_text(json.dumps(value if key is None else {**doc, key: value}))
                code, out = cli("diagnose", "--evidence", str(d), "--format", "json")
                assert_no_crash(code, out)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["$ ollama ps", "$ journalctl -u ollama", "$ cat /etc/x.service.d/..", "```",
                                 "> $ nvidia-smi", "NAME ID SIZE PROCESSOR UNTIL", "MemTotal: 1e308 kB", "\x1b[31m",
                                 "", "   ", "\r", "[Service]", "Environment=OLLAMA_NUM_PARALLEL=NaN"])
                | st.text(max_size=30), max_size=25))
def test_ticket_splitter_takes_anything(lines):
    files = split_ticket("\n".join(lines))
    for name, body in files.items():
        assert name and ".." not in name.split("/") and body.endswith("\n")


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(["$ ollama ps", "$ journalctl -u ollama", "NAME ID SIZE PROCESSOR UNTIL",
                                 "llama3:8b  365c0bd3c000  1e308 GB  NaN% GPU  Forever", "MemTotal: 99999999999999999999 kB",
                                 "$ cat /etc/systemd/system/ollama.service", "[Service]",
                                 'Environment="OLLAMA_NUM_PARALLEL=1e308"', "time=x level=INFO msg=\"server config\""])
                | st.text(max_size=30).filter(lambda s: not any(c in s for c in CRASHES)), max_size=20))
def test_pasted_ticket_diagnoses_without_a_crash(tmp_path_factory, lines):
    ticket = tmp_path_factory.mktemp("ticket") / "ticket.txt"
    ticket.write_text("\n".join(lines))
    code, out = cli("diagnose", "--evidence", str(ticket), "--format", "json")
    assert_no_crash(code, out)


def test_sigterm_leaves_no_temporary_evidence_copies(tmp_path):
    """A diagnose stopped by SIGTERM mid-run (a repaired copy of a pasted log and the split
    ticket exist by then) removes its llmdoctor-* directories on the way out."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    ticket = tmp_path / "ticket.txt"
    line = "> Nov 30 18:00:15 box ollama[1]: time=2025-02-07T09:17:16Z level=WARN msg=\"truncating input prompt\" limit=2048 prompt=4000\n"
    ticket.write_text("$ journalctl -u ollama\n" + line * 150_000)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(scratch), "PYTHONPATH": os.environ.get("LLMDOCTOR_TEST_ROOT", str(ROOT)),
           "LLMDOCTOR_QUIET": "1"}
    p = subprocess.Popen([sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(ticket)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(scratch.glob("llmdoctor-*")) and p.poll() is None:
        time.sleep(0.05)
    assert list(scratch.glob("llmdoctor-*")), "no temporary directory was made"
    time.sleep(0.3)
    assert p.poll() is None, "the run ended before it could be stopped"
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    # the command line's handler (hosts/terminate) runs the cleanups, then exits 128 + SIGTERM
    assert p.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), p.stderr.read()[-2000:]
    assert not list(scratch.glob("llmdoctor-*")), list(scratch.iterdir())
