"""HTTP transport for the probe: plain GETs for detection and one streaming POST
per request, timed with a monotonic clock per line.

stdlib `http.client` keeps startup light and gives direct control of the socket:
the socket timeout bounds every read, so a server that stalls mid-stream ends in a
"stalled" sample, never a hang; a watchdog (hosts/deadline.py) holds the wait for the
headers and the whole request to their limits even when bytes trickle in one a second. Open connections are registered so Ctrl-C (or the
probe's deadline) can shut them and unblock the reading threads at once.
"""
from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

from llmdoctor import __version__
from llmdoctor.hosts.deadline import Deadline
from llmdoctor.knowledge.probe.result import CONNECT_ERROR, HTTP_ERROR, INTERRUPTED, OK, STALLED, TIMEOUT, StreamSample
from llmdoctor.knowledge.probe.streams import StreamAccumulator, error_message
from llmdoctor.knowledge.probe.limits import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, REQUEST_TIMEOUT_S

USER_AGENT = f"llmdoctor-probe/{__version__}"
MAX_LINE = 1 << 20
MAX_ERROR_BODY = 64 * 1024
WATCHDOG_GRACE_S = 0.25


class ProbeError(Exception):
    """The probe cannot run against this URL; str() is the reason for the user."""


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    u = urlsplit(url if "://" in url else f"http://{url}")
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ProbeError(f"not an http(s) URL: {url!r}")
    cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    return cls(u.hostname, u.port, timeout=timeout), u.path.rstrip("/")


@dataclass(frozen=True)
class GetResult:
    status: int
    body: bytes
    headers: dict[str, str]
    elapsed_s: float

    def json(self) -> Any:
        return json.loads(self.body)


def get(url: str, path: str, timeout: float) -> GetResult:
    """GET url+path within `timeout` in all (connect, headers, body); raises TimeoutError
    past it, OSError/http.client errors on other transport failures."""
    return _call("GET", url, path, None, {"Accept": "*/*"}, timeout)


def post_json(url: str, path: str, body: dict[str, Any], timeout: float) -> GetResult:
    """POST a small JSON body (llama-server's /tokenize) within `timeout`; errors as for get()."""
    return _call("POST", url, path, json.dumps(body).encode(), {"Content-Type": "application/json"}, timeout)


def _call(method: str, url: str, path: str, body: bytes | None, headers: dict[str, str], timeout: float) -> GetResult:
    conn, prefix = _connection(url, timeout)
    start = time.monotonic()
    deadline = Deadline(timeout)
    try:
        conn.connect()
        deadline.watch(conn.sock)
        try:
            conn.request(method, prefix + path, body, headers={"User-Agent": USER_AGENT, **headers})
            resp = conn.getresponse()
            data = resp.read(4 * 1024 * 1024)
        except (OSError, http.client.HTTPException):
            if deadline.expired:
                raise TimeoutError(f"no complete answer within {timeout:g} s") from None
            raise
        if deadline.expired:
            raise TimeoutError(f"no complete answer within {timeout:g} s")
        return GetResult(resp.status, data, {k.lower(): v for k, v in resp.getheaders()},
                         time.monotonic() - start)
    finally:
        deadline.cancel()
        conn.close()


