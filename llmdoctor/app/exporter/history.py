"""What changed: the exporter's small local history of each target's settings and findings.

Each cycle compares a target's settings snapshot (settings_snapshot.py) and active findings
with the last ones kept, and appends one event per transition: a setting that changed
(before -> after, where), a finding that appeared or cleared. `llmdoctor history` prints
them; a finding that appeared within TIE_WINDOW_S after a setting changed on the same target
is told with that change, the likeliest cause of the difference.

Bounded: at most MAX_EVENTS events and MAX_BYTES of JSON (oldest dropped first), one file
in the state directory written atomically, mode 0600 (it holds the digest key). A missing
or damaged file starts afresh, never a failed run.
"""
from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from llmdoctor.atomic import write_atomic
from llmdoctor.model import Record, record

HISTORY_FILE = "history.json"
MAX_EVENTS = 2000
MAX_BYTES = 512 * 1024
MAX_TARGETS = 256
TIE_WINDOW_S = 15 * 60  # a finding this soon after a settings change is told with it


RESTART_KEY = "started@"  # settings_snapshot's key of a unit's start time


class Event(Record):
    """One transition. kind: "setting" (name, before, after, where: "" before = newly set,
    "" after = removed), "restart" (name = the unit, after = when systemd started it) or
    "finding" (name = check id, cause, severity, after: "appeared" or "cleared")."""

    __slots__ = ("t", "target", "kind", "name", "before", "after", "where", "cause", "severity", "seen")

    def __init__(self, t: float, target: str, kind: str, name: str, before: str = "", after: str = "",
                 where: str = "", cause: str = "", severity: str = "", seen: float = 0.0) -> None:
        self.t = t  # when it happened (a unit's restart), else when the exporter saw it
        self.seen = seen  # when the exporter saw it, where that is later than t (0: the same)
        self.target = target
        self.kind = kind
        self.name = name
        self.before = before
        self.after = after
        self.where = where
        self.cause = cause
        self.severity = severity

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) != "" and not (k == "seen" and not self.seen)}

    @classmethod
    def from_json(cls, doc: Any) -> "Event | None":
        if not isinstance(doc, dict):
            return None
        try:
            return cls(float(doc["t"]), str(doc["target"]), str(doc["kind"]), str(doc["name"]),
                       **{k: str(doc.get(k, "")) for k in ("before", "after", "where", "cause", "severity")},
                       seen=float(doc.get("seen", 0.0)))
        except (KeyError, TypeError, ValueError):
            return None


