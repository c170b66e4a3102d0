"""One remediation per target: the findings' changes merged into one change per place a
setting lives (a unit's drop-in, the Windows or macOS environment, a container's
environment, a server's command line), conflicts resolved by the rules in RULES.

Followed in order, separate fixes overwrite each other (three "write this drop-in"
blocks with different contents) or undo each other (more slots while the model already
does not fit). The fixes are read back from the forms `judge/fixes` writes them in, so a
check only writes its own fix and never needs to know about the others.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Iterable

from llmdoctor.judge import fixes
from llmdoctor.model import Cause, Change, Finding
from llmdoctor.parsing import LazyPattern

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
# llama-server and vLLM spell some flags several ways; the first is the one written.
ALIASES = {"--parallel": "-np", "--ctx-size": "-c", "--n-gpu-layers": "-ngl", "--gpu-layers": "-ngl",
           "--flash-attn": "-fa", "--cache-type-k": "-ctk", "--cache-type-v": "-ctv", "-kvu": "--kv-unified",
           "--model": "-m"}
SERVERS = (("llama-server", "llama-server command line"), ("vllm serve", "vllm serve command line"),
           ("python -m sglang.launch_server", "SGLang command line"),
           ("python3 -m sglang.launch_server", "SGLang command line"), ("sglang serve", "SGLang command line"))
REMOVED = "\0removed"  # the value of a flag a fix takes off the command line

_ENV = LazyPattern(r'^Environment="?([A-Za-z_][A-Za-z0-9_]*)=(.*?)"?\s*$')
_DROPIN_PATH = LazyPattern(r"^#\s*/etc/systemd/system/([^/\s]+?)\.d/")
_SETX = LazyPattern(r'^(setx|launchctl setenv)\s+([A-Za-z_][A-Za-z0-9_]*)\s+"?([^"]*)"?\s*$')
_COMPOSE = LazyPattern(r"^\s*-\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_K8S_ENV = LazyPattern(r'^-\s*name:\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\n\s+value:\s*"?(.*?)"?\s*$', re.M)


@dataclass
class _Wanted:
    """What one finding's fix asks for at one place."""

    place: str
    settings: dict[str, str]
    finding: Finding
    extra: tuple[str, ...] = ()  # the fix's other commands (checks, verifications)
    np_given: bool = True


def _unquote(value: str) -> str:
    return value.replace('\\"', '"').replace("%%", "%").replace("\\\\", "\\")


def _dropin_settings(config: str) -> tuple[str, dict[str, str]] | None:
    """(unit, variables) of a drop-in that only sets Environment=, else None."""
    unit, out = fixes.OLLAMA_UNIT + ".service", {}
    for line in config.strip().splitlines():
        line = line.strip()
        if m := _DROPIN_PATH.match(line):
            unit = m.group(1)
        elif line.startswith("#") or line in ("", "[Service]"):
            continue
        elif m := _ENV.match(line):
            out[m.group(1)] = _unquote(m.group(2))
        else:
            return None
    return (unit, out) if out else None


def _flags(command: str) -> tuple[str, dict[str, str]] | None:
    """(server, flags) of a server command line a fix proposes; a flag without a value maps to ""."""
    text = command.split("  #", 1)[0].strip()
    for prefix, place in SERVERS:
        if text.startswith(prefix + " "):
            try:
                words = shlex.split(text[len(prefix):])
            except ValueError:
                return None
            out: dict[str, str] = {}
            i = 0
            if prefix.endswith("serve") and words and not words[0].startswith("-"):
                i = 1  # the model
            while i < len(words):
                name = ALIASES.get(words[i], words[i])
                if not name.startswith("-") or words[i] == "...":
                    i += 1
                    continue
                value = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else ""
                if name not in ("-m", "--model-path"):  # the model is the command's, not a setting to merge
                    out[name] = value
                i += 2 if value else 1
            return (place, out) if out else None
    return None


