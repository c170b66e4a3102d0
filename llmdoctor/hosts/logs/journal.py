"""The systemd journal of a unit, read through the systemd library, `journalctl -o json`
streamed, or journal files in a directory; entries formatted like `journalctl -o short-iso`."""
from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator

from llmdoctor.hosts.base import CommandNotFound, HostError, Unanswerable
from llmdoctor.knowledge.logtime import DAY
from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit
from llmdoctor.knowledge.recognize import engine_from_name
from llmdoctor.hosts.logs.source import CHUNK, JOURNAL_DEADLINE, REMOTE_MAX_ENTRIES
from llmdoctor.hosts.logs.state import ResumeState


NOT_PERMITTED = "journalctl: not permitted - add the user to systemd-journal or run as root"


def journal_permission_problem(stderr: str) -> str | None:
    s = stderr.lower()
    if "insufficient permissions" in s or "not seeing messages from other users" in s:
        return NOT_PERMITTED
    return None


def message_lines(message: Any) -> list[str]:
    """MESSAGE as journalctl -o json or python-systemd give it: a string, bytes, an array of
    byte values (non-UTF-8 data), an array of several values, or null (too large)."""
    if message is None:
        return []
    if isinstance(message, bytes):
        return message.decode("utf-8", "replace").rstrip("\n").split("\n")
    if isinstance(message, list):
        if all(isinstance(x, int) for x in message):
            return bytes(x & 0xFF for x in message).decode("utf-8", "replace").rstrip("\n").split("\n")
        out: list[str] = []
        for value in message:
            out += message_lines(value)
        return out
    return str(message).rstrip("\n").split("\n")


def format_entry(entry: dict[str, Any], fallback_ident: str = "") -> list[str]:
    """Journal entry -> lines with the short-iso prefix `2026-08-01T07:02:33+0000 host ident[pid]: `."""
    try:
        moment = datetime.fromtimestamp(_entry_seconds(entry) or 0.0, timezone.utc)
    except (OverflowError, ValueError, OSError):  # a stamp no calendar holds
        moment = datetime.fromtimestamp(0.0, timezone.utc)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S+0000")
    host = _text(entry.get("_HOSTNAME")) or "localhost"
    ident = _text(entry.get("SYSLOG_IDENTIFIER")) or _text(entry.get("_COMM")) or fallback_ident
    pid = _text(entry.get("_PID"))
    prefix = f"{stamp} {host} {ident}[{pid}]: " if pid else f"{stamp} {host} {ident}: "
    return [prefix + line for line in message_lines(entry.get("MESSAGE"))]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return _text(value[0]) if value else ""
    return str(value)


def _entry_seconds(entry: dict[str, Any]) -> float | None:
    ts = entry.get("__REALTIME_TIMESTAMP")
    if isinstance(ts, datetime):
        return ts.timestamp()
    try:
        return int(ts) / 1e6
    except (TypeError, ValueError, OverflowError):
        return None


def systemd_reader_available() -> bool:
    try:
        from systemd import journal  # noqa: F401
    except ImportError:
        return False
    return True


