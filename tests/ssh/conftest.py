"""Session fixtures: one real loopback sshd for all SSH tests (see tests/support/sshd.py)."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support import sshd as sshd_support


@pytest.fixture(scope="session")
def sshd():
    reason = sshd_support.skip_reason()
    if reason:
        pytest.skip(reason)
    with sshd_support.running_sshd() as server:
        yield server


@pytest.fixture(scope="session")
def ssh_config(sshd):
    """Client config where aliases testhost and fleet00..fleet19 all lead to the loopback sshd."""
    return sshd.client_config(aliases=("testhost",) + tuple(f"fleet{i:02d}" for i in range(20)))


@pytest.fixture(scope="module")
def host(ssh_config):
    """One SSHHost (one connection) shared by a module's tests, as in a real run."""
    from llmdoctor.hosts.ssh import SSHHost

    h = SSHHost("testhost", ssh_config=ssh_config, connect_timeout=5)
    yield h
    h.close()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"models": []}' if self.path == "/api/ps" else b"hello " + self.path.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        self.send_response(201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def http_port():
    """A tiny HTTP server on 127.0.0.1 (the 'engine' reached through the tunnel)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
