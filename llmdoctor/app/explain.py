"""`llmdoctor explain CHECK_ID`: every check explains itself, as ruff and ansible-lint do.

Nothing here is written per check: what a check finds is its purpose and its module's
docstring; why it slows users, its fix, when the fix is unsafe and its known false positives
are its cause's (knowledge/causes.py); the evidence lines it reads are the catalogued messages
(knowledge/messages.py) of the engines whose logs it reads, for its cause, with their
versions; its thresholds are the names of judge/thresholds.py (and judge/probe/thresholds.py)
that its body, or a judge helper it calls, compares with, read from the source, with the
comment written beside each and the site's override (config.py). A new check, message or
threshold is explained without an edit here; docs/checks/ is generated from the same values
(tests/core/test_explain.py fails when a page drifts).
"""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from functools import lru_cache
from importlib import import_module
from typing import Any

from llmdoctor.model import Record, record

DOCS_BASE = "https://github.com/llmdoctor/llmdoctor/blob/main/docs/checks/"
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
_LOG_FACTS = {"ollama_log": "ollama", "vllm_log": "vllm", "llamacpp_log": "llamacpp", "sglang_log": "sglang",
              "engine_no_gpu_line": None}


@record
class Threshold(Record):
    name: str
    value: Any
    default: Any
    comment: str
    source: str  # "" (the default) or the config file that overrides it


@record
class MessageRef(Record):
    id: str
    engine: str
    versions: str
    source: str
    tells: str
    example: str


@record
class Explanation(Record):
    id: str
    cause: str
    purpose: str
    about: str
    engines: tuple[str, ...]
    origin: str
    facts: tuple[tuple[str, str, bool], ...]  # (name, what it is, required)
    messages: tuple[MessageRef, ...]
    why: str
    fix: str
    unsafe: str
    false_positives: str
    thresholds: tuple[Threshold, ...]
    page: str


# -- thresholds --------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def threshold_comments() -> dict[str, str]:
    """NAME -> the comment block written above it (shared by the names assigned under one
    block) and any comment on its own line."""
    from llmdoctor.config import THRESHOLD_MODULES

    out: dict[str, str] = {}
    for mod in THRESHOLD_MODULES:
        block: list[str] = []
        after_assignment = False
        try:
            source = inspect.getsource(import_module(mod))
        except (ImportError, OSError):
            continue
        for line in source.splitlines():
            s = line.strip()
            if not s or s.startswith("# --") or s.startswith('"""'):
                block, after_assignment = [], False
                continue
            if s.startswith("#"):
                if after_assignment:
                    block, after_assignment = [], False
                block.append(s.lstrip("#").strip())
                continue
            m = re.match(r"([A-Z][A-Z0-9_]*)\s*=\s*[^#]*(?:#\s*(.*))?$", s)
            if m:
                text = " ".join(block + ([m.group(2)] if m.group(2) else []))
                out.setdefault(m.group(1), text)
                after_assignment = True
    return out


def _words(source: str) -> set[str]:
    return set(_WORD.findall(source))


def _judge_helpers(tree: ast.AST, used: set[str]) -> list[Any]:
    """The judge functions and modules a check's body calls (imports of llmdoctor.judge.*)."""
    out: list[Any] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("llmdoctor.judge"):
            continue
        if node.module.endswith("thresholds"):
            continue
        for alias in node.names:
            local = alias.asname or alias.name
            if local not in used:
                continue
            try:
                module = import_module(node.module)
                obj = getattr(module, alias.name, None)
                if obj is None:
                    obj = import_module(f"{node.module}.{alias.name}")
            except Exception:
                continue
            out.append(obj)
    return out


