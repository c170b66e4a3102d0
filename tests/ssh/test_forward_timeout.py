"""A master connection that does not answer `ssh -O forward` is a HostError for the
caller (an unavailable fact), not a subprocess.TimeoutExpired traceback."""
from __future__ import annotations

import subprocess

import pytest

from llmdoctor.hosts import ssh as ssh_module
from llmdoctor.hosts.base import HostError
from llmdoctor.hosts.ssh import SSHHost


def test_hung_forward_request_is_a_host_error(monkeypatch):
    def hang(argv, **kw):
        raise subprocess.TimeoutExpired(argv, kw.get("timeout"))

    monkeypatch.setattr(ssh_module.subprocess, "run", hang)
    host = SSHHost("user@example.invalid")  # its own short control directory, removed on close
    host._connected = True  # as after a successful connect(); nothing real runs here
    try:
        with pytest.raises(HostError, match="did not answer within 10 s"):
            host.http("GET", 11434, "/api/version", timeout=2)
    finally:
        host.close()
