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
from llmdoctor.hosts.logs.files import (BISECT_ABOVE, EvidenceFileSource, FileSource, RemoteFileSource,
                                        window_start)
from llmdoctor.hosts.logs.journal import (NOT_PERMITTED, JournalSource, format_entry, journal_permission_problem,
                                          message_lines, systemd_reader_available)
from llmdoctor.hosts.logs.source import CHUNK, MAX_LINE, LogSource
from llmdoctor.hosts.logs.state import ResumeState

__all__ = ["BISECT_ABOVE", "CHUNK", "MAX_LINE", "NOT_PERMITTED", "EvidenceFileSource", "FileSource", "JournalSource",
           "LogSource", "RemoteFileSource", "ResumeState", "format_entry", "journal_permission_problem",
           "message_lines", "systemd_reader_available", "window_start"]
