"""The operator's habits: the monitoring-plugin line, --quiet and -v, shell completion in a
real bash, examples in --help, the published JSON schema, and --width."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from llmdoctor.model import Cause, Confidence, Severity
from llmdoctor.schema import report_schema
from tests.support.schema import report_doc

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
ENV = dict(os.environ, NO_COLOR="1")
ENV.pop("COLUMNS", None)
# The monitoring-plugin line: `LLMDOCTOR <STATE> - <text>[ | perfdata]`, perfdata as
# 'label'=value[unit];[warn];[crit];[min];[max] (Nagios plugin development guidelines).
NAGIOS = re.compile(r"^LLMDOCTOR (OK|WARNING|CRITICAL|UNKNOWN) - [^|\n]+( \| ('[^'=]+'=[-0-9.e+]+(s|%)?(;[-0-9.e+]*){0,4} ?)+)?$")
PERF = re.compile(r"'([^']+)'=([-0-9.e+]+)(s|%)?;([^;]*);([^;]*);")
STATES = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}


def run(*args, env=ENV, **kw):
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True, env=env,
                          timeout=120, **kw)


@pytest.mark.parametrize("name", ["ollama-healthy", "ollama-cpu-spill", "probe-ollama-prefill", "vllm-kv-pinned"])
def test_nagios_line_has_the_state_of_the_exit_code_and_performance_data(name):
    if not (EVIDENCE / name).is_dir():
        pytest.skip(f"no fixture {name}")
    p = run("diagnose", "--evidence", str(EVIDENCE / name), "--format", "nagios")
    line = p.stdout
    assert line.endswith("\n") and line.count("\n") == 1, line
    assert NAGIOS.match(line.rstrip("\n")), line
    assert line.split()[1] == STATES[p.returncode]
    perf = {m.group(1): m for m in PERF.finditer(line)}
    assert {"findings_critical", "findings_warning", "findings_info"} <= set(perf)


def test_nagios_carries_the_probe_latencies_with_levels():
    p = run("diagnose", "--evidence", str(EVIDENCE / "probe-ollama-prefill"), "--format", "nagios")
    perf = {m.group(1): m for m in PERF.finditer(p.stdout)}
    ttft = perf["ttft_p95"]
    assert ttft.group(3) == "s" and float(ttft.group(4)) < float(ttft.group(5))
    doc = report_doc(run("diagnose", "--evidence", str(EVIDENCE / "probe-ollama-prefill"), "-f", "json").stdout)
    (target,) = doc["targets"]
    assert {f["name"] for f in target["figures"]} >= {"ttft_p95", "itl_p95", "probe_requests"}
    assert target["probe"] and target["probe"][0]["samples"], "the probe's own figures are in the JSON"


def test_nagios_for_a_fleet_prefixes_labels_with_the_target(tmp_path):
    from llmdoctor.model import Figure, Report, TargetReport
    from llmdoctor.render.oneline import render_nagios

    r = Report("x", (TargetReport("gpu1", "ollama", figures=(Figure("ttft_p95", 0.81, "s", 2, 5),)),
                     TargetReport("gpu2", "unreachable", errors=("connection refused",), reachable=False)))
    line = render_nagios(r)
    assert line.startswith("LLMDOCTOR UNKNOWN - gpu1: no problems found in what was examined; gpu2: unreachable")
    assert "'gpu1_ttft_p95'=0.81s;2;5;0" in line and "'gpu2_findings_warning'=0;;;0" in line


def test_quiet_prints_the_summary_line_only():
    p = run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), "--quiet")
    assert p.returncode == 1 and p.stderr == ""
    assert p.stdout.startswith("WARNING: CPU_SPILL: ") and p.stdout.count("\n") == 1
    p = run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), "-q", "-f", "json")
    assert p.returncode == 3 and p.stderr.count("\n") == 1


def test_verbose_says_what_was_read_and_each_facts_time_on_stderr():
    p = run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), "-v", "-f", "json")
    report_doc(p.stdout)  # stdout stays the report
    assert "facts, slowest first" in p.stderr
    assert re.search(r"\d+\.\d ms  ollama_ps\s+read", p.stderr), p.stderr
    assert re.search(r"gpu\s+not read: .*nvidia_smi", p.stderr), p.stderr
    assert "examined: loaded models" in p.stderr


@pytest.mark.parametrize("command", [["diagnose"], ["probe"], ["plan"], ["tune"], ["tune", "ollama"], ["completion"],
                                     ["collect"], ["checks"], ["facts"], ["exporter"], ["ready"], ["messages"],
                                     ["explain"], ["history"], ["schema"], []])
def test_help_has_examples(command):
    p = run(*command, "--help")
    assert p.returncode == 0
    examples = p.stdout.split("Examples:", 1)[1].strip().splitlines()
    assert len(examples) >= 2 and all("llmdoctor" in e for e in examples), p.stdout
    assert "[user@]host" in run("diagnose", "--help").stdout  # help is not read as markup


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_options_and_subcommands(tmp_path):
    script = tmp_path / "complete.sh"
    script.write_text("""
