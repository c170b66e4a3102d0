"""Resuming: where the previous run stopped reading each source (a small JSON file per
state directory), so a scheduled run reads only new lines."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from llmdoctor.atomic import write_atomic


_STATE_LOCKS: dict[str, threading.Lock] = {}
_STATE_LOCKS_GUARD = threading.Lock()


class ResumeState:
    """Where each source stopped, in a small JSON file ({key: {...}}), written atomically.

    Several hosts diagnosed in parallel may share one file: every write re-reads it under
    a per-file lock and changes only its own key."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.error: str | None = None  # why positions could not be saved (the scan still ran)
        with _STATE_LOCKS_GUARD:
            self._lock = _STATE_LOCKS.setdefault(str(self.path.resolve()), threading.Lock())
        self.data = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> dict[str, Any] | None:
        value = self.data.get(key)
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            current = self._load()
            current[key] = value
            try:
                write_atomic(self.path, json.dumps(current, indent=1, sort_keys=True).encode())
            except OSError as e:  # a read-only or full state dir must not end the scan
                self.error = f"cannot save log positions in {self.path}: {e.strerror or e}"
                return
            self.data[key] = value


def saved_offset(saved: dict[str, Any] | None) -> int | None:
    """The byte offset a saved file position holds; None when there is none or it is damaged."""
    value = saved.get("offset", 0) if saved else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
