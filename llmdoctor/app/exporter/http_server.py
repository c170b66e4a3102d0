"""The exporter's /metrics server, sized for scrapers and safe against slow clients.

prometheus_client's start_http_server listens with a backlog of 5 (50 scrapers at once
wait up to a second for a SYN retry) and gives a half-sent request a thread for ever.
This one: a backlog of 128, a total deadline to read a request (a watchdog closes a
client that trickles bytes), and at most MAX_CONNECTIONS handled at once - a client
past the cap gets a 503 at once instead of a thread.
"""
from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from llmdoctor.hosts.deadline import Deadline

BACKLOG = 128
MAX_CONNECTIONS = 64
REQUEST_READ_S = 10.0  # whole request line and headers
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n"
        b"Connection: close\r\nRetry-After: 1\r\n\r\ntoo many connections")


class MetricsServer(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], render: Callable[[], bytes],
                 max_connections: int = MAX_CONNECTIONS, read_timeout: float = REQUEST_READ_S) -> None:
        self.render = render
        self.read_timeout = read_timeout
        self.slots = threading.BoundedSemaphore(max_connections)
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    def process_request(self, request, client_address) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _Handler(BaseHTTPRequestHandler):
    server: MetricsServer
    protocol_version = "HTTP/1.0"  # one request per connection: no idle keep-alive threads

    def setup(self) -> None:
        self.timeout = self.server.read_timeout  # per recv(); the watchdog bounds the whole read
        super().setup()
        self._deadline = Deadline(self.server.read_timeout)
        self._deadline.watch(self.connection)

    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline or not self.parse_request():
                return
        except (OSError, ValueError):
            return
        finally:
            self._deadline.cancel()
        if self._deadline.expired:
            self.close_connection = True
            return
        if self.command not in ("GET", "HEAD"):
            self.send_error(405)
            return
        path = self.path.split("?", 1)[0]
        if path not in ("/", "/metrics"):
            self.send_error(404)
            return
        try:
            body = self.server.render()
        except Exception:  # a metrics bug must be a 500, not a dropped connection
            self.send_error(500)
            return
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "GET":
            try:
                self.wfile.write(body)
            except OSError:
                pass
        self.close_connection = True

    def log_message(self, format: str, *args) -> None:  # scrapes are not news
        pass


def start(address: tuple[str, int], render: Callable[[], bytes], **kw) -> tuple[MetricsServer, threading.Thread]:
    httpd = MetricsServer(address, render, **kw)
    thread = threading.Thread(target=httpd.serve_forever, name="llmdoctor-metrics", daemon=True)
    thread.start()
    return httpd, thread