def started_at(text: str, fallback: float) -> float:
    """systemd's `ActiveEnterTimestamp` ("Sun 2026-11-29 11:22:26 UTC") as unix time; `fallback`
    when it is another shape or zone (a local zone's name is ambiguous) or later than `fallback`."""
    import calendar
    import re
    import time

    m = re.fullmatch(r"\s*(?:\w{3} )?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? (UTC|GMT|[+-]\d{4})\s*", str(text))
    if not m:
        return fallback
    t = calendar.timegm(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"))
    zone = m.group(2)
    if zone[0] in "+-":
        t -= (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 3600 + int(zone[3:]) * 60)
    return float(t) if t <= fallback else fallback


def _finding_key(f: Any) -> tuple[str, str, str]:
    cause = getattr(f.cause, "value", f.cause)
    severity = getattr(f.severity, "value", f.severity)
    return str(f.check or "unnamed"), str(cause), str(severity)


class History:
    """The kept state per target (last settings, last findings) and the events so far."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.key = secrets.token_bytes(32)
        self.last: dict[str, dict[str, Any]] = {}
        self.events: list[Event] = []
        self.dirty = False  # something to write: a cycle that changed nothing writes nothing

    # -- storage -------------------------------------------------------------------------
    @classmethod
    def load(cls, state_root: str | None) -> "History":
        h = cls(os.path.join(state_root, HISTORY_FILE) if state_root else None)
        if not h.path:
            return h
        try:
            with open(h.path, "rb") as f:
                data = f.read(4 * MAX_BYTES + 1)  # never more than a bounded history can be
            doc = json.loads(data) if len(data) <= 4 * MAX_BYTES else None
        except (OSError, ValueError):
            return h
        if not isinstance(doc, dict):
            return h
        try:
            key = bytes.fromhex(str(doc.get("key", "")))
            if len(key) >= 16:
                h.key = key
        except ValueError:
            pass
        last = doc.get("last")
        if isinstance(last, dict):
            h.last = {str(t): v for t, v in last.items() if isinstance(v, dict)}
        rows = doc.get("events")
        h.events = [e for e in map(Event.from_json, rows if isinstance(rows, list) else ()) if e is not None]
        return h

    def to_bytes(self) -> bytes:
        """The JSON document, oldest events dropped until it fits MAX_EVENTS and MAX_BYTES."""
        self.events = self.events[-MAX_EVENTS:]
        if len(self.last) > MAX_TARGETS:  # targets seen long ago go first
            keep = sorted(self.last, key=lambda t: self.last[t].get("t", 0))[-MAX_TARGETS:]
            self.last = {t: self.last[t] for t in keep}
        while True:
            data = json.dumps({"version": 1, "key": self.key.hex(), "last": self.last,
                               "events": [e.to_json() for e in self.events]}, sort_keys=True).encode()
            if len(data) <= MAX_BYTES or not self.events:
                return data
            self.events = self.events[max(1, len(self.events) // 10):]

    def save(self) -> None:
        if not self.path or not self.dirty:
            return
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        write_atomic(self.path, self.to_bytes(), mode=0o600)
        self.dirty = False

    # -- one observation ------------------------------------------------------------------
    def observe(self, target: str, t: float, settings: Mapping[str, tuple[str, str]],
                findings: Iterable[Any]) -> list[Event]:
        """Record what the target runs with and what it shows now; returns the new events.
        The first observation of a target is its baseline: its findings count as appeared,
        its settings are not changes."""
        now_findings = {"|".join(_finding_key(f)) for f in findings}
        prev = self.last.get(target)
        new: list[Event] = []
        if prev is not None:
            before = {k: tuple(v) for k, v in (prev.get("settings") or {}).items()}
            restarted = [k for k in settings if k.startswith(RESTART_KEY) and k in before and before[k][0] != settings[k][0]]
            # a setting that changed across a restart took effect when the unit started, not when we looked
            at = min([started_at(settings[k][0], t) for k in restarted] or [t])
            for key in restarted:
                at_key = started_at(settings[key][0], t)
                new.append(Event(at_key, target, "restart", key[len(RESTART_KEY):], before[key][0], settings[key][0],
                                 "systemd", seen=t if at_key < t else 0.0))
            for key in sorted(set(before) | set(settings)):
                if key.startswith(RESTART_KEY):
                    continue
                old, new_v = before.get(key), settings.get(key)
                if old is not None and new_v is not None and old[0] == new_v[0]:
                    continue
                new.append(Event(at, target, "setting", key, old[0] if old else "", new_v[0] if new_v else "",
                                 (new_v or old)[1], seen=t if at < t else 0.0))
        old_findings = set(prev.get("findings") or ()) if prev is not None else set()
        for key, change in [(k, "appeared") for k in sorted(now_findings - old_findings)] + \
                           [(k, "cleared") for k in sorted(old_findings - now_findings)]:
            check, cause, severity = (key.split("|") + ["", ""])[:3]
            new.append(Event(t, target, "finding", check, after=change, cause=cause, severity=severity))
        self.dirty = self.dirty or prev is None or bool(new) or not os.path.exists(self.path or "")
        self.last[target] = {"t": t, "settings": {k: list(v) for k, v in settings.items()},
                             "findings": sorted(now_findings)}
        self.events.extend(new)
        return new

    def last_changes(self, target: str) -> dict[str, float]:
        """setting key -> when it last changed, for the annotation metric."""
        out: dict[str, float] = {}
        for e in self.events:
            if e.target == target and e.kind == "setting":
                out[e.name] = e.t
            elif e.target == target and e.kind == "restart":
                out[RESTART_KEY + e.name] = e.t
        return out


# -- reading ---------------------------------------------------------------------------------
@record
class Transition(Record):
    """An event as `llmdoctor history` tells it: a finding with the settings changes that
    came shortly before it on the same target (`causes`)."""

    event: Event
    causes: tuple[Event, ...] = ()


def transitions(events: Iterable[Event], since: float | None = None, target: str | None = None,
                window: float = TIE_WINDOW_S) -> list[Transition]:
    """Events at or after `since` (unix time), oldest first, findings that appeared tied to
    the settings changes on the same target seen in the `window` before them."""
    rows = sorted((e for e in events if target is None or e.target == target), key=lambda e: e.t)
    out: list[Transition] = []
    for e in rows:
        if since is not None and e.t < since:
            continue
        causes: tuple[Event, ...] = ()
        if e.kind == "finding" and e.after == "appeared":
            # measured from when the exporter saw the change: a restart an hour before the cycle
            # that found both is still the change the finding followed
            causes = tuple(s for s in rows if s.kind == "setting" and s.target == e.target
                           and 0 <= e.t - (s.seen or s.t) <= window)
        out.append(Transition(e, causes))
    return out


def _clock(t: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _change(s: Event, at: str = "") -> str:
    where = (f" at {at}" if at else "") + (f" in {s.where}" if s.where else "")
    if not s.before:
        return f"{s.name} set to {s.after}{where}"
    if not s.after:
        return f"{s.name} ({s.before}) removed{where}"
    return f"{s.name} went {s.before} -> {s.after}{where}"


def describe(tr: Transition) -> str:
    """One line: '2026-12-02 14:02 gpu1 QUEUEING since 14:02 (ollama-one-slot, warning); OLLAMA_NUM_PARALLEL went 4 -> 1 at 14:01 in override.conf'."""
    e = tr.event
    head = f"{_clock(e.t)} {e.target}"
    if e.kind == "restart":
        return f"{head} {e.name} restarted"
    if e.kind == "setting":
        return f"{head} setting {_change(e)}"
    if e.after == "cleared":
        return f"{head} {e.cause} cleared ({e.name})"
    text = f"{head} {e.cause} since {_clock(e.t)[11:]} ({e.name}, {e.severity})"
    if tr.causes:
        text += "; " + "; ".join(_change(s, _clock(s.t)[11:]) for s in tr.causes)
    return text


def transition_json(tr: Transition) -> dict[str, Any]:
    doc = tr.event.to_json()
    if tr.causes:
        doc["after_settings_change"] = [s.to_json() for s in tr.causes]
    return doc
