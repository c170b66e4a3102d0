"""`llmdoctor tune`: the proposal and its drop-in and diff (a dry run, or what --apply will
do), and the outcome of applying it, step by step. Laid out at the terminal's width (or
--width): prose wraps, the drop-in and the commands break with a backslash (systemd and the
shell both join such lines), a diff line stays whole."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from llmdoctor.app.tune.apply import Outcome
from llmdoctor.app.tune.session import Prepared
from llmdoctor.render.layout import CODE, PROSE, WHOLE, fit_lines, output_width


@dataclass(frozen=True)
class TuneView:
    prepared: Prepared
    unit: str
    applying: bool
    width: int | None = None  # None: the terminal's, $COLUMNS, else 80; 0: never wrap


def tune_text(view: TuneView) -> str:
    width = output_width(sys.stdout) if view.width is None else view.width
    return render_text(view.prepared, view.unit, view.applying, width)


def render_text(p: Prepared, unit: str, applying: bool, width: int | None = 0) -> str:
    return fit_lines([(x, PROSE) if isinstance(x, str) else x for x in _lines(p, unit, applying)], width)


def _lines(p: Prepared, unit: str, applying: bool) -> list:
    """The view's lines: a plain string is prose, a (text, kind) pair says how it may break."""
    prop = p.proposal
    model = prop.model if prop is not None else "no model sized"
    out = [f"Tuning {unit}: {model}" + (f" on Ollama {p.version}" if p.version else ""), ""]
    if p.plan is not None:
        out += _diagnosed_lines(p) + ([""] if prop is not None else [])
    if prop is not None:
        out += _sizing_lines(prop)
    if p.gaps:
        out += ["", "Not available (the proposal used defaults or flags instead):"] + [f"  - {g}" for g in p.gaps]
    if p.wins_over:
        out += ["", "Precedence:"] + [f"  {w}" for w in p.wins_over]
    if p.conflicts:
        out += ["", "Conflicts (apply refuses until they are resolved):"] + [f"  ✗ {c}" for c in p.conflicts]
    if p.nothing_to_change:
        out += ["", f"Nothing to change: {p.path} already holds these values."]
        return out
    out += ["", f"Drop-in {p.path}:", ""]
    out += [("    " + line, CODE) for line in (p.new or "").splitlines()]
    out += ["", "Diff:", ""] + [("    " + line, WHOLE) for line in p.diff.splitlines()]
    out += ["", "Commands --apply runs (as root), then verifies each value in the new process:"]
    out += [(f"    {c}", CODE) for c in p.commands(unit)]
    if not applying:
        out += ["", "Dry run: nothing was changed. Add --apply to write, restart and verify "
                    "(any failure restores the previous state)."]
    return out


def _diagnosed_lines(p: Prepared) -> list[str]:
    """diagnose's What to change for this unit, and how the drop-in relates to it."""
    plan = p.plan
    d = plan.diagnosed
    if d is None:
        out = ["diagnose's What to change: nothing for this unit; the drop-in is tune's sizing alone."]
    else:
        out = [f"diagnose's What to change for {plan.place} (from {', '.join(d.checks)}), written as is:"]
        out += [f"  {k}={v}" for k, v in d.settings]
        out += [f"  note: {n}" for n in d.notes]
        out += [f"  then check: {c}" for c in d.commands  # (less the drop-in's own writing and loading)
                if not c.removeprefix("sudo ").startswith(("mkdir -p /etc/systemd/system/", "systemctl daemon-reload"))]
    out += [f"  held back: {h}" for h in plan.held_back]
    added = [s for s in plan.settings if s.source != "diagnose"]
    if added and d is not None:
        out.append("Besides it, the drop-in holds:")
        out += [f"  {s.name}={s.value}: {s.why}" for s in added]
    out += [f"  differs: {x}" for x in plan.differences]
    from llmdoctor.judge.tune_merge import RULES

    return out + ["  Rules: " + " ".join(RULES)]


def _sizing_lines(prop) -> list[str]:
    out = ["Sizing:"]
    out += [f"  {i}. {s}" for i, s in enumerate(prop.plan.steps, 1)]
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
    return out


def outcome_text(o: Outcome) -> str:
    out = [""]
    for s in o.steps:
        out.append(f"  {'ok ' if s.ok else 'FAIL'} {s.name}" + (f": {s.detail}" if s.detail else ""))
    out.append(("✓ " if o.ok else "✗ ") + o.message)
    return "\n".join(out) + "\n"