def wanted_of(f: Finding) -> _Wanted | None:
    """What a finding's fix sets, and where; None when it is not a setting (a command to run)."""
    commands = tuple(f.fix.commands)
    if f.fix.config:
        if "[Service]" in f.fix.config:
            if any(re.search(r"\bsed -i|\btee\b|>\s*/etc/", c) for c in commands):
                return None  # the fix repairs a file of the user's: it is not a setting to merge
            got = _dropin_settings(f.fix.config)
            if got is None:
                return None
            rest = tuple(c for c in commands if not c.startswith(("mkdir -p /etc/systemd/system/", "systemctl daemon-reload")))
            return _Wanted(f"systemd {got[0]}", got[1], f, rest)
        if f.fix.config.lstrip().startswith("# docker-compose.yml"):
            env = {m.group(1): m.group(2) for line in f.fix.config.splitlines() if (m := _COMPOSE.match(line))}
            return _Wanted("container environment", env, f) if env else None
        if f.fix.config.lstrip().startswith("env:\n- name:"):  # settings_fix("kubernetes"): a pod's env
            env = dict(_K8S_ENV.findall(f.fix.config))
            return _Wanted("container environment", env, f) if env else None
        return None
    env = {m.group(2): m.group(3) for c in commands if (m := _SETX.match(c))}
    if env:
        place = "Windows user environment" if commands[0].startswith("setx") else "macOS launchd environment"
        return _Wanted(place, env, f, tuple(c for c in commands if not _SETX.match(c)))
    for c in commands[:1]:  # the first command is the fix; the others are alternatives
        got = _flags(c)
        if got is not None:
            return _Wanted(got[0], got[1], f, (), "-np" in got[1])
    return None


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


def _command(server: str, merged: dict[str, str], argv: tuple[str, ...] | None) -> str:
    """One corrected command line: the running one with the flags replaced, else a template."""
    prefix = "llama-server" if server.startswith("llama-server") else "vllm serve"
    if argv:
        words, args, i = [], list(argv), 0
        while i < len(args):
            name = ALIASES.get(args[i].split("=", 1)[0], args[i].split("=", 1)[0])
            if name in merged:
                takes = merged[name] not in ("", REMOVED) and "=" not in args[i]
                i += 2 if takes and i + 1 < len(args) and not args[i + 1].startswith("-") else 1
                continue
            words.append(args[i])
            i += 1
        base = " ".join(shlex.quote(w) for w in words)
    elif server.startswith("SGLang"):
        base = "python -m sglang.launch_server --model-path MODEL"
    else:
        base = "llama-server -m MODEL" if prefix == "llama-server" else "vllm serve MODEL"
    return " ".join([base] + [f"{k} {v}" if v else k for k, v in merged.items() if v != REMOVED])


def _as_edits(wanted: list[_Wanted], argv: tuple[str, ...] | None) -> None:
    """A fix that repeats the whole running command line, less a flag or with a value changed,
    becomes just those edits (so the flags it repeats do not read as asks of their own)."""
    if not argv:
        return
    got = _flags(" ".join(argv)) or _flags("llama-server " + " ".join(argv[1:]))
    if got is None:
        return
    current = got[1]
    for w in wanted:
        if len(current) >= 3 and len(set(w.settings) & set(current)) >= 0.6 * len(current):
            edits = {k: v for k, v in w.settings.items() if current.get(k) != v}
            edits.update({k: REMOVED for k in current if k not in w.settings})
            w.settings = edits


def merge(findings: Iterable[Finding], argv: dict[str, tuple[str, ...]] | None = None) -> tuple[Change, ...]:
    """One change per place, from every finding whose fix is a setting. `argv`: the running
    server's command line by place ("llama-server command line" -> argv), when known."""
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
        _as_edits(wanted, argv.get(place))
        merged, notes, held = {}, [], []
        for name in dict.fromkeys(n for w in wanted for n in w.settings):
            value, note = _choose(name, wanted, memory)
            if value is None:
                held.append(note)
                continue
            merged[name] = value
            if note:
                notes.append(note)
        if place.endswith("command line") and not memory:
            if note := _slot_context(merged, wanted):
                notes.append(note)
        extra = tuple(dict.fromkeys(c for w in wanted for c in w.extra))
        checks = tuple(dict.fromkeys(w.finding.check for w in wanted))
        out.append(_change(place, merged, extra, checks, tuple(notes), tuple(held), argv.get(place)))
    return tuple(c for c in out if c.settings or c.held_back)


def _change(place: str, merged: dict[str, str], extra: tuple[str, ...], checks: tuple[str, ...],
            notes: tuple[str, ...], held: tuple[str, ...], argv: tuple[str, ...] | None) -> Change:
    settings = tuple(merged.items())
    config, commands = "", ()
    if place.startswith("systemd "):
        unit = place.split(" ", 1)[1]
        config = fixes.dropin(unit, merged, name=fixes.DROPIN_NAME) if merged else ""
        commands = fixes.dropin_commands(unit, fixes.DROPIN_NAME) if merged else ()
    elif place == "container environment":
        commands, config = fixes.settings_fix("container", **merged)
    elif place.startswith(("Windows", "macOS")):
        commands, config = fixes.settings_fix("windows" if place.startswith("Windows") else "macos", **merged)
    elif merged:
        commands = (_command(place, merged, argv),)
    return Change(place=place, settings=settings, commands=tuple(commands) + extra, config=config,
                  checks=checks, notes=notes, held_back=held)
