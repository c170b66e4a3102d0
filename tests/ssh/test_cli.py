"""`llmdoctor diagnose --host/--inventory` end to end against the loopback sshd."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
from tests.support.schema import report_doc

pytestmark = [pytest.mark.real, pytest.mark.root]


def llmdoctor(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_two_hosts_and_a_dead_one_in_json(ssh_config, sshd):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"{sshd.user}@127.0.0.1:{s.getsockname()[1]}"
    t0 = time.monotonic()
    p = llmdoctor("diagnose", "--ssh-config", ssh_config, "--sample-seconds", "0.3", "--format", "json",
                  "--host", "fleet00", "--host", dead, "--host", "fleet01")
    data = report_doc(p.stdout)
    by_target = {t["target"]: t for t in data["targets"]}
    assert set(by_target) == {"fleet00", dead, "fleet01"}
    assert by_target[dead]["engine"] == "unreachable"
    assert any("connection refused" in e for e in by_target[dead]["errors"])
    for live in ("fleet00", "fleet01"):
        assert by_target[live]["engine"] != "unreachable"
        assert "RAM" in by_target[live]["summary"]  # /proc/meminfo read over SSH
    # one host could not be diagnosed (3); a live one may be critical (2) when this machine swaps
    assert p.returncode in (2, 3)
    assert time.monotonic() - t0 < 30


def test_inventory(ssh_config, tmp_path):
    inv = tmp_path / "hosts.ini"
    inv.write_text("[llm]\nfleet02\nfleet03  # second box\n\n[llm:vars]\nansible_user=nobody\n")
    p = llmdoctor("diagnose", "--ssh-config", ssh_config, "--sample-seconds", "0.3", "--format", "json",
                  "--inventory", str(inv))
    targets = report_doc(p.stdout)["targets"]
    assert [t["target"] for t in targets] == ["fleet02", "fleet03"]
    # the loopback "hosts" run no LLM engine: could not diagnose (3), unless this machine swaps (1, 2)
    assert p.returncode in (1, 2, 3)
    assert p.returncode != 3 or all(t["status"] == "could not diagnose" for t in targets)


def test_malicious_host_is_refused_before_anything_runs():
    p = llmdoctor("diagnose", "--host", "gpu1;touch /tmp/llmdoctor-pwned", "--host", "gpu2")
    assert p.returncode == 3
    assert "invalid host" in p.stderr and p.stdout == ""
