"""Work done beside this process by a forked copy of it, its results read back in order.

Used to split the scan of a log of gigabytes between two cores (facts/vllm.py). The copy shares
this process's memory as it was (copy on write: no import, no start-up), runs `produce(send)`
and leaves with os._exit (no atexit handler, no flush of this process's buffers). Each `send`
writes one frame (marshal: ints, bytes, lists, tuples) to a pipe; an empty frame ends the
stream. The reader gets the frames in order, each when it asks (`poll`: at once or not yet, so
that a copy slowed down by a busy machine never keeps the reader waiting; `drain` takes in what
came meanwhile, so the copy never waits on a full pipe) or waiting for each (`frames`); they
stop at the end, or at a copy that died or sent garbage: then `ended` says why and the caller
does that work itself. The reader can tell the copy how far it got (`tell`, a number in memory both
share), so that the copy skips what the reader did itself. Forking is refused while other threads run: a copy of a threaded process can
inherit a lock held by a thread it does not have.
"""
from __future__ import annotations

import marshal
import mmap
import os
import select
import signal
import struct
import sys
import time
from typing import Callable, Iterator

_HEAD = struct.Struct("<I")
_MARK = struct.Struct("<q")
PENDING = object()  # poll(): no frame yet
NICE = 10  # the copy yields its core to anything else that wants it: the reader, the engine itself
PIPE_BYTES = 1 << 20  # asked for the pipe, so the copy can run ahead of a reader still busy elsewhere


def can_fork() -> bool:
    """Whether a copy may be forked now: Linux, and no other thread running."""
    if not sys.platform.startswith("linux"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


class Forked:
    """A forked copy running `produce(send, told)`; `poll`/`frames()` give what it sends, in
    order; `told()` in the copy is the last number this process gave `tell`."""

    def __init__(self, produce: Callable[..., None], wait: float = 30.0) -> None:
        self.wait = wait
        self.ended: str | None = None  # why the frames stopped ("done" when the copy said so)
        self._mark = mmap.mmap(-1, _MARK.size)  # shared with the copy: a number the reader tells it
        read_fd, write_fd = os.pipe()
        try:
            import fcntl

            fcntl.fcntl(write_fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
        except (ImportError, OSError):
            pass  # a smaller pipe only makes the copy wait for the reader sooner
        try:
            self.pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            self._mark.close()
            raise
        if self.pid == 0:  # the copy
            os.close(read_fd)
            code = 0
            def send(frame: object) -> None:
                data = marshal.dumps(frame)
                _write_all(write_fd, _HEAD.pack(len(data)) + data)

            try:
                os.nice(NICE)
                produce(send, self.told)
                _write_all(write_fd, _HEAD.pack(0))
            except BaseException:  # the reader sees a stream without its end and does the rest itself
                code = 1
            finally:
                os._exit(code)
        os.close(write_fd)
        self._fd = read_fd
        self._buf = bytearray()  # read from the pipe, not yet taken as frames
        self._eof = False

    def tell(self, n: int) -> None:
        """Let the copy know a number (how far this process got); it reads it with `told`."""
        _MARK.pack_into(self._mark, 0, n)

    def told(self) -> int:
        """The number the reader told last (0 before it told any); for the copy."""
        return _MARK.unpack_from(self._mark, 0)[0]

    def drain(self) -> None:
        """Take in what the copy has written so far, without waiting: a reader busy elsewhere
        calls this now and then, so that the copy never stops on a full pipe."""
        while not self._eof and select.select([self._fd], [], [], 0)[0]:
            self._read_some()

    def poll(self, wait: float = 0.0) -> object:
        """The next frame; PENDING when none has come whole within `wait` seconds (the caller
        may do that work itself meanwhile); None once the frames have ended (`ended`)."""
        deadline = time.monotonic() + wait
        while self.ended is None:
            frame = self._frame()
            if frame is not PENDING:
                return frame
            if self._eof:
                self.ended = "the helper process stopped early"
                break
            if not select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                return PENDING
            self._read_some()
        return None

    def frames(self) -> Iterator[object]:
        """Every frame in order, waiting up to `wait` seconds for each."""
        while (frame := self.poll(self.wait)) is not None:
            if frame is PENDING:
                self.ended = f"no frame within {self.wait:g} s"
                return
            yield frame

    def _read_some(self) -> None:
        part = os.read(self._fd, PIPE_BYTES)
        if part:
            self._buf += part
        else:
            self._eof = True

    def _frame(self) -> object:
        """A whole frame from what was read (None at the end), else PENDING."""
        buf = self._buf
        if len(buf) < _HEAD.size:
            return PENDING
        (size,) = _HEAD.unpack_from(buf)
        if size == 0:
            self.ended = "done"
            return None
        if len(buf) < _HEAD.size + size:
            return PENDING
        data = bytes(buf[_HEAD.size:_HEAD.size + size])
        del buf[:_HEAD.size + size]
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            self.ended = "an unreadable frame"
            return None

    def close(self) -> None:
        """Stop the copy (when it has not finished) and reap it."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._mark.close()
        if self.ended != "done":
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def __enter__(self) -> "Forked":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
