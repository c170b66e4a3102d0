"""The package's layers import only downward, and nothing imports in a circle.

Read from the source (every import statement, those inside functions too), so a lazy
import made for start-up time counts like any other:

    cli -> render -> app -> plugins, checks -> judge -> facts -> hosts -> knowledge -> base

A module may import its own layer and any layer below. Collectors never ask which kind
of host they have: only hosts/ may look at `host.kind`. Exit codes are ExitCode names.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "llmdoctor"
CHECKS = PACKAGE.parent / "checks"  # installed as llmdoctor.checks (pyproject.toml's package-dir)

LAYERS = (
    ("base", ("llmdoctor", "llmdoctor.model", "llmdoctor.parsing", "llmdoctor.redact", "llmdoctor.atomic")),
    ("knowledge", ("llmdoctor.knowledge",)),
    ("hosts", ("llmdoctor.hosts",)),
    ("facts", ("llmdoctor.facts",)),
    ("judge", ("llmdoctor.judge",)),
    ("plugins", ("llmdoctor.plugins", "llmdoctor.checks")),
    ("app", ("llmdoctor.app",)),
    ("render", ("llmdoctor.render",)),
    ("cli", ("llmdoctor.cli", "llmdoctor.__main__")),
)


def modules() -> dict[str, Path]:
    found = {}
    for p in PACKAGE.rglob("*.py"):
        parts = [x for x in p.relative_to(PACKAGE.parent).with_suffix("").parts if x != "__init__"]
        found[".".join(parts)] = p
    for p in CHECKS.glob("*.py"):
        found["llmdoctor.checks" + ("" if p.stem == "__init__" else f".{p.stem}")] = p
    return found


MODULES = modules()


def layer_of(module: str) -> int:
    best, index = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    assert index is not None, f"{module} belongs to no layer: add it to LAYERS"
    return index


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            if n == "llmdoctor" or n.startswith("llmdoctor."):
                target = _resolve(n)
                if target and target != module:
                    out.add(target)
    return out


GRAPH = {m: imports_of(m) for m in MODULES}


def test_every_module_has_a_layer():
    for m in MODULES:
        layer_of(m)


def test_imports_go_only_downward():
    upward = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
                    for m, targets in GRAPH.items() for t in targets
                    if t != "llmdoctor" and layer_of(t) > layer_of(m))
    assert upward == []


def test_no_import_cycle():
    # package __init__ modules are left out of the walk when the edge is an `import a.b.c`
    # naming a child: the edge to a child is real, the parent only the path to it
    cycles: list[str] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(GRAPH[m]):
            if t == "llmdoctor":
                continue
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)
    assert cycles == []


def test_only_hosts_ask_which_kind_of_host_they_have():
    asks = re.compile(r"\bhost\.kind\b|getattr\(\s*[\w.]*host\s*,\s*[\"']kind[\"']")
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}" for m, p in MODULES.items() if not m.startswith("llmdoctor.hosts")
             for n, line in enumerate(p.read_text().splitlines(), 1) if asks.search(line)]
    assert found == []


def test_exit_codes_are_named():
    bare = re.compile(r"\b(?:Exit|SystemExit|sys\.exit)\(\s*(?:\d|\w+ if .* else \d)")
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}" for p in MODULES.values()
             for n, line in enumerate(p.read_text().splitlines(), 1) if bare.search(line)]
    assert found == []


def test_comments_point_to_nothing_outside_the_repository():
    outside = re.compile(r"\b(?:FACTS|USERS|DESIGN|STYLE|TESTBED)\.md\b|\bthe seeds\b")
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}" for p in MODULES.values()
             for n, line in enumerate(p.read_text().splitlines(), 1) if outside.search(line)]
    assert found == []


def test_check_files_stay_short():
    long = [f"{p.name}: {n} lines" for p in CHECKS.glob("*.py")
            if (n := len(p.read_text().splitlines())) > 100]
    assert long == [], "a check is its trigger plus a short body: split the file or move helpers to judge/"


# `.recorded`, hasattr(host, ...)/getattr(host, ...) (any object's `host`), or any getattr/hasattr
# asking for "recorded"
ASKS_HOST = re.compile(r"\.recorded\b|\b(?:has|get)attr\(\s*(?:[\w.]*\.)?host\b|"
                       r"\b(?:has|get)attr\([^)]*[\"']recorded[\"']")


def test_collectors_never_ask_which_host_they_have():
    """Outside hosts/, nothing reads `recorded` or probes a host with hasattr/getattr: a host
    answers what it can (kept(), observe(), partial) and raises Unanswerable for the rest."""
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}" for m, p in MODULES.items() if not m.startswith("llmdoctor.hosts")
             for n, line in enumerate(p.read_text().splitlines(), 1) if ASKS_HOST.search(line)]
    assert found == []


def test_the_host_rule_sees_what_it_should():
    for asks in ("if ctx.host.recorded:", "hasattr(host, 'kept')", "getattr(self.host, \"journal\", None)",
                 "getattr(h, 'recorded', False)", "hasattr(target, \"recorded\")"):
        assert ASKS_HOST.search(asks), asks
    for fine in ("recorded = True", "host.kept()", "getattr(finding, 'remedy', None)", "a recorded file",
                 "hostname = getattr(args, 'hostname', '')"):
        assert not ASKS_HOST.search(fine), fine