def _reached(obj: Any, known: set[str], seen: set[int]) -> set[str]:
    """Threshold names in a judge function's source and in the functions of its own module it
    calls, transitively (`throttled_by` -> `held` -> GPU_HELD_CLOCK_FRACTION)."""
    if id(obj) in seen:
        return set()
    seen.add(id(obj))
    try:
        words = _words(inspect.getsource(obj))
    except (OSError, TypeError):
        return set()
    found = words & known
    module = inspect.getmodule(obj)
    for word in words - known:
        callee = getattr(module, word, None)
        if inspect.isfunction(callee) and callee.__module__ == getattr(module, "__name__", None):
            found |= _reached(callee, known, seen)
    return found


def thresholds_of(func: Any) -> tuple[str, ...]:
    """Threshold names the check's function compares with, directly or in the judge helpers
    it calls (and the functions of their modules those call), in the modules' order."""
    from llmdoctor.config import threshold_names

    known = threshold_names()
    names = set(known)
    try:
        module_source = inspect.getsource(inspect.getmodule(func))
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return ()
    used = _words(source)
    found = used & names
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    seen: set[int] = set()
    for helper in _judge_helpers(tree, used):
        if inspect.ismodule(helper):  # `from llmdoctor.judge import sglang`: the functions used of it
            for attr in re.findall(rf"\b{re.escape(helper.__name__.rsplit('.', 1)[-1])}\.(\w+)", source):
                target = getattr(helper, attr, None)
                if target is not None:
                    found |= _reached(target, names, seen)
        else:
            found |= _reached(helper, names, seen)
    return tuple(n for n in known if n in found)


def threshold_rows(names: tuple[str, ...]) -> tuple[Threshold, ...]:
    from llmdoctor.config import OVERRIDES, threshold_names

    known, comments = threshold_names(), threshold_comments()
    rows = []
    for n in names:
        value = getattr(known[n], n)
        default = OVERRIDES[n][1] if n in OVERRIDES else value
        rows.append(Threshold(n, value, default, comments.get(n, ""), OVERRIDES[n][2] if n in OVERRIDES else ""))
    return tuple(rows)


# -- messages ------------------------------------------------------------------------------------
def messages_of(spec: Any) -> tuple[MessageRef, ...]:
    """The catalogued messages of the engines whose logs the check reads, for its cause."""
    from llmdoctor.knowledge.messages import FAMILY, catalogue

    engines: set[str] = set()
    for p in spec.params:
        if p not in _LOG_FACTS:
            continue
        engine = _LOG_FACTS[p]
        engines |= {engine, FAMILY} if engine in ("ollama", "llamacpp") else ({engine} if engine else set(spec.engines) | {FAMILY})
    cause = spec.cause.value
    out = []
    for m in catalogue():
        if m.engine in engines and cause in m.causes:
            example = next((e.line for e in m.examples if e.real), m.examples[0].line if m.examples else "")
            out.append(MessageRef(m.id, m.engine, m.versions, m.source, "; ".join(m.facts), example))
    return tuple(out)


# -- one check --------------------------------------------------------------------------------------
def _about(func: Any) -> str:
    """The check module's docstring (what is particular to its checks), unwrapped."""
    doc = inspect.getdoc(inspect.getmodule(func)) or ""
    return " ".join(doc.split())


def explain(spec: Any) -> Explanation:
    from llmdoctor.facts.catalogue import CATALOGUE
    from llmdoctor.knowledge.causes import CAUSES, CauseText

    purposes = {f.name: f.purpose for f in CATALOGUE}
    required = [p for p in spec.params if p not in spec.optional]
    facts = tuple((p, purposes.get(p, ""), p in required or p in spec.needs) for p in spec.params)
    text = CAUSES.get(spec.cause.value) or CauseText("", "", "", "")
    return Explanation(
        id=spec.id, cause=spec.cause.value, purpose=spec.purpose, about=_about(spec.func),
        engines=tuple(spec.engines), origin=spec.origin, facts=facts, messages=messages_of(spec),
        why=text.why, fix=text.fix, unsafe=text.unsafe, false_positives=text.false_positives,
        thresholds=threshold_rows(thresholds_of(spec.func)), page=f"{DOCS_BASE}{spec.id}.md",
    )


