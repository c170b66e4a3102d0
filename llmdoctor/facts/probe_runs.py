"""Where and when the probe ran, kept in a small state file so a later `diagnose` can leave the
probe's own requests out of the server's log (knowledge/probe/own_requests.py decides which
lines those are).

`probe-runs.json` in llmdoctor's state directory (hosts/state.py), the newest MAX_RECORDS runs
of the last day. A file that cannot be written or read is no error: the log is then read
whole, as before.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llmdoctor.hosts.state import read_state, state_path as _state_path, write_state
from llmdoctor.knowledge.probe.own_requests import KEEP_S, ProbeWindow
from llmdoctor.redact import redact_text

if TYPE_CHECKING:  # diagnose imports this module to read the file: no probe machinery at start-up
    from llmdoctor.knowledge.probe.result import ProbeResult

FILE = "probe-runs.json"
MAX_RECORDS = 50
MAX_BYTES = 256 * 1024


def state_path() -> Path:
    return _state_path(FILE)


def load_windows(path: Path | None = None, now: float | None = None) -> list[ProbeWindow]:
    """The probe runs remembered here (newest last); [] when there are none or the file is odd."""
    path = path or state_path()
    try:
        data = read_state(path, MAX_BYTES)
        doc = json.loads(data) if len(data) <= MAX_BYTES else []
    except (OSError, ValueError):
        return []
    now = time.time() if now is None else now
    out = []
    for d in doc if isinstance(doc, list) else []:
        w = ProbeWindow.from_dict(d)
        if w is not None and now - w.ended <= KEEP_S:
            out.append(w)
    return out[-MAX_RECORDS:]


def window_of(result: "ProbeResult", started: float, ended: float) -> ProbeWindow:
    """The run's wall-clock span and, for llama-server, the task ids /slots showed around it."""
    tasks = [x.max_task for x in result.loads]
    lo = tasks[0] if tasks and tasks[0] is not None else -1
    hi = max((t for t in tasks if t is not None), default=None)
    window = (lo, hi) if hi is not None and hi > lo else None
    return ProbeWindow(redact_text(result.url), result.engine, started, ended, window)  # a URL may carry a password


def remember(result: "ProbeResult", started: float, path: Path | None = None) -> None:
    path = path or state_path()
    now = time.time()
    records: list[dict[str, Any]] = [w.to_dict() for w in load_windows(path, now)]
    records.append(window_of(result, started, now).to_dict())
    try:
        write_state(path, json.dumps(records[-MAX_RECORDS:]))
    except OSError:
        pass
