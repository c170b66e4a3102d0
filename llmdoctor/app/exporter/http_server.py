"""The exporter's /metrics server: one thread, event-driven, so slow clients cannot starve scrapers.

A thread per connection (prometheus_client's server, and this module's earlier one) lets
70 clients that each send one header byte a second hold every slot: real scrapes get 503
while they last. Here one thread multiplexes every socket (epoll through `selectors`):
- a connection costs a buffer, not a thread; at most `max_connections` are open;
- a request whose request line and headers have not all arrived within `read_timeout`
  is closed (a scraper sends them in one packet), and so is a response the client does
  not read within the same time;
- when the cap is reached, the oldest connection still sending its request makes room
  for the new one: a trickling or silent client can delay a scrape by one accept, never
  refuse it. Only when every open connection is being answered does a new one get 503.
The answer is the snapshot the scheduler published (a scrape never triggers collection),
rendered in the loop: it takes a millisecond.
"""
from __future__ import annotations

import errno
import selectors
import socket
import threading
import time
from typing import Callable

BACKLOG = 1024  # the kernel caps it at net.core.somaxconn
MAX_CONNECTIONS = 512  # well under the usual 1,024 open files of a service
REQUEST_READ_S = 5.0  # request line and headers, whole
MAX_HEAD = 65536  # bytes of request line and headers
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n"
        b"Connection: close\r\nRetry-After: 1\r\n\r\ntoo many connections")
SWEEP_S = 0.05  # how often deadlines are looked at
_ACCEPT_BATCH = 256  # accepts per wake-up, so answers are not held up behind a flood of connects
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            431: "Request Header Fields Too Large", 500: "Internal Server Error"}


def _response(status: int, body: bytes, head_only: bool = False, content_type: str = "text/plain") -> bytes:
    head = (f"HTTP/1.0 {status} {_REASONS[status]}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    return head if head_only else head + body


class _Conn:
    __slots__ = ("sock", "buf", "out", "deadline", "writing")

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.buf = bytearray()
        self.out = memoryview(b"")
        self.deadline = deadline
        self.writing = False


class MetricsServer:
    """serve_forever / shutdown / server_close / server_address, as socketserver's servers."""

    def __init__(self, address: tuple[str, int], render: Callable[[], bytes],
                 max_connections: int = MAX_CONNECTIONS, read_timeout: float = REQUEST_READ_S) -> None:
        self.render = render
        self.read_timeout = read_timeout
        self.max_connections = max(1, max_connections)
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(BACKLOG)
            self.socket.setblocking(False)
        except OSError:
            self.socket.close()
            raise
        self.server_address = self.socket.getsockname()
        self._conns: dict[int, _Conn] = {}  # by fd, oldest first
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._accept_paused_until = 0.0

    # -- the loop ---------------------------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.5) -> None:
        sel = self._selector
        sel.register(self.socket, selectors.EVENT_READ, "accept")
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        listening = True
        next_sweep = time.monotonic() + SWEEP_S
        try:
            while not self._stop.is_set():
                for key, events in sel.select(min(poll_interval, SWEEP_S)):
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wake":
                        self._drain_wake()
                    elif events & selectors.EVENT_WRITE:
                        self._write(key.data)
                    else:
                        self._read(key.data)
                now = time.monotonic()
                if listening and now < self._accept_paused_until:
                    sel.unregister(self.socket)
                    listening = False
                elif not listening and now >= self._accept_paused_until:
                    sel.register(self.socket, selectors.EVENT_READ, "accept")
                    listening = True
                if now >= next_sweep:
                    self._sweep(now)
                    next_sweep = now + SWEEP_S
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop serve_forever and wait for it (from another thread)."""
        self._stop.set()
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        self._stopped.wait(5)

    def server_close(self) -> None:
        for conn in list(self._conns.values()):
            self._close(conn)
        for s in (self.socket, self._wake_r, self._wake_w):
            s.close()
        self._selector.close()

    # -- connections ------------------------------------------------------------------------
    def _accept(self) -> None:
        for _ in range(_ACCEPT_BATCH):
            try:
                sock, _addr = self.socket.accept()
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    if not self._evict_oldest_reader():
                        self._accept_paused_until = time.monotonic() + SWEEP_S
                    return
                if e.errno in (errno.ECONNABORTED, errno.EPROTO):
                    continue
                raise
            sock.setblocking(False)
            if len(self._conns) >= self.max_connections and not self._evict_oldest_reader():
                try:
                    sock.send(BUSY)
                except OSError:
                    pass
                sock.close()
                continue
            conn = _Conn(sock, time.monotonic() + self.read_timeout)
            self._conns[sock.fileno()] = conn
            self._selector.register(sock, selectors.EVENT_READ, conn)

    def _evict_oldest_reader(self) -> bool:
        for conn in self._conns.values():
            if not conn.writing:
                self._close(conn)
                return True
        return False

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(8192)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        conn.buf += data
        end = _head_end(conn.buf)
        if end < 0:
            if len(conn.buf) > MAX_HEAD:
                self._answer(conn, _response(431, b"request head too large\n"))
            return
        self._answer(conn, self._respond(bytes(conn.buf[:end])))

    def _respond(self, head: bytes) -> bytes:
        parts = head.split(b"\n", 1)[0].strip().split()
        if len(parts) not in (2, 3):
            return _response(400, b"bad request\n")
        method, target = parts[0], parts[1]
        if method not in (b"GET", b"HEAD"):
            return _response(405, b"method not allowed\n")
        if target.split(b"?", 1)[0] not in (b"/", b"/metrics"):
            return _response(404, b"not found\n", method == b"HEAD")
        try:
            body = self.render()
        except Exception:  # a metrics bug must be a 500, not a dropped connection
            return _response(500, b"internal error\n")
        return _response(200, body, method == b"HEAD", CONTENT_TYPE)

    def _answer(self, conn: _Conn, response: bytes) -> None:
        conn.writing = True
        conn.buf = bytearray()
        conn.out = memoryview(response)
        conn.deadline = time.monotonic() + self.read_timeout
        self._selector.modify(conn.sock, selectors.EVENT_WRITE, conn)
        self._write(conn)

    def _write(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        conn.out = conn.out[sent:]
        if not conn.out:
            self._close(conn)

    def _sweep(self, now: float) -> None:
        for conn in [c for c in self._conns.values() if c.deadline <= now]:
            self._close(conn)

    def _close(self, conn: _Conn) -> None:
        fd = conn.sock.fileno()
        if fd >= 0 and self._conns.pop(fd, None) is not None:
            try:
                self._selector.unregister(conn.sock)
            except (KeyError, ValueError):
                pass
        conn.sock.close()

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(64):
                pass
        except OSError:
            pass


def _head_end(buf: bytearray) -> int:
    """Where the request line and headers end (after the blank line), else -1. A request line
    without a version (HTTP/0.9: `GET /metrics`) ends at its own line."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        i = buf.find(sep)
        if i >= 0:
            return i + len(sep)
    nl = buf.find(b"\n")
    if nl >= 0 and b"HTTP/" not in buf[:nl]:
        return nl + 1
    return -1


def start(address: tuple[str, int], render: Callable[[], bytes], **kw) -> tuple[MetricsServer, threading.Thread]:
    httpd = MetricsServer(address, render, **kw)
    thread = threading.Thread(target=httpd.serve_forever, name="llmdoctor-metrics", daemon=True)
    thread.start()
    return httpd, thread
