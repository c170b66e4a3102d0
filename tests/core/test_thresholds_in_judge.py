"""Deciding happens in judge/: no check compares a fact with a number of its own.

Every threshold a check uses is named in llmdoctor/judge/thresholds.py with where it comes
from, so "where does QUEUEING get its threshold?" has one answer. This reads the AST of
every file in checks/ (and of the judge/ helpers that decide for them) and fails on a number
literal inside a comparison, or on a module-level number of the file's own compared with
anything. (The live probe's verdicts keep theirs in judge/probe/thresholds.py.)

Allowed: 0, 1 and -1 (and 0.0/1.0), the emptiness, plurality and index idioms (`n > 0`,
`len(x) > 1`, `s[-1] == ...`); numbers inside a subscript (`xs[:3]`, how many lines are
shown, not a decision); arithmetic around a named threshold is checked like any operand.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKS = sorted((ROOT / "checks").glob("*.py"))
# The judge/ helpers whose verdicts the checks take as they are (why requests wait, is the host
# swapping, is the card busy): their cut-offs are thresholds of the checks too. (sizing.py and
# proposal.py size a configuration for tune and plan; remedy.py, pod_fixes.py and fixes.py
# write fixes; they are not held to this.)
JUDGE_HELPERS = [ROOT / "llmdoctor/judge" / f"{name}.py" for name in (
    "vllm", "sglang", "swap", "gpu", "ollama", "ollama_kv", "llamacpp", "progress", "systemd", "queue_shape",
    "chains", "weighing", "deadlines")]
IDIOMS = {0, 1, -1}

# Parsers that still decide (compare what they read with a threshold of their own): none since
# issue 26 moved the Ollama scanner's serial-service rule to judge.ollama.serial_service. Each entry says what the judge should compare instead. Close an entry by moving
# the number to judge/thresholds.py and the comparison to a check or a judge/ helper; the parser
# then reports the raw figure (a series, a histogram, the gaps).
DECIDING_PARSERS: dict[str, str] = {}


# Numbers knowledge/ modules compare that say how to read, not whether it is bad: bounds on memory
# and examples (MAX_*, *_MAX, EXAMPLES, RECENT, *_CHARS) anywhere, and these, each with its reason.
READING = {
    "llmdoctor/knowledge/ollama/gin_columns.py": {"_NUM_W": "the widest number gin's 13-rune duration field holds"},
    "llmdoctor/knowledge/ollama/log.py": {"COLUMNS_MIN": "which path reads a block's gin lines (the same results)",
                                          "COLUMNS_RUN": "which path reads a run of gin lines (the same results)"},
    "llmdoctor/knowledge/ollama/env.py": {"FOREVER_NS": "Go's MaxInt64 duration, how Ollama prints 'forever'"},
    "llmdoctor/knowledge/ollama/ps.py": {"SIZE_CHANGE_SHARE": "`ollama ps` rounds sizes (31 GB): a smaller move "
                                                               "is the same load printed again"},
    "llmdoctor/knowledge/amd.py": {"UNIFIED_RATIO": "what the card is (an APU's carve-out), not how it does"},
    "llmdoctor/knowledge/llamacpp/cmdline.py": {"FA_TAKES_VALUE_BUILD": "the build from which `-fa` takes a value "
                                                                        "(llama.cpp#15434): which flags it accepts"},
    "llmdoctor/knowledge/pasted.py": {"*": "paste repair: how a mail client or chat window mangled the text"},
    "llmdoctor/knowledge/probe/sweep.py": {
        "FIT_SHARE": "how much of its deadline the sweep's own plan may fill: what it sends, not how a server does",
        "FIT_MIN_LEVELS": "the fewest concurrency levels the sweep's own plan keeps: what it sends"},
    "llmdoctor/knowledge/concurrency.py": {"ROUND_TOLERANCE_S": "gin prints durations under a minute to the "
                                                                 "nanosecond: how close to a round number is one"},
}
_BOUND = re.compile(r"^_?(MAX_\w+|\w+_MAX|EXAMPLES|RECENT|\w+_CHARS)$")
KNOWLEDGE = sorted((ROOT / "llmdoctor/knowledge").rglob("*.py"))


def _number(node: ast.AST):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def _operand_numbers(node: ast.AST):
    """Number literals in a comparison operand, leaving subscripts (slices, indexes) out."""
    n = _number(node)
    if n is not None:
        yield node, n
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Subscript) and child is node.slice:
            continue
        yield from _operand_numbers(child)


def _module_numbers(tree: ast.Module) -> set[str]:
    names = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        if value is not None and _number(value) is not None:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def inline_thresholds(source: str, filename: str = "<check>") -> list[str]:
    """`line: text` for each comparison with a number of the file's own."""
    tree = ast.parse(source, filename)
    own = _module_numbers(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for operand in [node.left, *node.comparators]:
            bad = [n for _, n in _operand_numbers(operand) if n not in IDIOMS]
            bad += [s.id for s in ast.walk(operand) if isinstance(s, ast.Name) and s.id in own]
            if bad:
                found.append(f"{node.lineno}: {ast.unparse(node)} ({', '.join(map(str, bad))})")
                break
    return found


@pytest.mark.parametrize("path", CHECKS + JUDGE_HELPERS, ids=[str(p.relative_to(ROOT)) for p in CHECKS + JUDGE_HELPERS])
def test_checks_compare_named_thresholds(path: Path) -> None:
    found = inline_thresholds(path.read_text(encoding="utf-8"), str(path))
    assert not found, (f"{path.name} compares facts with numbers of its own; name them in "
                       f"llmdoctor/judge/thresholds.py (with where they come from):\n" + "\n".join(found))


def test_the_rule_sees_what_it_should() -> None:
    assert inline_thresholds("if x.count >= 3: pass")
    assert inline_thresholds("y = a if f.kv_usage >= 0.8 else b")
    assert inline_thresholds("ok = held < 0.05 * m.size")
    assert inline_thresholds("ok = x >= max(keep, 60)")
    assert inline_thresholds("LIMIT = 4\ndef f(n):\n    return n > LIMIT")
    assert not inline_thresholds("ok = len(x) > 1 and n == 0 and s[-1] == 'a'")
    assert not inline_thresholds("ok = xs[:3] == ys[:3] and n >= MIN_N")
    assert not inline_thresholds("SHOWN = 3\nrest = xs[SHOWN:]")


def test_thresholds_module_is_constants_only() -> None:
    """Every check imports it on every run: names and numbers, nothing to execute."""
    tree = ast.parse((ROOT / "llmdoctor/judge/thresholds.py").read_text(encoding="utf-8"))
    for stmt in tree.body:
        assert isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.ImportFrom)), ast.unparse(stmt)[:80]
        if isinstance(stmt, ast.Assign):
            assert all(isinstance(t, ast.Name) and t.id.isupper() for t in stmt.targets), ast.unparse(stmt)[:80]


