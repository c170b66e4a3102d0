"""What `tune ollama` writes: diagnose's merged change for the unit ("What to change",
judge/remedy), as it stands, and tune's own bounded sizing only for the settings that change
does not set. A user who reads the report and then runs tune gets the same file with the same
values; wherever the two differ, the plan says so and why.

Rules, on top of remedy's: a setting diagnose sets keeps diagnose's value; one diagnose holds
back is not written (a value an earlier tune wrote there stays); tune's sizing never raises slots
or context while a memory finding stands (remedy's rule 2); a value an earlier tune wrote on
diagnose's advice stays once that finding is gone (it is gone because the value is in effect),
so a second tune changes nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from llmdoctor.judge.remedy import GROWS
from llmdoctor.judge.sizing import QUEUE_PER_SLOT
from llmdoctor.model import Change
from llmdoctor.redact import REDACTED

DIAGNOSE, SIZING, KEPT = "diagnose", "sizing", "kept"
RULES = (
    "diagnose's What to change for the unit is written as it stands (its own rules merged it);",
    "tune's sizing adds a setting only where that change sets none, and never raises slots or context "
    "while a memory finding stands;",
    "a value an earlier tune wrote on diagnose's advice stays once that finding is gone.",
)
_FIRST_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class Setting:
    name: str
    value: str
    source: str  # DIAGNOSE | SIZING | KEPT
    why: str
    checks: tuple[str, ...] = ()  # the findings diagnose merged into it (DIAGNOSE, or KEPT from one)


@dataclass(frozen=True)
class TunePlan:
    place: str  # "systemd ollama.service"
    settings: tuple[Setting, ...]
    diagnosed: Change | None  # diagnose's What to change for this place, as the report gives it
    held_back: tuple[str, ...] = ()
    differences: tuple[str, ...] = ()  # where tune's sizing and diagnose disagree, and what is written

    def values(self) -> dict[str, str]:
        return {s.name: s.value for s in self.settings}

    def provenance(self) -> dict[str, tuple[str, ...]]:
        """Settings written on diagnose's advice -> the checks that asked (kept in the drop-in)."""
        return {s.name: s.checks for s in self.settings if s.checks}

    def to_dict(self) -> dict[str, Any]:
        d = self.diagnosed
        return {
            "place": self.place,
            "what_to_change": None if d is None else {
                "settings": dict(d.settings), "checks": list(d.checks), "notes": list(d.notes),
                "held_back": list(d.held_back), "commands": list(d.commands)},
            "settings": [{"name": s.name, "value": s.value, "source": s.source, "why": s.why,
                          "checks": list(s.checks)} for s in self.settings],
            "held_back": list(self.held_back),
            "differences": list(self.differences),
            "rules": list(RULES),
        }


def _number(text: str | None) -> float | None:
    m = _FIRST_NUMBER.match(text or "")
    return float(m.group(1)) if m else None


def _raises(sized: Any) -> bool:
    """Whether a sizing change raises its setting (an unknown current value counts as a raise)."""
    new, now = _number(sized.proposed), _number(sized.current_shown)
    return new is None or now is None or now == 0 or new > now


def combine(place: str, diagnosed: Change | None, sizing: Iterable[Any] = (), own: dict[str, str] | None = None,
            own_from_diagnose: dict[str, tuple[str, ...]] | None = None, memory: str = "") -> TunePlan:
    """The plan for one unit. `sizing`: the proposal's changes (judge/proposal.Change), empty when
    tune could not size; `own`: what llmdoctor's drop-in holds now; `own_from_diagnose`: which of
    those an earlier tune wrote on diagnose's advice (-> checks); `memory`: the memory finding
    that stands ("CPU_SPILL, ollama-cpu-spill"), "" when memory fits."""
    own, earlier = dict(own or {}), dict(own_from_diagnose or {})
    out: dict[str, Setting] = {}
    held: list[str] = []
    diffs: list[str] = []
    held_names: set[str] = set()
    if diagnosed is not None:
        checks = tuple(diagnosed.checks)
        for name, value in diagnosed.settings:
            if REDACTED in value:
                held.append(f"{name}: a secret diagnose does not show; set it where it is set now")
                held_names.add(name)
                continue
            out[name] = Setting(name, value, DIAGNOSE, f"diagnose's What to change ({', '.join(checks)})", checks)
        held += diagnosed.held_back
        held_names |= {name for name, _ in diagnosed.held}

    def keep(name: str, why: str) -> None:
        if name in own and name not in out:
            out[name] = Setting(name, own[name], KEPT, why, earlier.get(name, ()))

    for c in sizing:
        name, value = c.name, c.proposed
        if name in out:
            if value is not None and value != out[name].value:
                diffs.append(f"{name}: tune's sizing alone would set {value}; diagnose's What to change sets "
                             f"{out[name].value} ({', '.join(out[name].checks)}), and that is what is written")
        elif name in held_names:
            if value is not None:
                diffs.append(f"{name}: tune's sizing would set {value}; held back, as in diagnose's What to change")
            keep(name, "written by an earlier tune; held back from change while memory does not fit")
        elif name in earlier:
            keep(name, f"written by an earlier tune on diagnose's advice ({', '.join(earlier[name])}); that "
                       f"finding no longer asks because the value is in effect")
            if value is not None and value != own[name]:
                diffs.append(f"{name}: tune's sizing alone would set {value}; {own[name]} stays, as diagnose "
                             f"asked earlier")
        elif memory and name in GROWS and value is not None and _raises(c):
            held.append(f"{name}={value} (tune's sizing): memory does not fit yet ({memory}); raise it once "
                        f"the memory finding is gone")
            keep(name, "written by an earlier tune; not raised while memory does not fit")
        elif value is not None and (c.changed or name in own):
            why = "tune's sizing (diagnose's What to change does not set it): " + c.reason
            slots = out.get("OLLAMA_NUM_PARALLEL")
            if name == "OLLAMA_MAX_QUEUE" and slots is not None and slots.value.isdecimal():
                value = str(QUEUE_PER_SLOT * int(slots.value))  # the queue follows the slots written
                why += f" {QUEUE_PER_SLOT} × {slots.value} slots written = {value}."
            out[name] = Setting(name, value, SIZING, why)
    decided = {c.name for c in sizing}
    for name in own:
        if name not in decided:
            keep(name, f"written by an earlier tune on diagnose's advice ({', '.join(earlier[name])})"
                 if name in earlier else "written by an earlier tune; this run did not size it")
    return TunePlan(place, tuple(out.values()), diagnosed, tuple(held), tuple(diffs))