class JournalSource:
    """The journal of one systemd unit.

    Backends, in order: python-systemd's `systemd.journal.Reader` (the optional
    `llmdoctor[journal]` extra) on the local machine; `journalctl -o json` streamed
    line by line from a local subprocess; `journalctl -o json` through host.run on
    other hosts (the whole output is returned at once, so it is bounded to the newest
    REMOTE_MAX_ENTRIES entries). `directory` reads journal files from a directory
    instead of the system journal (journalctl --directory, Reader(path=...)).
    """

    def __init__(
        self,
        host,
        unit: str,
        engine: str | None = None,
        since_seconds: float | None = DAY,
        state: ResumeState | None = None,
        directory: str | None = None,
        backend: str | None = None,  # "reader" | "journalctl" | "host"; None = best available
        deadline: float = JOURNAL_DEADLINE,
    ) -> None:
        self.host = host
        self.unit = unit if "." in unit else f"{unit}.service"
        self.name = f"journal:{self.unit}"
        self.engine = engine if engine is not None else engine_from_name(self.unit)
        self.since_seconds = since_seconds
        self.state = state
        self.directory = directory
        self.deadline = deadline
        self.state_key = f"{host.name}|journal:{directory or ''}:{self.unit}"
        self.error: str | None = None
        self.backend = backend or "host"  # the host chooses (Host.journal): reader/journalctl only here
        saved = state.get(self.state_key) if state else None
        cursor = saved.get("cursor") if saved else None
        self._cursor: str | None = cursor if isinstance(cursor, str) and cursor else None  # else damaged: the window
        self._last_cursor: str | None = None
        self._cutoff = (time.time() - since_seconds) if since_seconds else None

    # -- shared -----------------------------------------------------------------------------
    def _unit_option(self) -> str:
        """`--unit=NAME` after validation: the name is an option value, so `--` cannot guard it."""
        try:
            return f"--unit={check_unit(self.unit)}"
        except BadUnitName as e:
            raise HostError(str(e)) from None

    def _argv(self, extra: list[str]) -> list[str]:
        argv = ["journalctl", self._unit_option(), "-o", "json", "--all", "--no-pager"]
        if self.directory:
            argv += ["--directory", self.directory]
        if self._cursor:
            argv += ["--after-cursor", self._cursor]  # journalctl refuses --since with it
        elif self._cutoff is not None:
            argv += [f"--since=@{int(self._cutoff)}"]
        return argv + extra

    def _accept(self, entry: dict[str, Any]) -> bool:
        if self._cutoff is not None:
            t = _entry_seconds(entry)
            if t is not None and t < self._cutoff:
                return False
        cursor = entry.get("__CURSOR")
        if cursor == self._cursor:
            return False
        if cursor:
            self._last_cursor = str(cursor)
        return True

    def _save(self) -> None:
        if self.state is not None and self._last_cursor:
            self.state.put(self.state_key, {"cursor": self._last_cursor})

    def probe(self) -> str | None:
        """Why this journal cannot be read, or None. Cheap: reads at most one entry."""
        if self.backend == "reader" and not self.directory and os.geteuid() != 0:
            groups = _group_names()
            if not groups & {"systemd-journal", "adm", "wheel"}:
                return NOT_PERMITTED
            return None
        if self.backend == "reader":
            if self.directory and not os.access(self.directory, os.R_OK | os.X_OK):
                return f"journal directory {self.directory}: not readable"
            return None
        argv = ["journalctl", self._unit_option(), "-o", "json", "-n", "1", "--no-pager"]
        if self.directory:
            argv += ["--directory", self.directory]
        try:
            res = self.host.run(argv, timeout=15)
        except CommandNotFound:
            return "journalctl: not installed (no systemd journal on this host)"
        except HostError as e:
            return f"journalctl: {e}"
        problem = journal_permission_problem(res.stderr)
        if problem:
            return problem
        if not res.ok:
            first = (res.stderr.strip().splitlines() or [f"exit status {res.returncode}"])[0]
            return f"journalctl: {first[:200]}"
        return None

    # -- backends -----------------------------------------------------------------------------
    def _reader_entries(self) -> Iterator[dict[str, Any]]:
        from systemd import journal

        reader = journal.Reader(path=self.directory) if self.directory else journal.Reader()
        try:
            reader.add_match(_SYSTEMD_UNIT=self.unit)
            if self._cursor:
                try:
                    reader.seek_cursor(self._cursor)
                except (OSError, ValueError):
                    self._cursor = None
            if not self._cursor and self._cutoff is not None:
                reader.seek_realtime(datetime.fromtimestamp(self._cutoff))
            end = time.monotonic() + self.deadline
            for entry in reader:
                if time.monotonic() > end:
                    self.error = f"{self.name}: stopped after {self.deadline:g} s"
                    break
                yield entry
        finally:
            reader.close()

    def _journalctl_entries(self) -> Iterator[dict[str, Any]]:
        import subprocess
        import tempfile

        env = dict(os.environ, LC_ALL="C", SYSTEMD_PAGER="", PAGER="cat", SYSTEMD_COLORS="0")
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(self._argv([]), stdout=subprocess.PIPE, stderr=err,
                                        stdin=subprocess.DEVNULL, env=env)
            except FileNotFoundError:
                self.error = "journalctl: not installed (no systemd journal on this host)"
                return
            timer = threading.Timer(self.deadline, proc.kill)
            timer.start()
            try:
                assert proc.stdout is not None
                yield from _json_entries(proc.stdout)
            finally:
                timer.cancel()
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                err.seek(0)
                stderr = err.read(64 * 1024).decode("utf-8", "replace")
                if proc.returncode not in (0, -9) or journal_permission_problem(stderr):
                    self.error = journal_permission_problem(stderr) or f"journalctl: {stderr.strip()[:200]}"
                elif proc.returncode == -9 and not timer.is_alive():
                    self.error = self.error or f"{self.name}: stopped after {self.deadline:g} s"

    def _host_entries(self) -> Iterator[dict[str, Any]]:
        try:
            lines = self.host.stream(self._argv([]), timeout=self.deadline)  # line by line, bounded memory
        except Unanswerable:
            lines = None  # only run(): the whole output at once, so the newest REMOTE_MAX_ENTRIES
        except HostError as e:
            self.error = f"journalctl: {e}"
            return
        if lines is not None:
            yield from self._streamed_entries(lines)
            return
        try:
            res = self.host.run(self._argv(["-n", str(REMOTE_MAX_ENTRIES)]), timeout=self.deadline)
        except HostError as e:
            self.error = f"journalctl: {e}"
            return
        problem = journal_permission_problem(res.stderr)
        if problem or not res.ok:
            self.error = problem or f"journalctl: {res.stderr.strip()[:200]}"
        yield from _json_entries(res.stdout.splitlines())

    def _streamed_entries(self, lines) -> Iterator[dict[str, Any]]:
        try:
            yield from _json_entries(lines)
        except HostError as e:
            self.error = f"journalctl: {e}"
        problem = journal_permission_problem(getattr(lines, "stderr", "") or "")
        if problem:
            self.error = problem

    def entries(self) -> Iterator[dict[str, Any]]:
        backend = {"reader": self._reader_entries, "journalctl": self._journalctl_entries, "host": self._host_entries}
        try:
            for entry in backend[self.backend]():
                if self._accept(entry):
                    yield entry
        except OSError as e:
            self.error = f"{self.name}: {e}"
        finally:
            self._save()

    def lines(self) -> Iterator[str]:
        ident = self.unit.rsplit(".", 1)[0]
        for entry in self.entries():
            yield from format_entry(entry, ident)

    def blocks(self, max_chars: int = CHUNK) -> Iterator[str]:
        buf: list[str] = []
        size = 0
        for line in self.lines():
            buf.append(line)
            size += len(line) + 1
            if size >= max_chars:
                yield "\n".join(buf)
                buf, size = [], 0
        if buf:
            yield "\n".join(buf)


def _json_entries(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """`journalctl -o json` output, one entry per line; lines that are not an object are skipped."""
    for raw in lines:
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def _group_names() -> set[str]:
    import grp

    names = set()
    for gid in os.getgroups():
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            pass
    return names
