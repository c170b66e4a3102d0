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
from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol

from llmdoctor.atomic import write_atomic
from llmdoctor.hosts.base import CommandNotFound, HostError, Unanswerable
from llmdoctor.knowledge.logtime import DAY, SCAN, line_time
from llmdoctor.knowledge.recognize import engine_from_name

CHUNK = 1024 * 1024  # bytes read from a file at a time
MAX_LINE = 1024 * 1024  # longer lines are cut (a runaway line never grows memory)
BISECT_ABOVE = 4 * CHUNK  # files this large are bisected to the window's start
JOURNAL_DEADLINE = 120.0  # seconds a journal read may take in all
REMOTE_MAX_ENTRIES = 200_000  # journal entries read through host.run (held in memory)
REMOTE_MAX_BYTES = 64 * 1024 * 1024  # plain-file bytes read per run on a remote host


class LogSource(Protocol):
    name: str
    engine: str | None
    error: str | None

    def lines(self) -> Iterator[str]:
        ...




# -- resume state --------------------------------------------------------------------------


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


def _saved_offset(saved: dict[str, Any] | None) -> int | None:
    """The byte offset a saved file position holds; None when there is none or it is damaged."""
    value = saved.get("offset", 0) if saved else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


# -- plain files ------------------------------------------------------------------------------


def _first_time_after(f, offset: int, now: float) -> float | None:
    """The first parseable time stamp in the lines that start after `offset`."""
    f.seek(offset)
    data = f.read(64 * 1024)
    if offset:
        data = data[data.find(b"\n") + 1 :]
    for raw in data.split(b"\n")[:-1] or [data]:
        t = line_time(raw[:SCAN].decode("utf-8", "replace"), now)
        if t is not None:
            return t
    return None


def window_start(f, start: int, size: int, cutoff: float, now: float) -> int:
    """Byte offset at or before the first line newer than `cutoff` (binary search on stamps).
    Returns `start` when the file is small or carries no parseable stamps."""
    if size - start <= BISECT_ABOVE:
        return start
    lo, hi = start, size
    while hi - lo > CHUNK:
        mid = (lo + hi) // 2
        t = _first_time_after(f, mid, now)
        if t is None:
            break  # no stamps here: read linearly from what we know is safe
        if t < cutoff:
            lo = mid
        else:
            hi = mid
    if lo == start:
        return start
    f.seek(lo)
    skip = f.read(MAX_LINE).find(b"\n")  # start at a line boundary
    return lo + skip + 1 if skip >= 0 else lo