source <(llmdoctor completion bash)
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _llmdoctor_completion llmdoctor; echo "${COMPREPLY[*]}"; }
ask llmdoctor diag
ask llmdoctor diagnose --for
ask llmdoctor tune ol
ask llmdoctor diagnose --format m
ask llmdoctor diagnose --only QUEUE
ask llmdoctor messages ""
ask llmdoctor ready http://x -f n
ask llmdoctor completion ""
""")
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "llmdoctor").write_text(f"#!/bin/sh\nexec {sys.executable} -m llmdoctor \"$@\"\n")
    (shim / "llmdoctor").chmod(0o755)
    env = dict(ENV, PATH=f"{shim}:{ENV['PATH']}")
    p = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env, timeout=60, cwd=Path.cwd())
    assert p.stdout.splitlines() == ["diagnose", "--forks --format", "ollama", "markdown", "QUEUEING QUEUE_FULL",
                                     "ollama vllm llamacpp sglang llama.cpp", "nagios", "bash zsh fish"], (p.stdout, p.stderr)


def test_completion_offers_every_engine_the_catalogue_knows():
    from llmdoctor.cli.complete import ENGINES, check_ids_and_causes
    from llmdoctor.knowledge.messages import ENGINE_NAMES

    assert ENGINES == ENGINE_NAMES
    offered = check_ids_and_causes("")
    assert "ollama-one-slot" in offered and "QUEUEING" in offered


@pytest.mark.parametrize("shell,marker", [("zsh", "compdef _llmdoctor_completion llmdoctor"),
                                          ("fish", "complete --command llmdoctor")])
def test_zsh_and_fish_scripts(shell, marker):
    p = run("completion", shell)
    assert p.returncode == 0 and marker in p.stdout


def test_unknown_shell_is_a_usage_error():
    p = run("completion", "tcsh")
    assert p.returncode == 3 and p.stderr.count("\n") == 1 and "bash, zsh, fish" in p.stderr


def test_schema_is_published_valid_and_matches_the_model():
    p = run("schema")
    assert p.returncode == 0
    schema = json.loads(p.stdout)
    assert schema == report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    finding = schema["$defs"]["finding"]["properties"]
    assert finding["cause"]["enum"] == [c.value for c in Cause]
    assert finding["severity"]["enum"] == [s.value for s in Severity]
    assert finding["confidence"]["enum"] == [c.value for c in Confidence]


def test_schema_rejects_a_report_that_breaks_the_contract():
    doc = report_doc(run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), "-f", "json").stdout)
    doc["targets"][0]["findings"][0]["cause"] = "SLOW"
    with pytest.raises(AssertionError, match="cause"):
        report_doc(json.dumps(doc))


def test_engine_none_is_in_the_contract(tmp_path):
    (tmp_path / "meta.json").write_text('{"host": "empty"}')
    doc = report_doc(run("diagnose", "--evidence", str(tmp_path), "-f", "json").stdout)
    assert doc["targets"][0]["engine"] == "none"


def test_width_option_and_columns():
    wide = run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), "--width", "0").stdout
    assert max(len(l) for l in wide.splitlines()) > 120
    for args, env, width in (([], ENV, 80), (["--width", "60"], ENV, 60), ([], dict(ENV, COLUMNS="100"), 100)):
        out = run("diagnose", "--evidence", str(EVIDENCE / "ollama-cpu-spill"), *args, env=env).stdout
        assert len(out.splitlines()[0]) == width
        # only a path or a command word that cannot be cut without breaking a paste may overrun
        assert all(len(l) <= width or len(l.split()) <= 2 for l in out.splitlines()), out


@pytest.mark.parametrize("columns", [60, 120])
@pytest.mark.parametrize("command", ["checks", "facts"])
def test_listings_wrap_to_the_terminal_width(command, columns):
    p = run(command, env=dict(ENV, COLUMNS=str(columns)))
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert len(lines) > 20 and max(len(line) for line in lines) <= columns, p.stdout
