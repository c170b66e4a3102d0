"""A check says what to change as a Remedy (values); judge/fixes.py alone writes drop-ins,
`setx` lines, compose snippets, kubectl and docker commands and server command lines, and
the merge (judge/remedy.py) reads values, never our own text back with a regular expression.

Read from the source: every string literal of a check file but its docstrings."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from llmdoctor.judge import fixes
from llmdoctor.model import REMOVE, Cause, Evidence, Finding, Remedy, Setting, Severity

ROOT = Path(__file__).resolve().parents[2]
CHECKS = sorted(p for p in (ROOT / "checks").glob("*.py") if p.name != "__init__.py")

# What only the renderer writes.
RENDERED = {
    "a drop-in": re.compile(r"\[Service\]"),
    "an Environment= line": re.compile(r'Environment="?[A-Za-z_][A-Za-z0-9_]*='),
    "setx": re.compile(r"\bsetx [A-Za-z_]"),
    "launchctl setenv": re.compile(r"\blaunchctl setenv\b"),
    "a docker command": re.compile(r"\bdocker (run|compose|rm|update|exec|logs|restart|stats|inspect)\b"),
    "a kubectl command": re.compile(r"\bkubectl [a-z]"),
    "a server command line": re.compile(r"\bllama-server (-|\.\.\.)|\bvllm serve\b|sglang\.launch_server|"
                                        r"\bsglang serve\b|\bLLM\(model="),
}

# Check files not converted yet, with what they still write: the list only shrinks.
NOT_YET: dict[str, set[str]] = {}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _decorator_strings(tree: ast.AST) -> set[int]:
    """The @check(purpose=...) texts: they describe, they are not fixes."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                ids.update(id(n) for n in ast.walk(d) if isinstance(n, ast.Constant))
    return ids


def rendered_strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree) | _decorator_strings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found |= {what for what, pattern in RENDERED.items() if pattern.search(node.value)}
    return found


@pytest.mark.parametrize("path", CHECKS, ids=[p.name for p in CHECKS])
def test_no_check_writes_what_the_renderer_writes(path):
    found = rendered_strings(path)
    allowed = NOT_YET.get(path.name, set())
    assert found <= allowed, f"{path.name} writes {sorted(found - allowed)}: return a Remedy (judge/fixes.py)"
    assert not allowed or found, f"{path.name} is converted: take it off NOT_YET"


# judge/fixes.py's text-only wrappers (for callers outside checks/): a check using one gives a fix
# with no Remedy, which "What to change" and tune never see.
TEXT_ONLY = ("settings_fix", "plus_commands", "serve_flags_text", "launch_flags_text")


@pytest.mark.parametrize("path", CHECKS, ids=[p.name for p in CHECKS])
def test_no_check_builds_a_fix_from_text_only_helpers(path):
    names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(ast.parse(path.read_text()))
             if isinstance(n, (ast.Name, ast.Attribute))}
    assert not names & set(TEXT_ONLY), f"{path.name} uses {sorted(names & set(TEXT_ONLY))}: build a Remedy (env, llama, vllm)"


def test_the_merge_reads_values_not_text():
    source = (ROOT / "llmdoctor" / "judge" / "remedy.py").read_text()
    assert not re.search(r"fix\.(config|commands)", source) and "import re\n" not in source and "LazyPattern" not in source
    pods = (ROOT / "llmdoctor" / "judge" / "pod_fixes.py").read_text()
    assert not re.search(r"remedy\._|_dropin_settings|_K8S_ENV|_COMPOSE", pods)  # settings from the remedy, never parsed back


def test_a_remedy_is_a_frozen_hashable_value():
    r = fixes.env("windows", OLLAMA_NUM_PARALLEL=4)
    assert r == fixes.env("windows", OLLAMA_NUM_PARALLEL=4) and hash(r) == hash(fixes.env("windows", OLLAMA_NUM_PARALLEL=4))
    assert r.settings == (Setting("OLLAMA_NUM_PARALLEL", 4),) and r.values() == {"OLLAMA_NUM_PARALLEL": "4"}
    f = Finding(Cause.QUEUEING, Severity.WARNING, "t", (Evidence("log", "x"),), fixes.remedy_fix("raise it", r))
    assert f.remedy is r and f.fix.summary == "raise it"


@pytest.mark.parametrize("where,first", [
    (None, "mkdir -p /etc/systemd/system/ollama.service.d"),
    ("windows", 'setx OLLAMA_NUM_PARALLEL "4"'),
    ("macos", 'launchctl setenv OLLAMA_NUM_PARALLEL "4"'),
    ("container", "docker compose up -d"),
    ("kubernetes", "kubectl rollout restart deploy/ollama"),
])
def test_one_remedy_is_rendered_for_every_place(where, first):
    commands, config = fixes.render(fixes.env(where, verify=("ollama ps",), OLLAMA_NUM_PARALLEL=4))
    assert commands[0].startswith(first) and commands[-1] == "ollama ps"
    assert "OLLAMA_NUM_PARALLEL" in config + " ".join(commands)


def test_server_flags_render_as_a_template_or_the_running_command_line():
    assert fixes.command_line(fixes.llama({"-np": 4, "-c": 16384, "--metrics": ""})) == \
        "llama-server -m MODEL -np 4 -c 16384 --metrics"
    argv = ("llama-server", "-m", "/m/q.gguf", "--parallel", "1", "--no-webui")
    assert fixes.command_line(fixes.llama({"-np": 4, "--no-webui": REMOVE}), argv) == "llama-server -m /m/q.gguf -np 4"
    assert fixes.command_line(fixes.vllm(None, max_num_seqs=64)) == "vllm serve MODEL --max-num-seqs 64"
    assert fixes.command_line(fixes.sglang(None, enable_mixed_chunk=True)) == \
        "python -m sglang.launch_server --model-path MODEL --enable-mixed-chunk"
    alt = fixes.either(fixes.llama({"-np": 2}), fixes.llama({"-np": 1}))
    assert isinstance(alt, Remedy) and fixes.render(alt)[0] == ("llama-server -m MODEL -np 2", "llama-server -m MODEL -np 1")


def test_a_rebuilt_command_line_keeps_a_secret_as_its_reference_and_never_prints_a_value():
    """Issue 29: the pod's args rebuilt from the kept values only."""
    from llmdoctor.app.diagnose import redact_finding
    from llmdoctor.judge.pod_fixes import in_pod
    from llmdoctor.knowledge.containers.podspec import PodSpec

    key = "sk-q7RemedyArgKeyAbCdEf0123456789"
    argv = ("vllm", "serve", "m", "--api-key", key, "--hf-token", "$(HF_TOKEN)", "--max-num-seqs", "8")
    r = fixes.flags("vllm serve", {"--max-num-seqs": 16}, argv=argv)
    f = redact_finding(Finding(Cause.QUEUEING, Severity.WARNING, "t", (Evidence("log", "x"),),
                               fixes.remedy_fix("more", r)))
    assert key not in repr(f) and "$(HF_TOKEN)" in f.remedy.argv
    spec = PodSpec(source="pod.json", pod="p", namespace="ns", owner="deploy/d", container="c", command=("vllm", "serve"),
                   args=argv[2:], argv=f.remedy.argv)
    fix = in_pod(f.fix, spec)
    assert key not in fix.config + " ".join(fix.commands)
    assert "$(HF_TOKEN)" in fix.config and "--max-num-seqs" in fix.config and "- '16'" not in fix.config