def find(check_id: str, extra_dirs=()) -> tuple[Any | None, list[str]]:
    """The check's spec (None when there is no such id) and the ids near it."""
    import difflib

    from llmdoctor.plugins import load_checks

    specs, _errors = load_checks([str(d) for d in extra_dirs])
    by_id = {s.id: s for s in specs}
    if check_id in by_id:
        return by_id[check_id], []
    return None, difflib.get_close_matches(check_id, list(by_id), n=3, cutoff=0.5)


# -- output ---------------------------------------------------------------------------------------
def to_json(e: Explanation) -> dict[str, Any]:
    return {
        "id": e.id, "cause": e.cause, "purpose": e.purpose, "about": e.about, "engines": list(e.engines),
        "origin": e.origin, "page": e.page,
        "facts": [{"name": n, "what": w, "required": r} for n, w, r in e.facts],
        "why_it_slows_users": e.why, "fix": e.fix, "fix_unsafe_when": e.unsafe, "false_positives": e.false_positives,
        "messages": [{"id": m.id, "engine": m.engine, "versions": m.versions, "source": m.source, "tells": m.tells,
                      "example": m.example} for m in e.messages],
        "thresholds": [{"name": t.name, "value": t.value, "default": t.default, "why": t.comment,
                        "overridden_by": t.source or None} for t in e.thresholds],
    }


def _value(t: Threshold) -> str:
    if t.source:
        return f"{t.value!r} (default {t.default!r}, set in {t.source})"
    return repr(t.value)


def to_text(e: Explanation, width: int = 100) -> str:
    def para(title: str, body: str) -> list[str]:
        if not body:
            return []
        return [title] + textwrap.wrap(body, width - 2, initial_indent="  ", subsequent_indent="  ") + [""]

    out = [f"{e.id} ({e.cause}){'' if e.origin == 'built-in' else f'  [{e.origin}]'}", ""]
    out += para("What it finds:", e.purpose)
    if e.about and e.about != e.purpose:
        out += para("About:", e.about)
    out += para("Why it slows users:", e.why)
    out += para("The fix:", e.fix)
    out += para("When the fix is unsafe:", e.unsafe)
    out += para("Known false positives:", e.false_positives)
    engines = ", ".join(e.engines) or "any"
    out.append(f"Engines: {engines}")
    out.append("Facts it reads: " + ", ".join(f"{n}{'' if r else ' (optional)'}" for n, _w, r in e.facts))
    out.append("")
    if e.messages:
        out.append(f"Evidence lines it reads ({len(e.messages)} catalogued messages; `llmdoctor messages` prints all):")
        for m in e.messages:
            out.append(f"  {m.id} [{m.engine} {m.versions}]")
            if m.example:
                out.append(f"    e.g. {textwrap.shorten(m.example, width - 9, placeholder=' ...')}")
        out.append("")
    if e.thresholds:
        out.append("Thresholds (override per site in [thresholds] of /etc/llmdoctor/config.toml or --config):")
        for t in e.thresholds:
            out.append(f"  {t.name} = {_value(t)}")
            if t.comment:
                out += textwrap.wrap(t.comment, width - 6, initial_indent="    ", subsequent_indent="    ")
        out.append("")
    out.append(f"Page: {e.page}")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(e: Explanation) -> str:
    """The generated page docs/checks/ID.md (no site overrides: the shipped defaults)."""
    out = [f"<!-- generated by `python -m llmdoctor.app.explain docs/checks`: do not edit -->",
           f"# {e.id}", "", f"**Cause:** [{e.cause}](README.md#{e.cause.lower()}) · "
           f"**Engines:** {', '.join(e.engines) or 'any'}", "", "## What it finds", "", e.purpose, ""]
    if e.about and e.about != e.purpose:
        out += [e.about, ""]
    out += ["## Why it slows users", "", e.why, "", "## The fix", "", e.fix, "", "## When the fix is unsafe", "",
            e.unsafe, "", "## Known false positives", "", e.false_positives, "", "## Facts it reads", ""]
    out += [f"- `{n}`{'' if r else ' (optional)'}: {w}" for n, w, r in e.facts] + [""]
    out += ["## Evidence lines it reads", ""]
    if e.messages:
        out += ["The catalogued engine messages (`llmdoctor messages`) of the logs it reads that carry its cause:", "",
                "| Message | Engine | Versions | Tells | Example |", "|---|---|---|---|---|"]
        out += [f"| `{m.id}` | {m.engine} | {_md(m.versions)} | {_md(m.tells)} | `{_md(m.example[:160])}` |"
                for m in e.messages]
    else:
        out.append("No engine log message: it reads the facts above (status, metrics, configuration, measurements).")
    out += ["", "## Thresholds", ""]
    if e.thresholds:
        out += ["Override per site in `[thresholds]` of `/etc/llmdoctor/config.toml` (or `llmdoctor --config FILE`).",
                "", "| Name | Default | Why |", "|---|---|---|"]
        out += [f"| `{t.name}` | `{t.default!r}` | {_md(t.comment)} |" for t in e.thresholds]
    else:
        out.append("None of its own: it reports what the evidence states.")
    return "\n".join(out) + "\n"


