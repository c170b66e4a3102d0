"""The booted-systemd fixture itself: it boots, runs commands, and always cleans up."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.nspawn import ContainerHost, booted_container, skip_reason

pytestmark = [pytest.mark.real, pytest.mark.root]

UNIT = "[Unit]\nDescription=harmless\n[Service]\nExecStart=/bin/sleep infinity\n"


def _leftovers(machine: str, workdir: Path) -> list[str]:
    found = []
    with open("/proc/self/mountinfo") as f:
        found += [line.split()[4] for line in f if str(workdir) in line.split()[4]]
    for root in ("/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"):
        if Path(root, f"llmdoctor-{machine}").exists():
            found.append(f"{root}/llmdoctor-{machine}")
    if Path(f"/run/systemd/nspawn/propagate/{machine}").exists():
        found.append("propagate dir")
    if workdir.exists():
        found.append(str(workdir))
    return found


@pytest.fixture()
def _needs_nspawn():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)


def test_skip_reason_names_what_is_missing(monkeypatch):
    import tests.support.nspawn as nspawn

    monkeypatch.setattr(nspawn.os, "geteuid", lambda: 1000)
    assert "root" in nspawn.skip_reason()
    monkeypatch.setattr(nspawn.os, "geteuid", lambda: 0)
    monkeypatch.setattr(nspawn.shutil, "which", lambda tool: None if tool == "systemd-nspawn" else "/bin/x")
    assert "systemd-nspawn not installed" in nspawn.skip_reason()
    with pytest.raises(nspawn.ContainerError, match="systemd-nspawn not installed"):
        with nspawn.booted_container("never"):
            pass


@pytest.mark.usefixtures("_needs_nspawn")
def test_boots_runs_and_cleans_up():
    with booted_container("fixture", {"etc/systemd/system/harmless.service": UNIT},
                          enable=["harmless.service"]) as c:
        assert c.run(["systemctl", "is-active", "harmless.service"]).stdout.strip() == "active"
        # The host writes into the container's / and the container sees it.
        c.write("/etc/llmdoctor-test.txt", "hello\n")
        assert c.run(["cat", "/etc/llmdoctor-test.txt"]).stdout == "hello\n"
        # Nothing leaks to the host's /.
        assert not Path("/etc/llmdoctor-test.txt").exists()
        host = ContainerHost(c)
        pid = int(host.run(["systemctl", "show", "-p", "MainPID", "--value", "harmless"]).stdout)
        assert pid > 1
        assert b"PATH=" in host.read(f"/proc/{pid}/environ")
        assert "harmless.service" in host.listdir("/etc/systemd/system")
        machine, workdir, nspawn_pid = c.name, c.workdir, c.nspawn_pid
    assert _leftovers(machine, workdir) == []
    assert not os.path.exists(f"/proc/{nspawn_pid}/cmdline") or b"nspawn" not in Path(
        f"/proc/{nspawn_pid}/cmdline").read_bytes()


@pytest.mark.usefixtures("_needs_nspawn")
def test_teardown_runs_when_the_test_fails_and_two_containers_coexist():
    seen = {}
    with pytest.raises(RuntimeError, match="boom"):
        with booted_container("outer") as a:
            with booted_container("inner") as b:
                seen = {a.name: a.workdir, b.name: b.workdir}
                assert a.leader != b.leader
                a.write("/etc/which", "a")
                assert a.run(["cat", "/etc/which"]).stdout == "a"
                assert b.run(["cat", "/etc/which"]).returncode != 0
                assert b.run(["systemctl", "is-system-running"]).stdout.strip() in ("running", "degraded")
                raise RuntimeError("boom")
    assert len(seen) == 2
    for machine, workdir in seen.items():
        assert _leftovers(machine, workdir) == []


@pytest.mark.usefixtures("_needs_nspawn")
def test_a_killed_test_run_leaves_nothing_behind(tmp_path):
    """SIGKILL of the test process: nspawn powers off (parent-death signal) and the next
    container removes the orphaned mounts, cgroups and work directory."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "orphan.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from tests.support.nspawn import booted_container\n"
        "with booted_container('orphan') as c:\n"
        "    print(c.name, c.workdir, c.nspawn_pid, flush=True)\n"
        "    time.sleep(120)\n")
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        machine, workdir, nspawn_pid = p.stdout.readline().split()
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(10)
    deadline = time.monotonic() + 20
    while os.path.exists(f"/proc/{nspawn_pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{nspawn_pid}")
    # the mounts are left over until the next container (of any test run) cleans up
    with booted_container("next"):
        pass
    assert _leftovers(machine, Path(workdir)) == []
