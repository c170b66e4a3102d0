"""Weighing evidence: the server's own record outweighs a line a user wrote.

A shell `export` of a value the running server has (its `server config` log line, taken
from tests/fixtures/evidence/ollama-healthy/journal.log, a real Ollama 0.5 start-up) is not a
setting "not applied"; the same export of another value still is.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks

HEALTHY = Path(__file__).resolve().parent.parent / "fixtures" / "evidence" / "ollama-healthy"


def findings(tmp_path, export: str):
    shutil.copy(HEALTHY / "journal.log", tmp_path / "journal.log")
    (tmp_path / "shell_export.txt").write_text(export + "\n")
    specs, _ = load_checks(site_dir=None, entry_points=False)
    res = diagnose_target(EvidenceHost(tmp_path), DiagnoseOptions(sample_seconds=0), specs)
    return [(f.check, f.severity.value) for f in res.report.findings if f.check == "config-set-outside-server"]


def test_an_export_the_server_runs_with_is_applied(tmp_path):
    assert findings(tmp_path, "export OLLAMA_MAX_LOADED_MODELS=5") == [("config-set-outside-server", "info")]


def test_an_export_of_another_value_is_not_applied(tmp_path):
    assert findings(tmp_path, "export OLLAMA_MAX_LOADED_MODELS=2") == [("config-set-outside-server", "warning")]


FIX = Path(__file__).resolve().parent.parent / "fixtures"


def _summary(*names: str):
    from llmdoctor.knowledge.ollama.log import OllamaLogScanner

    lines = [ln for n in names for ln in (FIX / n).read_text().splitlines()]
    return OllamaLogScanner().feed_all(lines, "journal.log").summary()


def test_a_cpu_only_host_is_a_fact_not_a_fault():
    """ollama#16970: the start-up inventory lists only `library=cpu` (tests/fixtures/ollama)."""
    from llmdoctor.checks.ollama_cpu_only_host import cpu_only_host

    (f,) = cpu_only_host(_summary("ollama/log_inventory_cpu_only.log"))
    assert f.severity.value == "info" and "library=cpu" in f.evidence[0].text


def test_a_lost_gpu_is_no_cpu_only_host():
    """The same CPU-only inventory after CUDA failed to initialise (evidence/ollama-gpu-lost)."""
    from llmdoctor.checks.ollama_cpu_only_host import cpu_only_host

    assert list(cpu_only_host(_summary("evidence/ollama-gpu-lost/journal.log"))) == []
    assert list(cpu_only_host(_summary("evidence/ollama-healthy/journal.log"))) == []


def test_ollamas_runner_is_no_llama_server_command_line():
    """ollama#11964 (tests/fixtures/ollama/cmd_runner_parallel5.txt): `ollama runner` takes
    llama-server's flags (--parallel 5, --ctx-size 40960), but they are Ollama's settings."""
    from llmdoctor.knowledge.llamacpp.cmdline import looks_like_llama_cmdline, parse_llama_cmdline

    runner = (FIX / "ollama" / "cmd_runner_parallel5.txt").read_bytes()
    assert not looks_like_llama_cmdline(list(parse_llama_cmdline(runner).argv))
    old = b"/tmp/ollama1/runners/cuda_v12/ollama_llama_server --model /x/blobs/sha256-1 --ctx-size 2048 --parallel 1"
    assert not looks_like_llama_cmdline(list(parse_llama_cmdline(old).argv))
    own = b"llama-server -m /root/.ollama/models/blobs/sha256-b112e727c6f1 -c 8192 -np 4"  # a blob served by llama-server
    assert looks_like_llama_cmdline(list(parse_llama_cmdline(own).argv))


def test_the_runners_layers_outweigh_the_schedulers_estimate():
    """ollama#11819's scheduler estimate (layers.offload=48 of 49) is a spill on its own; the
    runner's own `load_tensors: offloaded 49/49 layers to GPU` (llama.cpp's wording, added here)
    says every layer went to the GPU, and wins."""
    from llmdoctor.checks.ollama_cpu_spill import cpu_spill
    from llmdoctor.knowledge.ollama.log import OllamaLogScanner

    est = [ln for ln in (FIX / "ollama" / "log_v011_runner_journal.log").read_text().splitlines() if "layers.offload=" in ln]
    runner = "Aug 08 23:02:40 j-360 ollama[1617]: load_tensors: offloaded 49/49 layers to GPU"
    alone = OllamaLogScanner().feed_all(est, "journal.log").summary()
    both = OllamaLogScanner().feed_all(est + [runner], "journal.log").summary()
    assert [f.cause.value for f in cpu_spill(ollama_log=alone)] == ["CPU_SPILL"]
    assert list(cpu_spill(ollama_log=both)) == []


def test_a_process_environment_with_the_value_outweighs_the_rc_file(tmp_path):
    """evidence/config-shell-export (recorded from systemd 252): `export OLLAMA_HOST=...` in
    ~/.bashrc, which the service never reads, is "not applied"; the same recording whose running
    process has the value in /proc/PID/environ (started from that shell after all) is not."""
    src = FIX / "evidence" / "config-shell-export"
    specs, _ = load_checks(site_dir=None, entry_points=False)

    def fired(d):
        res = diagnose_target(EvidenceHost(d), DiagnoseOptions(sample_seconds=0), specs)
        return [f.check for f in res.report.findings if f.check == "systemd-env-outside-unit"]

    assert fired(src) == ["systemd-env-outside-unit"]
    shutil.copytree(src, tmp_path / "e")
    environ = tmp_path / "e" / "files" / "proc" / "114" / "environ"
    environ.write_bytes(environ.read_bytes().rstrip(b"\0") + b"\0OLLAMA_HOST=0.0.0.0:11434\0")
    assert fired(tmp_path / "e") == []
