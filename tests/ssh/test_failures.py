"""Failures are one-line reasons, fast: refused auth, changed/unknown host key, frozen or absent
host, and host strings that must never reach ssh."""
from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from llmdoctor.hosts.base import HostUnreachable
from llmdoctor.hosts.ssh import SSHHost
from tests.support import sshd as sshd_support

pytestmark = [pytest.mark.real, pytest.mark.root]


def _fails(host: SSHHost) -> str:
    with pytest.raises(HostUnreachable) as info:
        host.connect()
    host.close()
    message = str(info.value)
    assert "\n" not in message and message.startswith(host.name + ": ")
    return message


def test_refused_authentication(sshd, tmp_path):
    stranger = tmp_path / "stranger"
    sshd_support.keygen(stranger)
    cfg = sshd.client_config(identity=stranger, name="cfg_stranger")
    assert "refused authentication" in _fails(SSHHost("testhost", ssh_config=cfg))


def test_changed_host_key_is_refused_even_with_accept_new(sshd, tmp_path):
    other = tmp_path / "other_host_key"
    other_pub = sshd_support.keygen(other)
    known = sshd.write_known_hosts(tmp_path / "known_hosts", f"[{sshd.address}]:{sshd.port} {other_pub}")
    cfg = sshd.client_config(known_hosts=known, name="cfg_changed")
    assert "changed host key" in _fails(SSHHost("testhost", ssh_config=cfg))
    # accept-new only accepts *new* keys, never a changed one
    assert "changed host key" in _fails(SSHHost("testhost", ssh_config=cfg, accept_new_host_keys=True))
    assert known.read_text().count("\n") == 1


def test_unknown_host_key_needs_the_explicit_opt_in(sshd, tmp_path):
    known = tmp_path / "empty_known_hosts"
    known.write_text("")
    cfg = sshd.client_config(known_hosts=known, name="cfg_unknown")
    assert "unknown host key" in _fails(SSHHost("testhost", ssh_config=cfg))
    assert known.read_text() == ""
    with SSHHost("testhost", ssh_config=cfg, accept_new_host_keys=True) as h:
        assert h.run(["true"]).ok
    assert f"[{sshd.address}]:{sshd.port}" in known.read_text()


def test_nothing_listening_is_unreachable_at_once(sshd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    message = _fails(SSHHost(f"{sshd.user}@127.0.0.1:{port}", connect_timeout=5))
    assert "connection refused" in message
    assert time.monotonic() - t0 < 3


def test_frozen_host_times_out_while_a_live_one_succeeds(sshd, ssh_config):
    """A host whose sshd hangs (SIGSTOP: TCP connects, no banner) costs its timeout, not the run."""
    with sshd_support.running_sshd() as frozen:
        frozen_cfg = frozen.client_config(aliases=("frozenhost",), name="cfg_frozen")
        frozen.freeze()

        def attempt(host: SSHHost):
            t0 = time.monotonic()
            try:
                host.connect()
                return host.run(["echo", "ok"]).stdout.strip(), time.monotonic() - t0
            except HostUnreachable as e:
                return str(e), time.monotonic() - t0
            finally:
                host.close()

        hosts = [SSHHost("frozenhost", ssh_config=frozen_cfg, connect_timeout=2),
                 SSHHost("testhost", ssh_config=ssh_config, connect_timeout=2)]
        t0 = time.monotonic()
        with ThreadPoolExecutor(2) as pool:
            (frozen_out, frozen_s), (live_out, live_s) = pool.map(attempt, hosts)
        total = time.monotonic() - t0
        assert live_out == "ok"
        assert frozen_out.startswith("frozenhost: timeout")
        assert live_s < frozen_s  # the live host did not wait for the frozen one
        assert frozen_s < 2 * 2 + 5 + 1  # within its own bound
        assert total < frozen_s + 1