def test_deciding_parsers_allow_list_is_current() -> None:
    """The allow-list names files that exist, each with what the judge should compare instead."""
    for path, why in DECIDING_PARSERS.items():
        assert (ROOT / path).is_file(), f"{path} is gone: drop it from DECIDING_PARSERS"
        assert len(why) > 40


def _compared_constants(source: str) -> set[str]:
    tree = ast.parse(source)
    own = _module_numbers(tree)
    return {n.id for c in ast.walk(tree) if isinstance(c, ast.Compare) for n in ast.walk(c)
            if isinstance(n, ast.Name) and n.id in own}


@pytest.mark.parametrize("path", KNOWLEDGE, ids=[str(p.relative_to(ROOT / "llmdoctor/knowledge")) for p in KNOWLEDGE])
def test_parsers_report_what_they_read(path: Path) -> None:
    """A knowledge/ module compares what it read only with bounds and the format's own numbers;
    a cut-off that says "bad" belongs to judge/thresholds.py and a check (DECIDING_PARSERS lists
    the parsers that still decide, each with what the judge should compare instead)."""
    rel = str(path.relative_to(ROOT))
    allowed = READING.get(rel, {})
    if rel in DECIDING_PARSERS or "*" in allowed:
        return
    own = {n for n in _compared_constants(path.read_text(encoding="utf-8")) if not _BOUND.match(n)}
    unexplained = sorted(own - set(allowed))
    assert not unexplained, (f"{rel} compares what it read with {', '.join(unexplained)}: a verdict belongs in "
                             f"judge/thresholds.py and a check; a bound or the format's own number goes in READING")

