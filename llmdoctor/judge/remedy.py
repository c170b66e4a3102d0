"""One remediation per target: the findings' changes merged into one change per place a
setting lives (a unit's drop-in, the Windows or macOS environment, a container's
environment, a server's command line), conflicts resolved by the rules in RULES.

Followed in order, separate fixes overwrite each other (three "write this drop-in"
blocks with different contents) or undo each other (more slots while the model already
does not fit). Each finding's Remedy says its settings as values, so a check only states
its own change and never needs to know about the others; `judge/fixes` renders the merge.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from llmdoctor.judge import fixes
from llmdoctor.model import REMOVE, Cause, Change, Finding
from llmdoctor.redact import REDACTED

RULES = (
    "One value per setting: where findings disagree, what a memory finding (CPU_SPILL, KV_CAPACITY, "
    "PREEMPTION, SWAP) asks for wins, then the more severe finding.",
    "Never raise slots or context while memory does not fit: such raises are held back until the "
    "memory finding is gone.",
    "Slots × per-slot context must cover the longest context a request needs (llama-server divides -c "
    "between its -np slots).",
)
MEMORY = frozenset({Cause.CPU_SPILL, Cause.KV_CAPACITY, Cause.PREEMPTION, Cause.SWAP})
# Settings whose raise costs KV memory (per slot, or slots).
GROWS = frozenset({"OLLAMA_NUM_PARALLEL", "OLLAMA_CONTEXT_LENGTH", "OLLAMA_MAX_LOADED_MODELS",
                   "-np", "-c", "--max-num-seqs", "--max-model-len", "--context-length", "--max-running-requests"})
ALIASES = fixes.ALIASES
# The place a server's flags live, by the Remedy's server (a Python `LLM(...)` call is not merged).
SERVERS = {"llama-server": "llama-server command line", "vllm serve": "vllm serve command line",
           "SGLang": "SGLang command line"}
ENVIRONMENTS = {"windows": "Windows user environment", "macos": "macOS launchd environment",
                "container": "container environment", "kubernetes": "container environment"}


@dataclass
class _Wanted:
    """What one finding's remedy asks for at one place."""

    place: str
    settings: dict[str, object]
    finding: Finding
    extra: tuple[str, ...] = ()  # the remedy's other commands (checks, verifications)
    np_given: bool = True


def wanted_of_remedy(r) -> dict[str, object]:
    """A command-line remedy's flags by their canonical spelling, as text ("" a bare switch)."""
    return {ALIASES.get(s.name, s.name): ("" if s.value is True else s.value if s.value is REMOVE else str(s.value))
            for s in r.settings if s.name not in ("-m", "--model-path") and REDACTED not in str(s.value)}


def wanted_of(f: Finding) -> _Wanted | None:
    """What a finding's remedy sets, and where; None when its fix is not a setting (a command to run)."""
    r = f.remedy
    if r is None or not r.settings:
        return None
    if r.server:
        place = SERVERS.get(r.server)
        values = wanted_of_remedy(r)
        return _Wanted(place, values, f, (), "-np" in values) if place and values else None
    values = {s.name: str(s.value) for s in r.settings if REDACTED not in str(s.value)}
    if not values:
        return None
    place = ENVIRONMENTS.get(r.where)
    if place == "container environment":
        return _Wanted(place, values, f)
    if place is None:
        unit = r.where.name if r.where == "systemd" and getattr(r.where, "name", None) else r.unit or fixes.OLLAMA_UNIT
        place = f"systemd {fixes.unit_file_name(unit)}"
    return _Wanted(place, values, f, r.before + r.verify)


