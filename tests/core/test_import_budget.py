"""Start-up structure: what loading the collectors and checks, and one diagnosis, import.

`llmdoctor diagnose` is benchmarked against `python -c "import rich, typer"`
(bench/diagnose_startup.py). A diagnosis imports a fact module when one of its facts is
asked for and a check file when its trigger holds, and both may import only the light core
at module level: engine parsers, helpers and third-party libraries are imported where they
are used. These tests guard that structure, not the time: each runs a fresh interpreter
and looks at sys.modules.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"

# Never imported by merely loading the providers and checks. The probe modules
# (llmdoctor.facts.live_probe.*) are left out for now: checks/probe_*.py and facts/probe.py are
# being changed by the probe work; add "llmdoctor.facts.live_probe" here once they import it lazily.
HEAVY = (
    "llmdoctor.knowledge.ollama.log", "llmdoctor.judge.ollama", "llmdoctor.judge.ollama_kv",
    "llmdoctor.facts.ollama_api", "llmdoctor.knowledge.ollama.ps", "llmdoctor.knowledge.ollama.env",
    "llmdoctor.knowledge.vllm.log", "llmdoctor.knowledge.vllm.metrics", "llmdoctor.knowledge.vllm.cmdline",
    "llmdoctor.knowledge.llamacpp.endpoints", "llmdoctor.knowledge.llamacpp.log", "llmdoctor.knowledge.llamacpp.cmdline",
    "llmdoctor.knowledge.prom", "llmdoctor.knowledge.systemd.units", "llmdoctor.facts.systemd_files", "llmdoctor.knowledge.systemd.environ",
    "llmdoctor.knowledge.systemd.show", "llmdoctor.hosts.logs", "llmdoctor.knowledge.memory", "llmdoctor.knowledge.nvidia", "llmdoctor.knowledge.capacity",
    "llmdoctor.app.tune", "llmdoctor.app.exporter", "prometheus_client", "pynvml", "requests", "numpy", "psutil",
    "rich.console", "concurrent.futures",
)


def imported_after(code: str) -> set[str]:
    """Module names in sys.modules after running `code` in a fresh interpreter."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.__stderr__)\n"
    env = {**os.environ, "NO_COLOR": "1"}
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    return set(json.loads(res.stderr.strip().splitlines()[-1]))


def heavy_in(modules: set[str], names=HEAVY) -> list[str]:
    return sorted(m for m in modules for h in names if m == h or m.startswith(h + "."))


def test_loading_providers_and_checks_imports_only_the_core():
    mods = imported_after(
        "from llmdoctor.facts import load_providers\nload_providers()\n"
        "from llmdoctor.plugins import load_checks\nspecs, errors = load_checks()\nassert specs and not errors, errors\n"
    )
    assert heavy_in(mods) == []


def test_registering_every_command_imports_only_typer():
    mods = imported_after("import llmdoctor.cli as cli\ncli._register_commands()\n")
    assert heavy_in(mods) == []


def diagnose_modules(evidence: str) -> set[str]:
    return imported_after(
        "import sys\nfrom llmdoctor.cli import main\n"
        f"sys.argv = ['llmdoctor', 'diagnose', '--evidence', {str(EVIDENCE / evidence)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
    )


OLLAMA_ONLY = ("llmdoctor.knowledge.ollama.log", "llmdoctor.judge.ollama", "llmdoctor.facts.ollama_api")
VLLM_ONLY = ("llmdoctor.knowledge.vllm.log", "llmdoctor.knowledge.vllm.cmdline", "llmdoctor.facts.vllm")
LLAMACPP_ONLY = ("llmdoctor.knowledge.llamacpp.endpoints", "llmdoctor.knowledge.llamacpp.log", "llmdoctor.facts.llamacpp")
SGLANG_ONLY = ("llmdoctor.knowledge.sglang", "llmdoctor.facts.sglang")
# the container parsers, the memory parsers and tempfile: only with a container recording,
# with /proc/meminfo or vmstat output, with a directory to make
NOT_HERE = ("llmdoctor.knowledge.containers.inspect", "llmdoctor.knowledge.containers.compose",
            "llmdoctor.knowledge.memory", "tempfile")
ALWAYS_HEAVY = ("prometheus_client", "pynvml", "requests", "numpy", "rich.console", "llmdoctor.app.tune",
                "llmdoctor.app.exporter", "llmdoctor.plugins.reindex")
CHECKS = "llmdoctor_checks_built_in_"  # the module names the loader gives the built-in check files


@pytest.mark.parametrize("evidence,absent,engine", [
    ("vllm-preempt-v1", OLLAMA_ONLY + LLAMACPP_ONLY + SGLANG_ONLY + ("llmdoctor.facts.systemd_files", "llmdoctor.knowledge.nvidia"),
     "vllm"),
    ("ollama-cpu-spill", VLLM_ONLY + LLAMACPP_ONLY + SGLANG_ONLY + NOT_HERE + ("llmdoctor.facts.systemd_files",), "ollama"),
    ("llamacpp-prefill", OLLAMA_ONLY + VLLM_ONLY + SGLANG_ONLY, "llamacpp"),
    ("sglang-healthy", OLLAMA_ONLY + VLLM_ONLY + LLAMACPP_ONLY, "sglang"),
    ("config-no-reload", VLLM_ONLY + LLAMACPP_ONLY + SGLANG_ONLY + NOT_HERE, "ollama"),
])
def test_a_diagnosis_imports_only_what_its_evidence_needs(evidence, absent, engine):
    """Facts of an absent engine are quietly unavailable before their modules are imported,
    and checks whose trigger does not hold are never imported (their triggers are read from
    plugins/builtin_index.py); piped text output needs no rich.console, and a metrics.prom
    that parses plainly needs no prometheus_client."""
    modules = diagnose_modules(evidence)
    assert heavy_in(modules, absent + ALWAYS_HEAVY) == []
    checks = {m[len(CHECKS):] for m in modules if m.startswith(CHECKS)}
    others = {"ollama", "vllm", "llamacpp", "sglang"} - {engine}
    assert checks and not {c for c in checks if c.split("_", 1)[0] in others}, sorted(checks)


@pytest.mark.parametrize("command,frozen", [("diagnose", True), ("exporter", False)])
def test_a_command_line_run_freezes_what_lives_at_exit(command, frozen):
    """The exit handler (registered once however often it is asked) freezes the live objects,
    so that the interpreter's last collections skip them; the long-running exporter keeps the
    ordinary collector."""
    code = (
        "import atexit, gc, llmdoctor\n"
        f"llmdoctor.collect_garbage_less(['llmdoctor', {command!r}])\n"
        f"llmdoctor.collect_garbage_less(['llmdoctor', {command!r}])\n"
        "n = atexit._ncallbacks()\natexit._run_exitfuncs()\nprint(n, gc.get_freeze_count() > 0)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.stdout.split() == (["1", "True"] if frozen else ["0", "False"]), res.stderr
