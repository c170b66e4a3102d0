"""Log sources: the systemd journal, plain log files and evidence files, streamed.

Every source has `.name` (shown as the evidence source, e.g. "journal:ollama.service"),
`.engine` (OLLAMA / VLLM / LLAMACPP, or None when unknown) and `.lines()`, an
iterator over the raw lines inside the time window, with bounded memory. Lines
keep whatever prefix they have; journal lines are given the `journalctl -o
short-iso` prefix (`2026-08-01T07:02:33+0000 host ollama[1617]: `) so they read like
the journal and keep their time. `.blocks()` yields the same text as newline-joined
blocks of whole lines, for scanners that run one regex over many lines at once.

Resuming: given a `ResumeState` (a small JSON file), a source starts where the
previous run stopped - after the journal cursor, or at the byte offset of a file
whose inode is unchanged and which has not shrunk (a rotated or truncated file is
read from its start) - and records the new position when a scan ends. Within one
run every call to `.lines()` reads the same range, so several scanners can share a
source; the position saved is the furthest any of them reached.

A source that fails while streaming stops and sets `.error` (a one-line reason)
instead of raising into the scanner that iterates it.
"""
from importlib import import_module
from typing import Any

# name -> the module of this package that defines it; imported on first use, so a run that
# reads only files never loads the journal readers (start-up time)
_WHERE = {
    "BISECT_ABOVE": "files", "EvidenceFileSource": "files", "FileSource": "files", "RemoteFileSource": "files",
    "window_start": "files", "NOT_PERMITTED": "journal", "JournalSource": "journal", "format_entry": "journal",
    "journal_permission_problem": "journal", "message_lines": "journal", "systemd_reader_available": "journal",
    "ContainerLogSource": "container", "CHUNK": "source", "MAX_LINE": "source", "LogSource": "source", "ResumeState": "state",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
