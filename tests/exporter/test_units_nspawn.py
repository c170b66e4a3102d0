"""The packaged units under a real systemd (nspawn): the hardened exporter starts as
its own user with the journal group, serves metrics, and stops cleanly on SIGTERM;
the oneshot textfile service writes its file. Only ExecStart (this checkout's code and
interpreter) and what the hardening hides of them (a checkout or venv under /root,
/home or /tmp) are changed."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import nspawn

pytestmark = [pytest.mark.real, pytest.mark.root]

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "packaging" / "systemd"
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def _dropin(exec_start: str) -> str:
    """The test's drop-in: this checkout's interpreter and code, and only what the shipped
    hardening hides of them made visible again (read-only): ProtectHome=tmpfs instead of
    yes when they live under /root or /home, BindReadOnlyPaths= for those and for a
    checkout under /tmp (PrivateTmp=). The rest of the shipped unit is tested as it is."""
    hidden = nspawn.hidden_from_services(nspawn.checkout_binds(ROOT, python=PYTHON))
    lines = ["[Service]", "ExecStart=", f"ExecStart={exec_start}", f"Environment=PYTHONPATH={ROOT}"]
    if any(nspawn.is_under(p, ("/root", "/home", "/run/user")) for p in hidden):
        lines.append("ProtectHome=tmpfs")
    if hidden:
        lines.append("BindReadOnlyPaths=" + " ".join(hidden))
    return "\n".join(lines) + "\n"


FAKE_OLLAMA = ROOT / "tests" / "support" / "fake_ollama.py"
SHOW = ROOT / "tests" / "fixtures" / "tune" / "api_show_llama3.json"


def _exec_start(unit: Path, extra: str) -> str:
    """The packaged ExecStart with this checkout's interpreter instead of the installed script."""
    line = next(l for l in unit.read_text().splitlines() if l.startswith("ExecStart="))
    return line.removeprefix("ExecStart=").replace("/usr/local/bin/llmdoctor", f"{PYTHON} -m llmdoctor") + " " + extra


@contextlib.contextmanager
def _private_network(name: str):
    """A network namespace of the test's own (loopback only): ports 9877 and 11434 are
    then the container's alone, whatever else runs on this machine."""
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=10)
    if made.returncode != 0:
        pytest.skip(f"ip netns add: {made.stderr.strip()}")
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True, timeout=10)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)


@pytest.fixture(scope="module")
def container():
    reason = nspawn.skip_reason() or (None if shutil.which("ip") else "iproute2 (ip) is not installed")
    if reason:
        pytest.skip(reason)
    if not FAKE_OLLAMA.exists() or not SHOW.exists():
        pytest.skip("tests/support/fake_ollama.py or its /api/show fixture is missing")
    prom = "/var/lib/prometheus/node-exporter/llmdoctor.prom"
    fast = "--sample-seconds 0.2 --since 5m"
    ollama = (
        "[Unit]\nDescription=Ollama stand-in (tests/support/fake_ollama.py)\n\n[Service]\n"
        f"ExecStart={PYTHON} {FAKE_OLLAMA} --show {SHOW} --model llama3:8b --weights 4661224676\n"
        'Environment="OLLAMA_HOST=127.0.0.1:11434" "OLLAMA_NUM_PARALLEL=3"\n\n[Install]\nWantedBy=multi-user.target\n'
    )
    files = {
        "etc/systemd/system/ollama.service": ollama,
        "usr/lib/sysusers.d/llmdoctor.conf": (SYSTEMD / "llmdoctor.sysusers.conf").read_text(),
        "etc/systemd/system/llmdoctor-exporter.service": (SYSTEMD / "llmdoctor-exporter.service").read_text(),
        "etc/systemd/system/llmdoctor-exporter.service.d/test.conf":
            _dropin(_exec_start(SYSTEMD / "llmdoctor-exporter.service", fast)),
        "etc/systemd/system/llmdoctor-textfile.service": (SYSTEMD / "llmdoctor-textfile.service").read_text(),
        "etc/systemd/system/llmdoctor-textfile.timer": (SYSTEMD / "llmdoctor-textfile.timer").read_text(),
        "etc/systemd/system/llmdoctor-textfile.service.d/test.conf":
            _dropin(_exec_start(SYSTEMD / "llmdoctor-textfile.service", fast)),
    }
    binds = nspawn.checkout_binds(ROOT, python=PYTHON)
    with _private_network(f"lldexp{os.getpid()}") as ns:
        with nspawn.booted_container("exporter", files, network_namespace=ns, binds=binds,
                                     enable=["ollama.service"]) as c:
            assert c.run(["systemd-sysusers"]).returncode == 0
            yield c, prom