def _number(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


def _choose(name: str, asks: list[_Wanted], memory: bool) -> tuple[str | None, str]:
    """The value of one setting, and a sentence when findings disagreed or it was held back."""
    values = [(w.settings[name], w.finding) for w in asks if name in w.settings]
    from_memory = [(v, f) for v, f in values if f.cause in MEMORY]
    if memory and name in GROWS and not from_memory:
        v, f = values[0]
        return None, (f"{name}={v} ({f.cause.value}, {f.check}): memory does not fit yet; "
                      f"raise it once the memory finding is gone")
    pool = from_memory or values
    distinct = list(dict.fromkeys(v for v, _ in pool))
    overruled = [f"{v} ({f.cause.value}, {f.check})" for v, f in values
                 if (v, f) not in pool and v not in distinct]
    if len(distinct) == 1:
        if overruled:
            return distinct[0], (f"{name}: {distinct[0]}, as the memory finding asks, not "
                                 f"{', '.join(overruled)}: memory does not fit yet")
        return distinct[0], ""
    numbers = [_number(v) for v in distinct]
    if name in GROWS and all(n is not None for n in numbers):
        pick = distinct[numbers.index(min(numbers) if from_memory else max(numbers))]
        why = "the smallest a memory finding asks for" if from_memory else "the largest, so it covers every need"
    else:
        pick = sorted(pool, key=lambda vf: -vf[1].severity.rank)[0][0]
        why = "the more severe finding's"
    return pick, f"{name}: findings ask for {', '.join(distinct)}; {pick} is {why}"


def _slot_context(merged: dict[str, str], asks: list[_Wanted]) -> str:
    """llama-server: -c sized so that every slot gets the longest per-request context asked."""
    np_ = _number(merged.get("-np", "1")) or 1
    per_slot = []
    for w in asks:
        c = _number(w.settings.get("-c", ""))
        if c:
            per_slot.append(c / (_number(w.settings.get("-np", "1")) or 1) if w.np_given else c)
    if not per_slot or "-c" not in merged:
        return ""
    want = int(np_ * max(per_slot))
    if str(want) != merged["-c"]:
        merged["-c"] = str(want)
        return f"-c {want}: {int(np_)} slot(s) × {int(max(per_slot)):,} tokens, the longest context a request needs"
    return ""


def merge(findings: Iterable[Finding], argv: dict[str, tuple[str, ...]] | None = None,
          audience=fixes.UNKNOWN) -> tuple[Change, ...]:
    """One change per place, from every finding whose fix is a setting. `argv`: the running
    server's command line by place ("llama-server command line" -> argv), when known; `audience`:
    who pastes it on what (fixes.for_audience): sudo, the vLLM command's form."""
    findings = list(findings)
    memory = any(f.cause in MEMORY for f in findings)
    places: dict[str, list[_Wanted]] = {}
    for f in findings:
        w = wanted_of(f)
        if w is not None:
            places.setdefault(w.place, []).append(w)
    argv = argv or {}
    out = []
    for place, wanted in places.items():
        merged, notes, held, held_values = {}, [], [], []
        for name in dict.fromkeys(n for w in wanted for n in w.settings):
            value, note = _choose(name, wanted, memory)
            if value is None:
                held.append(note)
                held_values.append((name, next(str(w.settings[name]) for w in wanted if name in w.settings)))
                continue
            merged[name] = value
            if note:
                notes.append(note)
        if place.endswith("command line") and not memory:
            if note := _slot_context(merged, wanted):
                notes.append(note)
        extra = tuple(dict.fromkeys(c for w in wanted for c in w.extra))
        checks = tuple(dict.fromkeys(w.finding.check for w in wanted))
        where = next((w.finding.remedy.where for w in wanted if w.finding.remedy.where is not None), None)
        change = _change(place, merged, extra, checks, tuple(notes), tuple(held), argv.get(place), where, audience)
        out.append(replace(change, held=tuple(held_values),
                           commands=tuple(fixes.as_reader(c, audience) for c in change.commands)))
    return tuple(c for c in out if c.settings or c.held_back)


def _change(place: str, merged: dict[str, str], extra: tuple[str, ...], checks: tuple[str, ...],
            notes: tuple[str, ...], held: tuple[str, ...], argv: tuple[str, ...] | None, where: object = None,
            audience=fixes.UNKNOWN) -> Change:
    """The merged values rendered for their place by judge/fixes, as one finding's remedy would be."""
    settings = tuple(merged.items())
    config, commands = "", ()
    if not merged:
        pass
    elif place.startswith("systemd "):
        commands, config = fixes.render(fixes.env(None, unit=place.split(" ", 1)[1], **merged))
    elif place in ENVIRONMENTS.values():
        commands, config = fixes.render(fixes.env(where, **merged))
    else:
        server = next(s for s, p in SERVERS.items() if p == place)
        commands = (fixes.command_line(fixes.flags(server, merged), argv, audience=audience),)
    return Change(place=place, settings=settings, commands=tuple(commands) + extra, config=config,
                  checks=checks, notes=notes, held_back=held)
