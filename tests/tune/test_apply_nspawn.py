"""The tuning transaction against a real systemd (PID 1) booted with systemd-nspawn.

ollama.service inside runs tests/support/fake_ollama.py, which reads its OLLAMA_*
environment as Ollama does and logs the `server config` line to the journal. The
steps run in order on one container: dry run, apply + verify, idempotency,
--rollback, then a unit that fails on restart and must be rolled back automatically.
"""
from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from llmdoctor.hosts.local import LocalHost
from llmdoctor.app.tune import dropin
from llmdoctor.app.tune import session
from llmdoctor.render import render
from llmdoctor.render.tune import TuneView
from llmdoctor.knowledge.systemd.environ import parse_proc_environ
from llmdoctor.app.tune.apply import parse_show_environment
from llmdoctor.app.tune.concurrency import two_requests_start_together
from llmdoctor.judge.sizing import Workload
from tests.support.nspawn import ContainerHost, booted_container, checkout_binds, skip_reason

pytestmark = [pytest.mark.real, pytest.mark.root]

REPO = Path(__file__).resolve().parents[2]
FAKE = REPO / "tests/support/fake_ollama.py"
SHOW = REPO / "tests/fixtures/tune/api_show_llama3.json"
OVERRIDE = b'[Service]\n# set by the operator with systemctl edit\nEnvironment="OLLAMA_NUM_PARALLEL=2"\n'
WORKLOAD = Workload(users=20, turn_seconds=12, seconds_between_turns=90)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OllamaContainerHost(ContainerHost):
    """Commands and files inside the container; HTTP over the shared loopback."""

    def __init__(self, container) -> None:
        super().__init__(container)
        self._web = LocalHost()

    def http(self, method, port, path, body=None, timeout=10.0, headers=None):
        return self._web.http(method, port, path, body, timeout, headers)

    def base_url(self, port):
        return self._web.base_url(port)


@pytest.fixture(scope="module")
def box():
    reason = skip_reason()
    if reason:
        pytest.skip(f"no booted container: {reason}")
    port = _free_port()
    unit = (
        "[Unit]\nDescription=Ollama stand-in for llmdoctor tests\n\n[Service]\n"
        f"ExecStart={sys.executable} {FAKE} --show {SHOW} --model llama3:8b --weights 4661224676\n"
        "Restart=always\nRestartSec=1\n"
        f'Environment="OLLAMA_HOST=127.0.0.1:{port}"\n\n[Install]\nWantedBy=multi-user.target\n'
    )
    files = {
        "etc/systemd/system/ollama.service": unit,
        "etc/systemd/system/ollama.service.d/override.conf": OVERRIDE,
    }
    with booted_container("tune", files, binds=checkout_binds(REPO), enable=["ollama.service"]) as c:
        host = OllamaContainerHost(c)
        _wait_for_api(host, port)
        yield c, host, port


def _wait_for_api(host, port, seconds=20.0):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if host.http("GET", port, "/api/version", None, 1.0).status == 200:
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise AssertionError("the fake Ollama did not answer in the container")


def _opts(c, port, **kw) -> session.TuneOptions:
    return session.TuneOptions(root=c.root, port=port, workload=WORKLOAD, gpu_memory=24 * 10**9,
                               ready_timeout=kw.pop("ready_timeout", 15.0), **kw)


def _service_env(c) -> dict[str, str]:
    return parse_show_environment(c.run(["systemctl", "show", "-p", "Environment", "ollama.service"]).stdout)


def _process_env(c) -> dict[str, str]:
    pid = c.run(["systemctl", "show", "-p", "MainPID", "--value", "ollama.service"]).stdout.strip()
    return parse_proc_environ(Path(f"/proc/{c.leader}/root/proc/{pid}/environ").read_bytes())


def test_dry_run_proposes_and_writes_nothing(box):
    c, host, port = box
    p = session.prepare(host, _opts(c, port))
    assert p.version == "0.32.15"
    assert p.values["OLLAMA_NUM_PARALLEL"] == "5"
    assert p.values["OLLAMA_MAX_QUEUE"] == "20"
    cur = {ch.name: ch for ch in p.proposal.changes}
    assert cur["OLLAMA_NUM_PARALLEL"].current == "2"  # what override.conf set, seen in the running server
    assert any("override.conf sets OLLAMA_NUM_PARALLEL=2" in w for w in p.wins_over)
    assert p.diff.startswith("--- /dev/null")
    assert not dropin.dropin_path(c.root, "ollama.service").exists()
    assert "Dry run: nothing was changed" in render(TuneView(p, "ollama.service", applying=False))


