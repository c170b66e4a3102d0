"""What a `--once` run keeps for the next one (each timer tick is a new process):
the counters, when the probe last ran, its results and the findings of its checks, and
the waiting counts of the last cycles (for the queue's shape).
A small JSON file in the state directory, written atomically; a missing or
damaged file means starting afresh, never a failed run.
"""
from __future__ import annotations

import json
import os
from types import SimpleNamespace
from typing import Any

from llmdoctor.app.exporter.counters import MonotonicTotals
from llmdoctor.app.exporter.queue_history import QueueHistory
from llmdoctor.app.exporter.scheduler import Scheduler
from llmdoctor.atomic import write_atomic

STATE_FILE = "exporter-state.json"


def load_state(state_root: str | None) -> dict[str, Any]:
    if not state_root:
        return {}
    try:
        with open(os.path.join(state_root, STATE_FILE), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_state(state_root: str | None, scheduler: Scheduler, last_probe: float | None) -> None:
    """Counters, the last probe's time and its results, for the next `--once` run."""
    if not state_root:
        return
    probes = {}
    for target, facts in scheduler.probes.items():
        to_dict = getattr(facts.get("probe"), "to_dict", None)
        if callable(to_dict):
            probes[target] = to_dict()
    carried = {
        target: [{"check": f.check, "cause": getattr(f.cause, "value", f.cause), "severity": getattr(f.severity, "value", f.severity)}
                 for f in findings]
        for target, findings in scheduler.probe_findings.items()
    }
    data = {"counters": scheduler.totals.to_json(), "last_probe_unix": last_probe, "probes": probes,
            "probe_findings": carried, "queue_history": scheduler.queue_history.to_json()}
    os.makedirs(state_root, exist_ok=True)
    write_atomic(os.path.join(state_root, STATE_FILE), json.dumps(data).encode(), mode=0o600)


def restore_state(scheduler: Scheduler, state: dict[str, Any]) -> None:
    """Put what the previous run kept back into a fresh scheduler; unreadable parts are dropped."""
    scheduler.totals = MonotonicTotals.from_json(state.get("counters"))
    scheduler.queue_history = QueueHistory.from_json(state.get("queue_history"), scheduler.targets)
    probes = state.get("probes")
    if isinstance(probes, dict):
        from llmdoctor.facts.probe import runs_from_json

        for target, doc in probes.items():
            if target in scheduler.targets:
                try:
                    scheduler.probes[target] = {"probe": runs_from_json(json.dumps(doc).encode())}
                except (ValueError, TypeError, KeyError):
                    continue
    carried = state.get("probe_findings")
    if isinstance(carried, dict):
        for target, rows in carried.items():
            if target in scheduler.targets and isinstance(rows, list):
                scheduler.probe_findings[target] = tuple(
                    SimpleNamespace(check=str(r.get("check", "")), cause=str(r.get("cause", "")), severity=str(r.get("severity", "")))
                    for r in rows if isinstance(r, dict)
                )
