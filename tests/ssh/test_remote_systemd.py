"""The same host state diagnosed locally and over SSH yields the same findings.

The "remote host" is a real systemd booted with systemd-nspawn inside a network
namespace of the test's own making (tests/support/nspawn.py), running its own sshd
as a systemd unit. Its state: an `ollama.service` (a stand-in process: no Ollama
binary here; only the unit and its environment matter) whose drop-in was edited
without `daemon-reload`, and an OLLAMA_ variable exported in root's ~/.bashrc.
Diagnosed once through the container directly (nsenter, `ContainerHost`) and once
through `SSHHost` to its address: the (check, cause) sets must match, and the
config checks must have fired on both.
"""
from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from llmdoctor.hosts.ssh import SSHHost
from tests.support import nspawn
from tests.support import sshd as sshd_support

pytestmark = [pytest.mark.real, pytest.mark.root]

PORT = 2222
UNIT = """\
[Unit]
Description=stand-in for an Ollama server (only the unit and its environment are diagnosed)

[Service]
Environment=OLLAMA_NUM_PARALLEL=1
Environment=OLLAMA_KEEP_ALIVE=5m
ExecStart=/bin/sleep infinity
"""
DROPIN_EDITED_AFTER_START = """\
[Service]
Environment=OLLAMA_NUM_PARALLEL=4
"""
SSHD_UNIT = """\
[Unit]
Description=sshd for the llmdoctor SSH tests

[Service]
ExecStartPre=/bin/chmod 0600 /etc/lldssh/host_ed25519
ExecStart=/usr/sbin/sshd -D -f /etc/lldssh/sshd_config -E /var/log/lldsshd.log
RuntimeDirectory=sshd
"""


def _sshd_config(address: str) -> str:
    return (
        f"ListenAddress {address}\nPort {PORT}\n"
        "HostKey /etc/lldssh/host_ed25519\nAuthorizedKeysFile /etc/lldssh/authorized_keys\n"
        "PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "UsePAM no\nStrictModes no\nAllowTcpForwarding yes\nPermitRootLogin prohibit-password\n"
        "AllowUsers root\nLogLevel VERBOSE\nPrintMotd no\n"
    )


def _unlocked_shadow() -> str | None:
    """Root's shadow entry with a locked password ('!...') replaced by '*': `UsePAM no`
    refuses locked accounts even for keys. Only the container's copy is changed."""
    try:
        lines = Path("/etc/shadow").read_text().splitlines()
    except OSError:
        return None
    out = []
    for line in lines:
        parts = line.split(":")
        if parts[0] == "root" and parts[1].startswith("!"):
            parts[1] = "*"
        out.append(":".join(parts))
    return "\n".join(out) + "\n"


def _wait_port(address: str, port: int, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((address, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"sshd in the container did not listen on {address}:{port}")


def _outcome(result) -> set[tuple[str, str]]:
    return {(f.check, f.cause.value) for f in result.report.findings}


def test_same_findings_locally_and_over_ssh(tmp_path):
    reason = sshd_support.skip_reason(netns=True) or nspawn.skip_reason()
    if reason:
        pytest.skip(reason)
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target

    host_pub = sshd_support.keygen(tmp_path / "host_ed25519")
    client_pub = sshd_support.keygen(tmp_path / "client_ed25519")
    with sshd_support.namespace_or_skip() as ns:
        files = {
            "etc/lldssh/sshd_config": _sshd_config(ns.ns_address),
            "etc/lldssh/host_ed25519": (tmp_path / "host_ed25519").read_bytes(),
            "etc/lldssh/authorized_keys": client_pub + "\n",
            "etc/systemd/system/lldsshd.service": SSHD_UNIT,
            "etc/systemd/system/ollama.service": UNIT,
            # the only line in root's shell start-up file (the machine's own one is slow)
            "root/.bashrc": "export OLLAMA_FLASH_ATTENTION=1\n",
        }
        shadow = _unlocked_shadow()
        if shadow:
            files["etc/shadow"] = shadow
        with nspawn.booted_container("lldssh", files, network_namespace=ns.name) as c:
            (c.root / "etc/shadow").chmod(0o640)
            c.systemctl("start", "lldsshd.service", "ollama.service")
            # the operator edits a drop-in and forgets daemon-reload
            c.write("/etc/systemd/system/ollama.service.d/override.conf", DROPIN_EDITED_AFTER_START)
            _wait_port(ns.ns_address, PORT)

            known = tmp_path / "known_hosts"
            known.write_text(f"[{ns.ns_address}]:{PORT} {' '.join(host_pub.split()[:2])}\n")
            cfg = tmp_path / "ssh_config"
            cfg.write_text(
                "Host *\n  BatchMode yes\n  IdentitiesOnly yes\n"
                f"  IdentityFile {tmp_path / 'client_ed25519'}\n  UserKnownHostsFile {known}\n"
                "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n"
            )
            opts = DiagnoseOptions(sample_seconds=0.5, since_seconds=3600)
            local = diagnose_target(nspawn.ContainerHost(c), opts)
            with SSHHost(f"root@{ns.ns_address}:{PORT}", ssh_config=str(cfg), connect_timeout=5) as remote_host:
                remote = diagnose_target(remote_host, opts)
                assert remote_host.connections == 1

    by_ssh, direct = _outcome(remote), _outcome(local)
    assert by_ssh == direct, (
        f"over SSH only: {sorted(by_ssh - direct)}; directly only: {sorted(direct - by_ssh)}\n"
        f"ssh unavailable: {remote.report.unavailable}\ndirect unavailable: {local.report.unavailable}"
    )
    assert {("systemd-reload-pending", "CONFIG_NOT_APPLIED"),
            ("systemd-env-outside-unit", "CONFIG_NOT_APPLIED")} <= by_ssh, remote.report
    engines = {(e.kind, e.unit) for e in remote.facts.get("engines", ())}
    assert engines == {(e.kind, e.unit) for e in local.facts.get("engines", ())}
    assert ("ollama", "ollama.service") in engines
