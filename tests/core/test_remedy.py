"""One remediation per target: the findings' settings merged per place, conflicts resolved by
the stated rules, and no report that gives two changes to the same setting or file."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.judge import fixes
from llmdoctor.judge.remedy import merge, wanted_of
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import load_checks
from tests.support.realcases import CORPORA, cases, stage

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in EVIDENCE.glob("*/expected.json"))


def finding(check, cause=Cause.QUEUEING, severity=Severity.WARNING, commands=(), config="", remedy=None):
    fix = fixes.remedy_fix("do it", remedy) if remedy is not None else Fix("do it", tuple(commands), config)
    return Finding(cause, severity, check, (Evidence("log", "x"),), fix, check=check)


def ollama(check, cause=Cause.QUEUEING, severity=Severity.WARNING, where=None, **values):
    return finding(check, cause, severity, remedy=fixes.env(where, **values))


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def _no_double_changes(report):
    places = [c.place for c in report.changes]
    assert len(places) == len(set(places)), places
    merged = {check for c in report.changes for check in c.checks}
    for f in report.findings:
        w = wanted_of(f)
        if w is not None:  # every fix that is a setting went into the one change for its place
            assert f.check in merged, f.check
    for c in report.changes:
        names = [k for k, _ in c.settings]
        assert len(names) == len(set(names)), c
        assert "override.conf" not in c.config + " ".join(c.commands)


@pytest.mark.parametrize("directory", DIRS, ids=[d.name for d in DIRS])
def test_no_fixture_gives_two_changes_to_the_same_setting_or_file(directory, specs):
    _no_double_changes(diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs).report)


def test_no_real_case_gives_two_changes_to_the_same_setting_or_file(specs, tmp_path):
    for root in CORPORA:
        for case in cases(root):
            directory = tmp_path / root.name / case.name
            directory.mkdir(parents=True)
            stage(case, directory)
            _no_double_changes(diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs).report)


def test_three_drop_ins_become_one_of_llmdoctors_own():
    findings = [ollama("a", OLLAMA_KEEP_ALIVE="24h", OLLAMA_NUM_PARALLEL=4),
                ollama("b", Cause.CONTEXT_TRUNCATION, OLLAMA_CONTEXT_LENGTH=32768),
                ollama("c", Cause.PREFILL, OLLAMA_FLASH_ATTENTION=1, OLLAMA_KV_CACHE_TYPE="q8_0")]
    (change,) = merge(findings)
    assert change.place == "systemd ollama.service" and change.checks == ("a", "b", "c")
    assert dict(change.settings) == {"OLLAMA_KEEP_ALIVE": "24h", "OLLAMA_NUM_PARALLEL": "4",
                                     "OLLAMA_CONTEXT_LENGTH": "32768", "OLLAMA_FLASH_ATTENTION": "1",
                                     "OLLAMA_KV_CACHE_TYPE": "q8_0"}
    assert change.config.startswith("# /etc/systemd/system/ollama.service.d/zz-llmdoctor.conf\n[Service]\n")
    assert change.config.count("[Service]") == 1 and not change.held_back


def test_no_raise_of_context_or_slots_while_memory_does_not_fit():
    findings = [ollama("spill", Cause.CPU_SPILL, OLLAMA_FLASH_ATTENTION=1, OLLAMA_KV_CACHE_TYPE="q8_0"),
                ollama("trunc", Cause.CONTEXT_TRUNCATION, OLLAMA_CONTEXT_LENGTH=32768),
                ollama("slots", OLLAMA_NUM_PARALLEL=4)]
    (change,) = merge(findings)
    assert dict(change.settings) == {"OLLAMA_FLASH_ATTENTION": "1", "OLLAMA_KV_CACHE_TYPE": "q8_0"}
    assert len(change.held_back) == 2 and all("memory does not fit" in h for h in change.held_back)


def test_disagreeing_values_are_resolved_and_said():
    findings = [ollama("a", Cause.CONTEXT_TRUNCATION, OLLAMA_CONTEXT_LENGTH=8192),
                ollama("b", Cause.CONTEXT_TRUNCATION, OLLAMA_CONTEXT_LENGTH=16384),
                ollama("c", Cause.MODEL_UNLOAD, Severity.CRITICAL, OLLAMA_KEEP_ALIVE="-1"),
                ollama("d", Cause.MODEL_UNLOAD, Severity.WARNING, OLLAMA_KEEP_ALIVE="24h")]
    (change,) = merge(findings)
    assert dict(change.settings)["OLLAMA_CONTEXT_LENGTH"] == "16384"  # covers both needs
    assert dict(change.settings)["OLLAMA_KEEP_ALIVE"] == "-1"  # the more severe finding's
    assert len(change.notes) == 2


def test_llama_server_slots_times_context_cover_every_request():
    """-np 4 from one check and -c 8192 (one request's need) from another: each slot gets 8192."""
    findings = [finding("ctx", Cause.CONTEXT_TRUNCATION, remedy=fixes.llama({"-c": 8192})),
                finding("slots", remedy=fixes.llama({"-np": 4, "-c": 8192, "--kv-unified": "", "--metrics": ""}))]
    (change,) = merge(findings)
    assert change.commands == ("llama-server -m MODEL -c 32768 -np 4 --kv-unified --metrics",)
    assert any("4 slot(s) × 8,192 tokens" in n for n in change.notes)


def test_the_running_command_line_is_corrected_not_replaced():
    argv = ("/opt/llama/llama-server", "-m", "/models/q.gguf", "--parallel", "1", "--ctx-size=4096", "--port", "8080")
    findings = [finding("slots", remedy=fixes.llama({"-np": 4, "-c": 32768}))]
    (change,) = merge(findings, {"llama-server command line": argv})
    assert change.commands == ("/opt/llama/llama-server -m /models/q.gguf --port 8080 -np 4 -c 32768",)


@pytest.mark.parametrize("where,place", [("windows", "Windows user environment"), ("macos", "macOS launchd environment"),
                                         ("container", "container environment"), (None, "systemd ollama.service")])
def test_every_form_fixes_write_is_read_back(where, place):
    (change,) = merge([ollama("a", where=where, OLLAMA_NUM_PARALLEL=4), ollama("b", where=where, OLLAMA_KEEP_ALIVE="1h")])
    assert change.place == place and dict(change.settings) == {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_KEEP_ALIVE": "1h"}


def test_a_fix_that_is_not_a_setting_stays_with_its_finding():
    odd = finding("x", config="[Service]\nExecStart=\nExecStart=/usr/bin/ollama serve\n")
    assert wanted_of(odd) is None and merge([odd]) == ()
    assert wanted_of(finding("y", commands=("journalctl -u ollama | grep runner",))) is None


def test_a_fix_that_repeats_the_command_less_a_flag_removes_that_flag():
    argv = ("python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "4", "--context-length", "6000",
            "--disable-radix-cache", "--port", "80")
    findings = [finding("radix", Cause.PREFILL, remedy=fixes.without(fixes.sglang(None), "--disable-radix-cache", argv)),
                finding("kv", Cause.KV_CAPACITY, remedy=fixes.sglang(None, context_length=4096)),
                finding("trunc", Cause.CONTEXT_TRUNCATION, remedy=fixes.sglang(None, context_length=160062))]
    (change,) = merge(findings, {"SGLang command line": argv})
    (command,) = change.commands
    assert "--disable-radix-cache" not in command and "--context-length 4096" in command and "--tp 4" in command
    assert any("not 160062" in n for n in change.notes)