def _metrics(c, seconds: float = 30.0) -> str:
    """GET /metrics inside the container's network namespace (the unit listens on 9877)."""
    deadline = time.monotonic() + seconds
    body = ""
    while time.monotonic() < deadline:
        body = c.run(["curl", "-s", "--max-time", "2", "http://127.0.0.1:9877/metrics"]).stdout
        if "llmdoctor_up" in body:
            return body
        time.sleep(0.2)
    return body


def test_hardened_exporter_unit_serves_and_stops_cleanly(container):
    c, _ = container
    groups = c.run(["id", "-nG", "llmdoctor"]).stdout.split()
    assert "systemd-journal" in groups
    started = c.systemctl("start", "llmdoctor-exporter.service")
    assert started.returncode == 0, started.stderr + c.run(["journalctl", "-u", "llmdoctor-exporter", "--no-pager"]).stdout
    body = _metrics(c)
    journal = c.run(["journalctl", "-u", "llmdoctor-exporter", "--no-pager", "-n", "30"]).stdout
    assert "llmdoctor_up 1.0" in body, journal
    # the engine behind a systemd unit, its API and its effective settings
    assert 'llmdoctor_engine_info{engine="ollama",version="0.32.15"} 1.0' in body, body
    assert "llmdoctor_ollama_num_parallel 3.0" in body, body
    assert 'llmdoctor_model_memory_bytes{device="gpu",model="llama3:8b"}' in body, body
    pid = c.systemctl("show", "-p", "MainPID", "--value", "llmdoctor-exporter").stdout.strip()
    status = c.run(["cat", f"/proc/{pid}/status"]).stdout
    assert "NoNewPrivs:\t1" in status
    uid = c.run(["id", "-u", "llmdoctor"]).stdout.strip()
    assert f"Uid:\t{uid}\t" in status
    gid = c.run(["getent", "group", "systemd-journal"]).stdout.split(":")[2]
    assert gid in status.split("Groups:")[1].split("\n")[0].split()
    assert "CapEff:\t0000000000000000" in status
    # the journal was read as that user, through the group: the log scan kept its cursor
    states = c.run(["sh", "-c", "cat /var/lib/llmdoctor/*/log-state.json"]).stdout
    assert "cursor" in states and "ollama.service" in states, states + journal
    # read-only system: nothing outside the state directory is writable in its namespace
    assert c.run(["nsenter", "-t", pid, "-m", "touch", "/etc/llmdoctor-probe"]).returncode != 0
    stopped = c.systemctl("stop", "llmdoctor-exporter.service")
    assert stopped.returncode == 0
    shown = c.systemctl("show", "-p", "Result", "-p", "ExecMainStatus", "llmdoctor-exporter").stdout
    assert "Result=success" in shown and "ExecMainStatus=0" in shown, shown + journal


def test_textfile_oneshot_writes_for_node_exporter(container):
    c, prom = container
    directory = os.path.dirname(prom)
    assert c.run(["install", "-d", "-o", "root", "-g", "llmdoctor", "-m", "0775", directory]).returncode == 0
    started = c.systemctl("start", "llmdoctor-textfile.service", timeout=120)
    journal = c.run(["journalctl", "-u", "llmdoctor-textfile", "--no-pager", "-n", "30"]).stdout
    assert started.returncode == 0, started.stderr + journal
    text = c.run(["cat", prom]).stdout
    assert "llmdoctor_up 1.0" in text and 'engine="ollama"' in text, journal
    assert c.run(["ls", directory]).stdout.split() == ["llmdoctor.prom"]  # no temporaries left
    assert c.systemctl("start", "llmdoctor-textfile.timer").returncode == 0
    assert c.systemctl("is-active", "llmdoctor-textfile.timer").stdout.strip() == "active"
