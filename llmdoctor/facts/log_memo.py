"""Log scans remembered while their file stays the same, for the life of the process.

An evidence directory is a snapshot, and the exporter diagnoses it every cycle: rescanning an
unchanged 1 GiB log each time cost seconds of CPU per cycle and held the GIL while scrapes
waited. A source that can say what fixes its content (`snapshot_key()`, hosts/logs/files.py)
is scanned once per content; a live window or a resumed read has no such key and is scanned
every time, as before.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

KEEP = 32  # scans remembered (each a small summary)

_memo: OrderedDict[tuple, Any] = OrderedDict()
_lock = threading.Lock()


def scan_once(source, kind: str, scan: Callable[[Any], Any]) -> Any:
    """scan(source), or what it gave for this same content before."""
    snapshot = getattr(source, "snapshot_key", None)
    key = snapshot() if callable(snapshot) else None
    if key is None:
        return scan(source)
    key = (kind,) + key
    with _lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
    result = scan(source)
    if not getattr(source, "error", None):
        with _lock:
            _memo[key] = result
            while len(_memo) > KEEP:
                _memo.popitem(last=False)
    return result