def index_markdown(explanations: list[Explanation]) -> str:
    """docs/checks/README.md: the checks by cause (the alert rules' runbook_url points at a
    cause's section, or at one check's page)."""
    from llmdoctor.knowledge.causes import CAUSES

    out = ["<!-- generated by `python -m llmdoctor.app.explain docs/checks`: do not edit -->", "# The checks", "",
           "One page per check: what it finds, why it slows users, the evidence lines it reads, the fix and when "
           "it is unsafe, known false positives and its thresholds (`llmdoctor explain CHECK_ID` prints the same, "
           "with this site's overrides).", ""]
    by_cause: dict[str, list[Explanation]] = {}
    for e in explanations:
        by_cause.setdefault(e.cause, []).append(e)
    for cause in sorted(by_cause):
        out += [f"## {cause}", ""]
        if cause in CAUSES:
            out += [CAUSES[cause].why, ""]
        out += [f"- [{e.id}]({e.id}.md): {e.purpose}" for e in sorted(by_cause[cause], key=lambda x: x.id)] + [""]
    out += ["## The exporter itself", "",
            "`LLMDoctorStale`, `LLMDoctorTargetDown` and `LLMDoctorExporterDown` are about llmdoctor's exporter, "
            "not the engine: check the unit (`systemctl status llmdoctor-exporter` or `llmdoctor-textfile.timer`, "
            "or the pod's logs), that the target is reachable (SSH keys, `--sudo`), and `llmdoctor diagnose` on "
            "the host by hand; `packaging/README.md` describes the metrics.", ""]
    return "\n".join(out)


def pages() -> dict[str, str]:
    """file name -> content of every generated page (built-in checks only)."""
    from llmdoctor.plugins import load_checks

    specs, _ = load_checks(site_dir=None, entry_points=False)
    explanations = sorted((explain(s) for s in specs if s.origin == "built-in"), key=lambda e: e.id)
    out = {f"{e.id}.md": to_markdown(e) for e in explanations}
    out["README.md"] = index_markdown(explanations)
    return out


def write_pages(directory: str) -> list[str]:
    import os

    os.makedirs(directory, exist_ok=True)
    written = []
    wanted = pages()
    for name in os.listdir(directory):
        if name.endswith(".md") and name not in wanted:
            os.remove(os.path.join(directory, name))
    for name, text in wanted.items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)
        written.append(name)
    return written


if __name__ == "__main__":
    import sys

    target = sys.argv[1] if len(sys.argv) > 1 else "docs/checks"
    print(f"{len(write_pages(target))} pages in {target}")
