"""Real systemd journal files, made without journald (TESTBED.md "A real systemd journal").

Entries are written in the Journal Export Format (a multi-line or non-UTF-8 MESSAGE in
its binary, length-prefixed form) and converted with systemd-journal-remote, which
appends when the output file exists.
"""
from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
BOOT_ID = "6b1e4c0a9f2d4e7c8a3b5d1f0e2c4a6b"


def skip_reason() -> str | None:
    if not os.access(JOURNAL_REMOTE, os.X_OK):
        return f"{JOURNAL_REMOTE} not installed (Debian package systemd-journal-remote)"
    return None


def _field(key: str, value: str | bytes) -> bytes:
    data = value if isinstance(value, bytes) else value.encode()
    if b"\n" in data or isinstance(value, bytes):
        return key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
    return key.encode() + b"=" + data + b"\n"


def export_entry(unit: str, message: str | bytes, realtime_us: int, monotonic_us: int, pid: int = 1617,
                 ident: str | None = None, hostname: str = "gpubox") -> bytes:
    fields = [
        ("__REALTIME_TIMESTAMP", str(realtime_us)),
        ("__MONOTONIC_TIMESTAMP", str(monotonic_us)),
        ("_BOOT_ID", BOOT_ID),
        ("_SYSTEMD_UNIT", unit),
        ("SYSLOG_IDENTIFIER", ident or unit.split(".")[0]),
        ("_PID", str(pid)),
        ("_HOSTNAME", hostname),
        ("PRIORITY", "6"),
        ("MESSAGE", message),
    ]
    return b"".join(_field(k, v) for k, v in fields) + b"\n"


def append_entries(directory: Path, entries: list[tuple[str, str | bytes, float]], start_monotonic: int = 1_000_000) -> Path:
    """Append (unit, message, epoch seconds) entries to DIRECTORY/test.journal."""
    directory.mkdir(parents=True, exist_ok=True)
    export = directory.parent / f"{directory.name}.export"
    export.write_bytes(b"".join(
        export_entry(unit, msg, int(t * 1e6), start_monotonic + i) for i, (unit, msg, t) in enumerate(entries)
    ))
    subprocess.run([JOURNAL_REMOTE, f"--output={directory / 'test.journal'}", str(export)],
                   check=True, capture_output=True, timeout=30)
    export.unlink()
    return directory
