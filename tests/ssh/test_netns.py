"""Hosts reached by address: sshd inside a network namespace of the test's own making, and
an IPv6 literal target.

The namespace has its own loopback, so an HTTP server on ITS 127.0.0.1 is reachable only
through the SSH tunnel; this host's loopback cannot see it.
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time

import pytest

from llmdoctor.hosts.base import HostUnreachable
from llmdoctor.hosts.ssh import SSHHost
from tests.support import sshd as sshd_support

pytestmark = [pytest.mark.real, pytest.mark.root]


@pytest.fixture(scope="module")
def netns():
    reason = sshd_support.skip_reason(netns=True)
    if reason:
        pytest.skip(reason)
    with sshd_support.namespace_or_skip() as ns:
        yield ns


@contextlib.contextmanager
def http_server_in(ns, port: int):
    proc = subprocess.Popen(
        ["ip", "netns", "exec", ns.name, sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not ns.exec(["ss", "-Hltn", f"sport = :{port}"]).stdout.strip():
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(5)


def test_second_host_by_address_and_its_own_loopback(netns):
    with sshd_support.running_sshd(address=netns.ns_address, netns=netns.name) as server:
        cfg = server.client_config(aliases=("nshost",), name="cfg_ns")
        target = f"{server.user}@{netns.ns_address}:{server.port}"
        with SSHHost(target, ssh_config=cfg, connect_timeout=5) as h:
            assert h.name == target
            addrs = h.run(["ip", "-4", "-o", "addr"]).stdout
            assert netns.ns_address in addrs and netns.host_address not in addrs
            assert h.read("/proc/net/dev", 65536).count(b"\n") <= 4  # lo + veth only
            with http_server_in(netns, 8765):
                r = h.http("GET", 8765, "/")
                assert r.status == 200 and b"Directory listing" in r.body
            assert server.accepted_connections() == 1


def test_host_that_goes_away_midway_fails_with_one_line(netns):
    with sshd_support.running_sshd(address=netns.ns_address, netns=netns.name) as server:
        cfg = server.client_config(aliases=("nshost",), name="cfg_ns2")
        h = SSHHost(f"{server.user}@{netns.ns_address}:{server.port}", ssh_config=cfg, connect_timeout=2)
        h.connect()
        assert h.run(["true"]).ok
        server.stop()  # no new connections
        subprocess.run(h._base("-O", "exit", "--", h.target.host), capture_output=True, timeout=5)  # master gone
        t0 = time.monotonic()
        with pytest.raises(HostUnreachable, match="connection refused") as info:
            h.run(["true"], timeout=5)
        assert "\n" not in str(info.value)
        assert time.monotonic() - t0 < 5
        h.close()


def test_ipv6_literal_target():
    reason = sshd_support.skip_reason()
    if reason:
        pytest.skip(reason)
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with sshd_support.running_sshd(address="::1") as server:
        cfg = server.client_config(aliases=("v6host",), name="cfg_v6")
        with SSHHost(f"{server.user}@[::1]:{server.port}", ssh_config=cfg, connect_timeout=5) as h:
            assert h.run(["echo", "$SSH_CONNECTION"]).stdout.strip() == "$SSH_CONNECTION"
            assert h.run(["sh", "-c", "echo $SSH_CONNECTION"]).stdout.startswith("::1 ")
