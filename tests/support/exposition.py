"""Loopback HTTP servers for tests of `diagnose --prometheus`.

`serving(text_of)` serves `/metrics` from a callable (a recorded exposition, switched by the
test from one recording to the next) for a real Prometheus to scrape; `answering(handler)`
answers every request with whatever `handler(path)` gives: (status, body, delay seconds)
(a Prometheus that is slow, refuses, or answers garbage). Both bind 127.0.0.1, a port the
kernel picks, and stop with the block.
"""
from __future__ import annotations

import contextlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextlib.contextmanager
def answering(handler: Callable[[str, dict], tuple[int, bytes, float]]) -> Iterator[str]:
    """A server answering each GET with handler(path, headers) -> (status, body, delay_s); yields its URL."""

    class H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            status, body, delay = handler(self.path, dict(self.headers))
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

        def log_message(self, *args) -> None:
            pass

    server = _Server(("127.0.0.1", 0), H)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serving(text_of: Callable[[], str]) -> Iterator[str]:
    """/metrics answered with text_of() (text exposition); yields host:port."""

    def handler(path: str, headers: dict) -> tuple[int, bytes, float]:
        if path.split("?")[0] != "/metrics":
            return 404, b"not found", 0.0
        return 200, text_of().encode(), 0.0

    with answering(handler) as url:
        yield url.split("://", 1)[1]
