"""The packaged units under a real systemd (nspawn): the hardened exporter starts as
its own user with the journal group, serves metrics, and stops cleanly on SIGTERM;
the oneshot textfile service writes its file. Only ExecStart (this checkout's venv)
and how /root is hidden (the venv's Python lives under /root here) are changed."""
from __future__ import annotations

import os
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import nspawn
from tests.support.prometheus import free_port

pytestmark = [pytest.mark.real, pytest.mark.root]

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "packaging" / "systemd"
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def _python_dirs() -> list[str]:
    """Directories under /root or /home the interpreter needs (hidden by ProtectHome=)."""
    real = os.path.realpath(PYTHON)
    base = Path(sys.base_prefix)
    return sorted({str(p) for p in (base, Path(real).parent.parent) if str(p).startswith(("/root/", "/home/"))})


def _dropin(exec_start: str) -> str:
    binds = _python_dirs()
    lines = ["[Service]", "ExecStart=", f"ExecStart={exec_start}"]
    if binds:
        lines += ["ProtectHome=tmpfs", "BindReadOnlyPaths=" + " ".join(binds)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def container():
    reason = nspawn.skip_reason()
    if reason:
        pytest.skip(reason)
    port = free_port()
    prom = "/var/lib/prometheus/node-exporter/llmdoctor.prom"
    cli = f"{PYTHON} -m llmdoctor exporter"
    files = {
        "usr/lib/sysusers.d/llmdoctor.conf": (SYSTEMD / "llmdoctor.sysusers.conf").read_text(),
        "etc/systemd/system/llmdoctor-exporter.service": (SYSTEMD / "llmdoctor-exporter.service").read_text(),
        "etc/systemd/system/llmdoctor-exporter.service.d/test.conf":
            _dropin(f"{cli} --listen 127.0.0.1:{port} --interval 1s --sample-seconds 0.2 --since 5m"),
        "etc/systemd/system/llmdoctor-textfile.service": (SYSTEMD / "llmdoctor-textfile.service").read_text(),
        "etc/systemd/system/llmdoctor-textfile.timer": (SYSTEMD / "llmdoctor-textfile.timer").read_text(),
        "etc/systemd/system/llmdoctor-textfile.service.d/test.conf":
            _dropin(f"{cli} --textfile {prom} --once --interval 60s --sample-seconds 0.2 --since 5m"),
    }
    binds = [str(ROOT)] if os.stat(ROOT).st_dev != os.stat("/").st_dev else []
    with nspawn.booted_container("exporter", files, binds=binds) as c:
        yield c, port, prom


def _metrics(port: int, seconds: float = 30.0) -> bytes:
    deadline = time.monotonic() + seconds
    body = b""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                body = r.read()
            if b"llmdoctor_up" in body:
                return body
        except OSError:
            pass
        time.sleep(0.2)
    return body


def test_hardened_exporter_unit_serves_and_stops_cleanly(container):
    c, port, _ = container
    assert c.run(["systemd-sysusers"]).returncode == 0
    groups = c.run(["id", "-nG", "llmdoctor"]).stdout.split()
    assert "systemd-journal" in groups
    started = c.systemctl("start", "llmdoctor-exporter.service")
    assert started.returncode == 0, started.stderr + c.run(["journalctl", "-u", "llmdoctor-exporter", "--no-pager"]).stdout
    body = _metrics(port)
    journal = c.run(["journalctl", "-u", "llmdoctor-exporter", "--no-pager", "-n", "30"]).stdout
    assert b"llmdoctor_up 1.0" in body, journal
    pid = c.systemctl("show", "-p", "MainPID", "--value", "llmdoctor-exporter").stdout.strip()
    status = c.run(["cat", f"/proc/{pid}/status"]).stdout
    assert "NoNewPrivs:\t1" in status
    uid = c.run(["id", "-u", "llmdoctor"]).stdout.strip()
    assert f"Uid:\t{uid}\t" in status
    gid = c.run(["getent", "group", "systemd-journal"]).stdout.split(":")[2]
    assert gid in status.split("Groups:")[1].split("\n")[0].split()
    assert "CapEff:\t0000000000000000" in status
    # read-only system: the exporter's user cannot write outside its state directory
    assert c.run(["nsenter", "-t", pid, "-m", "touch", "/etc/llmdoctor-probe"]).returncode != 0
    stopped = c.systemctl("stop", "llmdoctor-exporter.service")
    assert stopped.returncode == 0
    shown = c.systemctl("show", "-p", "Result", "-p", "ExecMainStatus", "llmdoctor-exporter").stdout
    assert "Result=success" in shown and "ExecMainStatus=0" in shown, shown + journal


def test_textfile_oneshot_writes_for_node_exporter(container):
    c, _, prom = container
    assert c.run(["systemd-sysusers"]).returncode == 0
    directory = os.path.dirname(prom)
    assert c.run(["install", "-d", "-o", "root", "-g", "llmdoctor", "-m", "0775", directory]).returncode == 0
    started = c.systemctl("start", "llmdoctor-textfile.service", timeout=120)
    journal = c.run(["journalctl", "-u", "llmdoctor-textfile", "--no-pager", "-n", "30"]).stdout
    assert started.returncode == 0, started.stderr + journal
    text = c.run(["cat", prom]).stdout
    assert "llmdoctor_up 1.0" in text, journal
    assert c.run(["ls", directory]).stdout.split() == ["llmdoctor.prom"]  # no temporaries left
    assert c.systemctl("start", "llmdoctor-textfile.timer").returncode == 0
    assert c.systemctl("is-active", "llmdoctor-textfile.timer").stdout.strip() == "active"
