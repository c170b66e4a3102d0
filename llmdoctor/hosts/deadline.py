"""A total deadline for one network request. A socket timeout bounds each recv(), so a
server that sends one byte a second never trips it; a watchdog timer that shuts the
socket down at the deadline does, whatever http.client is doing at the time (reading the
status line, a header, a chunk). After it fires, reads fail or end early: the caller
asks `expired` and reports a timeout, never a truncated answer."""
from __future__ import annotations

import socket
import threading
import time


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self._timer: threading.Timer | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    def remaining(self, floor: float = 0.05) -> float:
        return max(floor, self.at - time.monotonic())

    def watch(self, sock: socket.socket | None, at: float | None = None) -> None:
        """Shut `sock` down at `at` (monotonic; default: the deadline); re-arming replaces
        the previous watch."""
        self.cancel()
        if sock is None:
            return
        with self._lock:
            self._sock = sock
            delay = max(0.0, (self.at if at is None else min(at, self.at)) - time.monotonic())
            self._timer = threading.Timer(delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            sock = self._sock
            self.expired = True
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