class Interrupt:
    """Shared stop switch: set on Ctrl-C or deadline; closes every open stream."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()

    def is_set(self) -> bool:
        return self.event.is_set()

    def set(self) -> None:
        self.event.set()
        with self._lock:
            socks = list(self._open)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)

    def untrack(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._open.discard(sock)


@dataclass
class StreamRequest:
    id: str
    scenario: str
    url: str
    path: str
    body: dict[str, Any]
    wire: str                            # streams.OLLAMA | streams.OPENAI
    timeout_s: float = REQUEST_TIMEOUT_S       # whole request
    read_timeout_s: float = READ_TIMEOUT_S     # silence between two lines
    first_byte_timeout_s: float | None = None  # wait for the answer (default: read_timeout_s)
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    on_chunk: Callable[[str, int], None] | None = field(default=None, repr=False)
    run: int = 0                               # the repetition of its scenario (copied to the sample)


def stream(req: StreamRequest, t0: float, stop: Interrupt,
           release: threading.Barrier | None = None) -> StreamSample:
    """Send one streaming request and time every line. Never raises for transport
    or server failures: they become the sample's status and error."""
    acc = StreamAccumulator(req.wire, req.id, req.scenario)
    try:
        conn, prefix = _connection(req.url, req.connect_timeout_s)
    except ProbeError as e:
        return acc.sample(CONNECT_ERROR, str(e), None)
    sock = None
    try:
        try:
            conn.connect()  # before the release, so a pair starts as one
        except OSError as e:
            return acc.sample(CONNECT_ERROR, f"cannot connect: {e}", None)
        # Keep the socket: for a "Connection: close" answer http.client hands it to
        # the response and sets conn.sock to None, but timeouts must still apply.
        sock = conn.sock
        stop.track(sock)
        if release is not None:
            try:
                release.wait(timeout=req.connect_timeout_s)
            except threading.BrokenBarrierError:
                return acc.sample(INTERRUPTED, "the other requests of this scenario could not start", None)
        if stop.is_set():
            return acc.sample(INTERRUPTED, "stopped before sending", None)
        body = json.dumps(req.body).encode()
        # The marker a server's log can show: the User-Agent (and vLLM's request id, taken from
        # X-Request-Id); the prompt itself starts with "[llmdoctor probe ...]" (prompts.marker).
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
                   "Accept": "application/x-ndjson, text/event-stream", "X-Request-Id": f"llmdoctor-probe-{req.id}-{id(req):x}"}
        sent = time.monotonic()
        acc.sent_s = sent - t0
        deadline = sent + req.timeout_s
        first_wait = min(req.first_byte_timeout_s or req.read_timeout_s, req.timeout_s)
        # The backstop against trickling bytes; a little grace lets the loop's own checks
        # and the probe's deadline (which stops every stream) answer first when they can.
        watchdog = Deadline(req.timeout_s + WATCHDOG_GRACE_S)
        watchdog.watch(sock, at=sent + first_wait + WATCHDOG_GRACE_S)  # the status line and headers
        try:
            sock.settimeout(max(0.05, first_wait))
            conn.request("POST", prefix + req.path, body, headers)
            resp = conn.getresponse()
        except (socket.timeout, TimeoutError):
            return acc.sample(TIMEOUT, f"no response within {first_wait:.0f} s", None)
        except (OSError, http.client.HTTPException) as e:
            if stop.is_set():
                return acc.sample(INTERRUPTED, "stopped", None)
            if watchdog.expired:
                return acc.sample(TIMEOUT, f"no complete response headers within {first_wait:.0f} s", None)
            return acc.sample(CONNECT_ERROR, f"request failed: {type(e).__name__}: {e}", None)
        finally:
            watchdog.cancel()
        if watchdog.expired:
            return acc.sample(TIMEOUT, f"no complete response headers within {first_wait:.0f} s", None)
        watchdog.watch(sock)  # from here on, the whole request's limit
        try:
            return _read_stream(req, acc, resp, sock, sent, deadline, stop, watchdog)
        finally:
            watchdog.cancel()
    finally:
        stop.untrack(sock)
        conn.close()
        if sock is not None:
            sock.close()


def _read_stream(req: StreamRequest, acc: StreamAccumulator, resp, sock, sent: float, deadline: float,
                 stop: Interrupt, watchdog: Deadline) -> StreamSample:
    """The answer after its headers, line by line, until done, EOF or a limit."""
    over = f"still streaming after the {req.timeout_s:.0f} s request limit"
    if resp.status != 200:
        try:
            raw = resp.read(MAX_ERROR_BODY)
        except (OSError, http.client.HTTPException):
            raw = b""
        acc.end = time.monotonic() - sent
        return acc.sample(HTTP_ERROR, f"HTTP {resp.status} {resp.reason}: {error_message(raw)}", resp.status)
    while not acc.done:
        now = time.monotonic()
        if stop.is_set():
            return acc.sample(INTERRUPTED, "stopped by Ctrl-C or the probe deadline")
        if now >= deadline:
            return acc.sample(TIMEOUT, over)
        wait = req.read_timeout_s if acc.ttfb is not None else (req.first_byte_timeout_s or req.read_timeout_s)
        sock.settimeout(max(0.05, min(wait, deadline - now)))
        try:
            line = resp.readline(MAX_LINE)
        except (socket.timeout, TimeoutError):
            if stop.is_set():
                return acc.sample(INTERRUPTED, "stopped by Ctrl-C or the probe deadline")
            if watchdog.expired:
                return acc.sample(TIMEOUT, over)
            silent = time.monotonic() - now
            if acc.ttfb is None:
                return acc.sample(TIMEOUT, f"no data for {silent:.1f} s after the headers")
            return acc.sample(STALLED, f"stream went silent for {silent:.1f} s after {len(acc.chunks)} chunks")
        except (OSError, http.client.HTTPException) as e:
            if stop.is_set():
                return acc.sample(INTERRUPTED, "stopped by Ctrl-C or the probe deadline")
            if watchdog.expired:
                return acc.sample(TIMEOUT, over)
            return acc.sample(STALLED, f"connection broke mid-stream: {type(e).__name__}: {e}")
        if watchdog.expired:
            return acc.sample(TIMEOUT, over)
        if not line:
            break  # EOF (or our own shutdown on Ctrl-C)
        before = len(acc.chunks)
        acc.feed(line, time.monotonic() - sent)
        if req.on_chunk is not None and len(acc.chunks) != before:
            req.on_chunk(req.id, len(acc.chunks))
    if not acc.done and stop.is_set():
        return acc.sample(INTERRUPTED, "stopped by Ctrl-C or the probe deadline")
    if watchdog.expired:
        return acc.sample(TIMEOUT, over)
    return acc.sample(OK)
