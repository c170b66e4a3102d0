"""`llmdoctor tune`: the proposal and its drop-in and diff (a dry run, or what --apply will
do), and the outcome of applying it, step by step."""
from __future__ import annotations

from dataclasses import dataclass

from llmdoctor.app.tune.apply import Outcome
from llmdoctor.app.tune.session import Prepared


@dataclass(frozen=True)
class TuneView:
    prepared: Prepared
    unit: str
    applying: bool


def tune_text(view: TuneView) -> str:
    return render_text(view.prepared, view.unit, view.applying)


def render_text(p: Prepared, unit: str, applying: bool) -> str:
    prop = p.proposal
    plan = prop.plan
    out = [f"Tuning {unit}: {prop.model}" + (f" on Ollama {p.version}" if p.version else ""), ""]
    out.append("Sizing:")
    out += [f"  {i}. {s}" for i, s in enumerate(plan.steps, 1)]
    out += ["", "Proposal (current → proposed):"]
    width = max((len(c.name) for c in prop.changes), default=20)
    for c in prop.changes:
        cur = c.current_shown
        new = c.proposed if c.proposed is not None else "(not set by llmdoctor)"
        mark = "→" if c.changed else "="
        out.append(f"  {c.name:<{width}}  {cur} {mark} {new}" + ("" if c.changed else "  (no change)"))
        out.append(f"  {'':<{width}}  now: {c.current_source}")
        out.append(f"  {'':<{width}}  why: {c.reason}")
        if c.arithmetic:
            out.append(f"  {'':<{width}}  math: {c.arithmetic}")
    if prop.notes:
        out += ["", "Notes:"] + [f"  ! {n}" for n in prop.notes]
    if p.gaps:
        out += ["", "Not available (the proposal used defaults or flags instead):"] + [f"  - {g}" for g in p.gaps]
    if p.wins_over:
        out += ["", "Precedence:"] + [f"  {w}" for w in p.wins_over]
    if p.conflicts:
        out += ["", "Conflicts (apply refuses until they are resolved):"] + [f"  ✗ {c}" for c in p.conflicts]
    if p.nothing_to_change:
        out += ["", f"Nothing to change: {p.path} already holds these values."]
        return "\n".join(out) + "\n"
    out += ["", f"Drop-in {p.path}:", ""]
    out += ["    " + line for line in (p.new or "").splitlines()]
    out += ["", "Diff:", ""] + ["    " + line for line in p.diff.splitlines()]
    out += ["", "Commands --apply runs (as root), then verifies each value in the new process:"]
    out += [f"    {c}" for c in p.commands(unit)]
    if not applying:
        out += ["", "Dry run: nothing was changed. Add --apply to write, restart and verify "
                    "(any failure restores the previous state)."]
    return "\n".join(out) + "\n"


def outcome_text(o: Outcome) -> str:
    out = [""]
    for s in o.steps:
        out.append(f"  {'ok ' if s.ok else 'FAIL'} {s.name}" + (f": {s.detail}" if s.detail else ""))
    out.append(("✓ " if o.ok else "✗ ") + o.message)
    return "\n".join(out) + "\n"
