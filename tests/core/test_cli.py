"""The command line as a user runs it: exit codes, messages, formats."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from tests.support.schema import report_doc

ENV = dict(os.environ, NO_COLOR="1", COLUMNS="120")


def run(*args, env=ENV, **kw):
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True, env=env, timeout=120, **kw)


def test_version():
    p = run("--version")
    assert p.returncode == 0 and p.stdout.startswith("llmdoctor ")


def test_checks_lists_ids_causes_purposes():
    p = run("checks", env=dict(ENV, COLUMNS="1000"))  # one line each (narrower: wrapped)
    assert p.returncode == 0
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    assert lines, p.stderr
    for line in lines:
        assert len(line.split(None, 2)) == 3, line


def test_diagnose_this_machine_without_engine_or_gpu():
    """This machine has no LLM engine and no GPU: "could not diagnose" (exit 3), said once, unless
    something engine-independent was found (the host swaps: 1 or 2)."""
    p = run("diagnose", "--sample-seconds", "0.5")
    assert p.returncode in (1, 2, 3), p.stdout + p.stderr
    assert p.returncode != 3 or "Could not diagnose: no LLM engine found" in p.stdout
    assert p.stdout.count("no LLM engine found (looked for") == 1  # said once, not per dependent fact
    if not shutil.which("nvidia-smi"):
        assert "GPU: not available (" in p.stdout
    assert "Traceback" not in p.stdout + p.stderr


def test_diagnose_json_on_empty_evidence(tmp_path):
    p = run("diagnose", "--evidence", str(tmp_path), "--format", "json")
    assert p.returncode in (0, 1, 3)
    doc = report_doc(p.stdout)
    assert doc["targets"][0]["engine"] == "none"


@pytest.mark.parametrize(
    "args,needle",
    [
        (("diagnose", "--format", "yaml"), "unknown --format"),
        (("diagnose", "--evidence", "/nonexistent/dir"), "does not exist"),
        (("diagnose", "--since", "yesterday"), "not a duration"),
        (("diagnose", "--host", "a;rm -rf /"), "invalid host"),
    ],
)
def test_bad_input_is_a_clear_message_and_exit_3(args, needle):
    p = run(*args)
    assert p.returncode == 3, p.stdout + p.stderr
    assert needle in p.stderr
    assert "Traceback" not in p.stderr


def test_collect_refuses_non_empty_dir(tmp_path):
    (tmp_path / "x").write_text("keep me")
    p = run("collect", "-o", str(tmp_path))
    assert p.returncode == 3 and "refusing to overwrite" in p.stderr
    assert (tmp_path / "x").read_text() == "keep me"


def test_collect_then_diagnose_round_trip(tmp_path):
    out = tmp_path / "ev"
    p = run("collect", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert (out / "meta.json").is_file()
    p = run("diagnose", "--evidence", str(out), "--format", "json")
    assert p.returncode in (0, 1, 3), p.stderr
    report_doc(p.stdout)


def test_facts_lists_every_catalogued_fact():
    import json

    from llmdoctor.facts.catalogue import CATALOGUE

    p = run("facts", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert [f["name"] for f in json.loads(p.stdout)] == [f.name for f in CATALOGUE]
    assert "engines" in run("facts").stdout


@pytest.mark.parametrize("argv,where", [
    (["diagnos"], "llmdoctor --help"),
    (["diagnose", "--evdence", "x"], "llmdoctor diagnose --help"),
    (["diagnose", "--sample-seconds", "-1"], "llmdoctor diagnose --help"),
    (["collect"], "llmdoctor collect --help"),
    (["plan", "--users", "-20"], "llmdoctor plan --help"),
])
def test_usage_errors_are_one_line_and_unknown(argv, where):
    """A monitor reads exit 2 as CRITICAL: a mistyped command line is UNKNOWN (3), said once."""
    p = run(*argv)
    assert p.returncode == 3, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("llmdoctor: ") and where in lines[0], p.stderr
    assert lines[0].count("Did you mean") <= 1
