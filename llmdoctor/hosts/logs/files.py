"""Plain log files, read in chunks from the start of the time window (large files are
bisected to it), on this machine, on a remote host through its commands, or in a recording."""
from __future__ import annotations

import os
import time
from typing import Iterator

from llmdoctor.hosts.base import HostError
from llmdoctor.knowledge.logtime import DAY, SCAN, line_time
from llmdoctor.knowledge.recognize import engine_from_name
from llmdoctor.hosts.logs.source import BISECT_ABOVE, CHUNK, MAX_LINE, REMOTE_MAX_BYTES
from llmdoctor.hosts.logs.state import ResumeState, saved_offset


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


def _after_lines(f, start: int, lines: int) -> int:
    """The offset at or before which the first `lines` lines from `start` end."""
    f.seek(start)
    pos, left = start, lines
    while left > 0:
        data = f.read(CHUNK)
        if not data:
            break
        n = data.count(b"\n")
        if n >= left:
            cut = -1
            for _ in range(left):
                cut = data.find(b"\n", cut + 1)
            return pos + cut
        left -= n
        pos += len(data)
    return pos


def _open_before(f, begin: int, end: int, cutoff: float, now: float) -> bool:
    """Is a line of bytes begin..end-1 inside the window (stamped at or after `cutoff`)? Then
    every later line is: a window once open stays open."""
    f.seek(begin)
    for raw in f.read(end - begin).split(b"\n")[1:]:
        t = line_time(raw[:SCAN].decode("utf-8", "replace"), now)
        if t is not None:
            return t >= cutoff
    return False


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
        offset = saved_offset(saved)
        if saved and offset is not None:
            if saved.get("inode") != st.st_ino:
                self.notes.append(f"{self.name}: a new file since the last run (rotated): read from its start")
            elif offset > st.st_size:
                self.notes.append(f"{self.name}: shorter than at the last run (truncated): read from its start")
            else:
                start = offset
        self._range = (start, st.st_ino)
        return start

    def snapshot_key(self) -> tuple | None:
        """What fixes everything this source yields, when only a change of the file can change
        it: a whole-file or fixed-window read that resumes nowhere (an evidence log). None for a
        window that moves with the clock or a read that resumes (it depends on the state too)."""
        if self.state is not None or (self.since_seconds and self.now is None):
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (os.path.abspath(self.path), self.name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                self.since_seconds, self.now)

    def split_span(self, share: float, least: int, after_lines: int = 0) -> tuple[tuple, tuple] | None:
        """The spans (raw_regions) of this read cut in two at a line start about `share` of the
        way in, and after its first `after_lines` lines, for two readers; None when it should
        not be: shorter than `least` bytes, a read that resumes, a time window not surely open
        before the cut, an unreadable file."""
        if self.state is not None:
            return None
        try:
            with open(self.path, "rb") as f:
                st = os.fstat(f.fileno())
                now = time.time() if self.now is None else self.now
                cutoff = now - self.since_seconds if self.since_seconds else None
                start = window_start(f, 0, st.st_size, cutoff, now) if cutoff is not None else 0
                if st.st_size - start < least:
                    return None
                at = max(start + int((st.st_size - start) * share), _after_lines(f, start, after_lines))
                f.seek(at)
                head = f.read(MAX_LINE)
                cut = head.find(b"\n")
                if cut < 0:
                    return None
                mid = at + cut + 1
                if mid >= st.st_size or (cutoff is not None
                                         and not _open_before(f, max(start, mid - 64 * 1024), mid, cutoff, now)):
                    return None
        except OSError:
            return None
        return (start, mid, True), (mid, st.st_size, False)

    def raw_blocks(self) -> Iterator[bytes]:
        """Bytes holding whole lines, undecoded."""
        for buf, begin, end in self.raw_regions():
            yield bytes(buf[begin:end])

    def raw_regions(self, span: tuple[int, int, bool] | None = None) -> Iterator[tuple[bytearray, int, int]]:
        """(buffer, begin, end): buffer[begin:end] holds whole lines, undecoded and uncopied.

        The buffer is reused: a region is valid only until the next one is asked for. Once
        the time window is reached no byte is decoded or copied, so a scanner keeps pace
        with grep. `span` (from split_span): (start, stop, windowed): bytes start..stop-1 of the
        file only, through the time window when `windowed`, without resume state; the same
        span of an unchanged file always gives the same regions."""
        try:
            f = open(self.path, "rb")
        except OSError as e:
            self.error = f"{self.path}: {e.strerror or e}"
            return
        with f:
            st = os.fstat(f.fileno())
            now = time.time() if self.now is None else self.now
            cutoff = now - self.since_seconds if self.since_seconds else None
            if span is not None:
                pos, stop, windowed = span
                cutoff, resumable = cutoff if windowed else None, False
            else:
                start = self._start(st)
                pos = window_start(f, start, st.st_size, cutoff, now) if cutoff is not None else start
                stop, resumable = None, self.state is not None
            f.seek(pos)
            unread = None if stop is None else stop - pos  # bytes of the span not read yet
            window = _Window(cutoff, now)
            # One reused buffer: the unfinished last line moves to its front, the next read
            # fills in behind it, and each block of whole lines is copied out exactly once.
            # After the first (a reader of the head alone decodes no more), each read fills
            # the whole buffer, so a region is nearly all of it (the vLLM scanner counts the
            # newlines of such a region at memchr speed).
            buf = bytearray(CHUNK + MAX_LINE)
            view = memoryview(buf)
            filled = 0
            limit = CHUNK
            skipping = False  # inside the dropped tail of a runaway line
            try:
                while True:
                    n = f.readinto(view[filled : filled + (limit if unread is None else min(limit, unread))])
                    limit = len(buf)
                    if not n:
                        break
                    if unread is not None:
                        unread -= n
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
                if span is None and self.state is not None and self._reached:
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

    def __init__(self, host, name: str, engine: str | None = None, since_seconds: float | None = DAY,
                 state: ResumeState | None = None) -> None:
        """`state`: resume where the previous run stopped, as a live file does (the exporter
        watching an evidence directory reads an unchanged log once, not every cycle)."""
        collected = _meta_time(host.meta or {})
        super().__init__(
            host.path(name),
            name=name,
            engine=engine if engine is not None else engine_from_name(name),
            since_seconds=since_seconds if collected is not None else None,
            state=state,
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
            offset = saved_offset(saved)
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