class FileSource:
    """A log file on this machine, read in large binary chunks."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str | None = None,
        engine: str | None = None,
        since_seconds: float | None = DAY,
        state: ResumeState | None = None,
        state_key: str | None = None,
        now: float | None = None,
    ) -> None:
        self.path = str(path)
        self.name = name or os.path.basename(self.path)
        self.engine = engine if engine is not None else engine_from_name(self.path)
        self.since_seconds = since_seconds
        self.state = state
        self.state_key = state_key or f"file:{os.path.abspath(self.path)}"
        self.now = now
        self.error: str | None = None
        self.notes: list[str] = []
        self._range: tuple[int, int] | None = None  # (start offset, inode) fixed for this run
        self._reached = 0

    def _start(self, st: os.stat_result) -> int:
        if self._range is not None and self._range[1] == st.st_ino:
            return self._range[0]
        start = 0
        saved = self.state.get(self.state_key) if self.state else None
        offset = _saved_offset(saved)
        if saved and offset is not None:
            if saved.get("inode") != st.st_ino:
                self.notes.append(f"{self.name}: a new file since the last run (rotated): read from its start")
            elif offset > st.st_size:
                self.notes.append(f"{self.name}: shorter than at the last run (truncated): read from its start")
            else:
                start = offset
        self._range = (start, st.st_ino)
        return start

    def raw_blocks(self) -> Iterator[bytes]:
        """Bytes holding whole lines, undecoded."""
        for buf, begin, end in self.raw_regions():
            yield bytes(buf[begin:end])

    def raw_regions(self) -> Iterator[tuple[bytearray, int, int]]:
        """(buffer, begin, end): buffer[begin:end] holds whole lines, undecoded and uncopied.

        The buffer is reused: a region is valid only until the next one is asked for. Once
        the time window is reached no byte is decoded or copied, so a scanner keeps pace
        with grep."""
        try:
            f = open(self.path, "rb")
        except OSError as e:
            self.error = f"{self.path}: {e.strerror or e}"
            return
        with f:
            st = os.fstat(f.fileno())
            start = self._start(st)
            now = time.time() if self.now is None else self.now
            cutoff = now - self.since_seconds if self.since_seconds else None
            pos = window_start(f, start, st.st_size, cutoff, now) if cutoff is not None else start
            resumable = self.state is not None
            f.seek(pos)
            window = _Window(cutoff, now)
            # One reused buffer: the unfinished last line moves to its front, the next read
            # fills in behind it, and each block of whole lines is copied out exactly once.
            buf = bytearray(CHUNK + MAX_LINE)
            view = memoryview(buf)
            filled = 0
            skipping = False  # inside the dropped tail of a runaway line
            try:
                while True:
                    n = f.readinto(view[filled : filled + CHUNK])
                    if not n:
                        break
                    end = filled + n
                    begin = 0
                    if skipping:
                        newline = buf.find(b"\n", filled, end)
                        if newline < 0:
                            filled = 0
                            continue
                        begin, skipping = newline + 1, False
                    cut = buf.rfind(b"\n", begin, end)
                    if cut < 0:
                        if end - begin >= MAX_LINE:  # a runaway line: keep its head, drop the rest
                            data = window.filter_bytes(bytes(view[begin : begin + MAX_LINE]))
                            if data:
                                yield bytearray(data), 0, len(data)
                            filled, skipping = 0, True
                        else:
                            buf[: end - begin] = view[begin:end]
                            filled = end - begin
                        continue
                    if window.inside:
                        yield buf, begin, cut
                    else:
                        data = window.filter_bytes(bytes(view[begin:cut]))
                        if data:
                            yield bytearray(data), 0, len(data)
                    left = end - cut - 1
                    buf[:left] = view[cut + 1 : end]
                    filled = left
                    self._reached = max(self._reached, f.tell() - filled)
                if filled and not resumable:  # an unterminated last line (a pasted file)
                    data = window.filter_bytes(bytes(view[:filled]))
                    if data:
                        yield bytearray(data), 0, len(data)
            except OSError as e:
                self.error = f"{self.path}: {e.strerror or e}"
            finally:
                if self.state is not None and self._reached:
                    self.state.put(self.state_key, {"inode": st.st_ino, "offset": self._reached, "size": st.st_size})

    def blocks(self) -> Iterator[str]:
        for data in self.raw_blocks():
            yield data.decode("utf-8", "replace")

    def lines(self) -> Iterator[str]:
        for block in self.blocks():
            yield from block.split("\n")


STAMP_PROBE_LINES = 2000  # no stamp in this many lines: the file has none we know; read it all


class _Window:
    """Drops lines written before `cutoff`. Lines without a stamp follow the last stamp
    seen; before any stamp they are kept (unknown is not old). Logs are chronological, so
    once a line is inside the window every later one is, and parsing stops."""

    def __init__(self, cutoff: float | None, now: float) -> None:
        self.cutoff, self.now = cutoff, now
        self.inside = cutoff is None
        self.seen_stamp = False
        self.probed = 0

    def filter_bytes(self, data: bytes) -> bytes:
        """`filter` on undecoded lines; inside the window the bytes pass untouched."""
        if self.inside:
            return data
        return self.filter(data.decode("utf-8", "replace")).encode("utf-8")

    def filter(self, text: str) -> str:
        if self.inside:
            return text
        lines = text.split("\n")
        kept: list[str] = []
        for i, line in enumerate(lines):
            t = line_time(line, self.now)
            if t is not None:
                self.seen_stamp = True
                if t >= self.cutoff:
                    self.inside = True
                    return "\n".join(kept + lines[i:])
            elif not self.seen_stamp:
                kept.append(line)
                self.probed += 1
                if self.probed >= STAMP_PROBE_LINES:
                    self.inside = True
                    return "\n".join(kept + lines[i + 1 :])
        return "\n".join(kept)


class EvidenceFileSource(FileSource):
    """A log file in an evidence directory. Its time window ends at the collection time
    (meta.json "time") when known; otherwise the whole file is read, since evidence
    describes the past."""

    def __init__(self, host, name: str, engine: str | None = None, since_seconds: float | None = DAY) -> None:
        collected = _meta_time(host.meta or {})
        super().__init__(
            host.path(name),
            name=name,
            engine=engine if engine is not None else engine_from_name(name),
            since_seconds=since_seconds if collected is not None else None,
            now=collected,
        )
        repaired = host.repair(name)
        # what paste repair took off its lines: journald identifiers, compose services, pods
        self.idents: tuple[str, ...] = repaired.idents if repaired is not None else ()
        self.prefixes: tuple[str, ...] = repaired.prefixes if repaired is not None else ()


def _meta_time(meta: dict) -> float | None:
    value = meta.get("time")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return line_time(value)
    return None


class RemoteFileSource:
    """A log file on a remote host: `stat` for inode and size, `dd` for the new bytes
    (at most REMOTE_MAX_BYTES per run; Host.run returns the whole output, so the read
    is bounded rather than streamed)."""

    def __init__(self, host, path: str, engine: str | None = None, since_seconds: float | None = DAY,
                 state: ResumeState | None = None) -> None:
        self.host = host
        self.path = path
        self.name = os.path.basename(path)
        self.engine = engine if engine is not None else engine_from_name(path)
        self.since_seconds = since_seconds
        self.state = state
        self.state_key = f"{host.name}|file:{path}"
        self.error: str | None = None
        self._text: str | None = None

    def _fetch(self) -> str:
        if self._text is not None:
            return self._text
        self._text = ""
        try:
            res = self.host.run(["stat", "-L", "-c", "%i %s", self.path], timeout=10)
            if not res.ok:
                self.error = f"{self.path}: {(res.stderr.strip() or 'stat failed')[:200]}"
                return ""
            inode, size = (int(x) for x in res.stdout.split()[:2])
            saved = self.state.get(self.state_key) if self.state else None
            offset = _saved_offset(saved)
            start = offset if saved and offset is not None and saved.get("inode") == inode and offset <= size else 0
            start = max(start, size - REMOTE_MAX_BYTES)
            res = self.host.run(
                ["dd", f"if={self.path}", "iflag=skip_bytes,count_bytes", f"skip={start}", f"count={size - start}", "status=none"],
                timeout=120,
            )
            if not res.ok:
                self.error = f"{self.path}: {(res.stderr.strip() or 'dd failed')[:200]}"
                return ""
        except (HostError, ValueError) as e:
            self.error = f"{self.path}: {e}"
            return ""
        text = res.stdout
        if start and start != offset:
            text = text[text.find("\n") + 1 :]  # began mid-line
        cut = text.rfind("\n")
        if self.state is not None:
            self.state.put(self.state_key, {"inode": inode, "offset": start + len(text[: cut + 1].encode()), "size": size})
            text = text[: cut + 1]
        if self.since_seconds:
            text = _Window(time.time() - self.since_seconds, time.time()).filter(text)
        self._text = text
        return text

    def blocks(self) -> Iterator[str]:
        text = self._fetch()
        if text:
            yield text

    def lines(self) -> Iterator[str]:
        for line in self._fetch().splitlines():
            yield line


# -- the systemd journal ------------------------------------------------------------------------

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
    def _argv(self, extra: list[str]) -> list[str]:
        argv = ["journalctl", "-u", self.unit, "-o", "json", "--all", "--no-pager"]
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
        argv = ["journalctl", "-u", self.unit, "-o", "json", "-n", "1", "--no-pager"]
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