def test_apply_verifies_in_systemd_and_the_process(box):
    c, host, port = box
    p = session.prepare(host, _opts(c, port))
    check = lambda: two_requests_start_together(f"http://127.0.0.1:{port}", "llama3:8b")  # noqa: E731
    outcome = session.apply(p, session.transaction(host, _opts(c, port), port, concurrency_check=check))
    assert outcome.ok and outcome.changed, render(outcome)
    names = [s.name for s in outcome.steps]
    for step in ("backup", "write", "systemd-analyze verify", "daemon-reload", "restart",
                 "systemctl show -p Environment", "/api/version", "two concurrent requests"):
        assert step in names
    env = _service_env(c)
    proc = _process_env(c)
    for k, v in p.values.items():
        assert env[k] == v and proc[k] == v
    # The operator's file is untouched, byte for byte.
    assert (c.root / "etc/systemd/system/ollama.service.d/override.conf").read_bytes() == OVERRIDE
    ps = host.http("GET", port, "/api/ps", None, 5).json()
    assert ps["models"][0]["context_length"] == int(p.values["OLLAMA_CONTEXT_LENGTH"])


def test_second_run_changes_nothing(box):
    c, host, port = box
    pid = c.run(["systemctl", "show", "-p", "MainPID", "--value", "ollama.service"]).stdout.strip()
    p = session.prepare(host, _opts(c, port))
    assert p.nothing_to_change, p.diff
    assert "Nothing to change" in render(TuneView(p, "ollama.service", applying=True))
    outcome = session.apply(p, session.transaction(host, _opts(c, port), port))
    assert outcome.ok and not outcome.changed
    assert c.run(["systemctl", "show", "-p", "MainPID", "--value", "ollama.service"]).stdout.strip() == pid


def test_rollback_restores_the_previous_state(box):
    c, host, port = box
    outcome = session.transaction(host, _opts(c, port), port).rollback()
    assert outcome.ok, render(outcome)
    assert not dropin.dropin_path(c.root, "ollama.service").exists()
    assert _service_env(c)["OLLAMA_NUM_PARALLEL"] == "2"
    assert _process_env(c)["OLLAMA_NUM_PARALLEL"] == "2"
    assert c.run(["systemctl", "is-active", "ollama.service"]).stdout.strip() == "active"
    again = session.transaction(host, _opts(c, port), port).rollback()
    assert again.ok and not again.changed and "nothing to roll back" in again.message


def test_a_unit_that_fails_on_restart_is_rolled_back(box):
    c, host, port = box
    # The service refuses to start with 5 slots (think: not enough memory for them).
    c.write("etc/systemd/system/ollama.service.d/10-refuse.conf",
            '[Service]\nEnvironment="FAKE_OLLAMA_FAIL_IF=OLLAMA_NUM_PARALLEL=5"\n')
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "ollama.service"])
    _wait_for_api(host, port)
    pid_before = c.run(["systemctl", "show", "-p", "MainPID", "--value", "ollama.service"]).stdout.strip()
    p = session.prepare(host, _opts(c, port))
    assert p.values["OLLAMA_NUM_PARALLEL"] == "5"
    outcome = session.apply(p, session.transaction(host, _opts(c, port, ready_timeout=6.0), port))
    assert not outcome.ok and outcome.rolled_back, render(outcome)
    assert any(not s.ok for s in outcome.steps)
    assert not dropin.dropin_path(c.root, "ollama.service").exists()
    assert c.run(["systemctl", "is-active", "ollama.service"]).stdout.strip() == "active"
    assert _process_env(c)["OLLAMA_NUM_PARALLEL"] == "2"
    assert c.run(["systemctl", "show", "-p", "MainPID", "--value", "ollama.service"]).stdout.strip() != pid_before
    _wait_for_api(host, port)
    assert (c.root / "etc/systemd/system/ollama.service.d/override.conf").read_bytes() == OVERRIDE
    # The failed attempt left no backup behind: --rollback has nothing to undo.
    assert session.transaction(host, _opts(c, port), port).backups() == []


def test_one_slot_fails_the_concurrency_check(box):
    """One slot (p-one.conf sorts after override.conf): the second request waits for the first."""
    c, host, port = box
    c.write("etc/systemd/system/ollama.service.d/p-one.conf", '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=1"\n')
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "ollama.service"])
    _wait_for_api(host, port)
    ok, detail = two_requests_start_together(f"http://127.0.0.1:{port}", "llama3:8b")
    assert not ok and "the second waited for it (one slot)" in detail
