"""The transaction's file handling under a root prefix (no systemd needed), and its
failure paths with a scripted command runner. The real-systemd path is in
test_apply_nspawn.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.hosts.base import CommandResult
from llmdoctor.app.tune import dropin
from llmdoctor.knowledge.systemd.environ import parse_proc_environ
from llmdoctor.app.tune.apply import KEEP_BACKUPS, ApplyError, Transaction, parse_show_environment

VALUES = {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_MAX_QUEUE": "16"}
CONTENT = dropin.render(VALUES)


def txn(root: Path, runner=None, live=False, **kw) -> Transaction:
    return Transaction("ollama.service", root, runner, live=live, **kw)


def test_files_only_apply_is_idempotent_and_rolls_back(tmp_path):
    t = txn(tmp_path)
    first = t.apply(CONTENT, VALUES)
    assert first.ok and first.changed
    path = dropin.dropin_path(tmp_path, "ollama.service")
    assert path.read_text() == CONTENT and oct(path.stat().st_mode & 0o777) == "0o644"
    assert not [p for p in path.parent.iterdir() if "tmp" in p.name]  # the temporary file was renamed
    again = t.apply(CONTENT, VALUES)
    assert again.ok and not again.changed and "nothing to change" in again.message
    changed = dropin.render({**VALUES, "OLLAMA_NUM_PARALLEL": "6"})
    assert t.apply(changed, {**VALUES, "OLLAMA_NUM_PARALLEL": "6"}).changed
    assert t.rollback().ok and path.read_text() == CONTENT  # back to the first version
    assert t.rollback().ok and not path.exists()  # back to nothing
    assert "nothing to roll back" in t.rollback().message


def test_backup_manifest_and_pruning(tmp_path):
    t = txn(tmp_path, clock=iter(range(10**6, 10**6 + 100)).__next__)
    for n in range(KEEP_BACKUPS + 3):
        vals = {"OLLAMA_NUM_PARALLEL": str(n + 1)}
        t.apply(dropin.render(vals), vals)
    backups = t.backups()
    assert len(backups) == KEEP_BACKUPS
    m = json.loads((backups[0] / "manifest.json").read_text())
    assert m["unit"] == "ollama.service" and m["existed"] is True
    assert m["path"] == "/etc/systemd/system/ollama.service.d/zz-llmdoctor.conf"


def test_refuses_a_file_it_did_not_write(tmp_path):
    path = dropin.dropin_path(tmp_path, "ollama.service")
    path.parent.mkdir(parents=True)
    path.write_text("[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=9\n")
    with pytest.raises(ApplyError, match="not written by llmdoctor"):
        txn(tmp_path).apply(CONTENT, VALUES)
    assert path.read_text() == "[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=9\n"


def test_refuses_when_a_later_file_would_win(tmp_path):
    d = tmp_path / "etc/systemd/system/ollama.service.d"
    d.mkdir(parents=True)
    (d / "zzz-site.conf").write_text('[Service]\nEnvironment="OLLAMA_MAX_QUEUE=100"\n')
    with pytest.raises(ApplyError, match="zzz-site.conf sets OLLAMA_MAX_QUEUE=100"):
        txn(tmp_path).apply(CONTENT, VALUES)
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


class ScriptedSystemd:
    """Answers the commands the transaction runs; what each returns is set per test."""

    def __init__(self, verify_rc=(0, 0), restart_rc=0):
        self.calls: list[list[str]] = []
        self.verify = list(verify_rc)
        self.restart_rc = restart_rc
        self.pid = 100

    def run(self, argv, timeout=10.0):
        self.calls.append(list(argv))
        if argv[:2] == ["systemd-analyze", "verify"]:
            rc = self.verify.pop(0) if self.verify else 0
            return CommandResult(tuple(argv), rc, "", "ollama.service: bad setting" if rc else "")
        if argv[1:3] == ["show", "-p"] and argv[3] == "MainPID":
            return CommandResult(tuple(argv), 0, f"{self.pid}\n")
        if argv[1:3] == ["show", "-p"]:
            return CommandResult(tuple(argv), 0, "Environment=PATH=/usr/bin\n")
        if argv[1] == "restart":
            self.pid += 1
            return CommandResult(tuple(argv), self.restart_rc, "", "Job failed" if self.restart_rc else "")
        if argv[1] == "is-active":
            return CommandResult(tuple(argv), 0, "active\n")
        return CommandResult(tuple(argv), 0, "")

    def read(self, path, limit=0):
        raise FileNotFoundError(path)


def with_unit(root: Path) -> Path:
    unit = root / "lib/systemd/system/ollama.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/ollama serve\n")
    return root


def test_live_apply_needs_the_unit(tmp_path):
    with pytest.raises(ApplyError, match="no ollama.service unit file"):
        txn(tmp_path, ScriptedSystemd(), live=True).apply(CONTENT, VALUES)
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_verify_failure_restores_without_reloading(tmp_path):
    with_unit(tmp_path)
    sd = ScriptedSystemd(verify_rc=(0, 1))
    out = txn(tmp_path, sd, live=True, ready_timeout=1).apply(CONTENT, VALUES)
    assert not out.ok and out.rolled_back and "systemd-analyze verify rejected" in out.message
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()
    assert ["systemctl", "daemon-reload"] not in sd.calls[:sd.calls.index(["systemd-analyze", "verify", "--", "ollama.service"], 1) + 1]


def test_values_missing_from_systemd_restore_and_restart(tmp_path):
    with_unit(tmp_path)
    sd = ScriptedSystemd()
    out = txn(tmp_path, sd, live=True, ready_timeout=1).apply(CONTENT, VALUES)
    assert not out.ok and out.rolled_back
    failed = [s for s in out.steps if not s.ok]
    assert failed[0].name == "systemctl show -p Environment" and "OLLAMA_NUM_PARALLEL=4" in failed[0].detail
    assert sd.calls[-4:-2] == [["systemctl", "daemon-reload"], ["systemctl", "restart", "--", "ollama.service"]]
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_parsers_for_what_systemd_and_proc_say():
    assert parse_show_environment('Environment=PATH=/usr/bin "OLLAMA_ORIGINS=a b" OLLAMA_NUM_PARALLEL=4\n') == {
        "PATH": "/usr/bin", "OLLAMA_ORIGINS": "a b", "OLLAMA_NUM_PARALLEL": "4"}
    assert parse_show_environment("Environment=\n") == {}
    assert parse_proc_environ(b"A=1\0B=x=y\0\0junk\0") == {"A": "1", "B": "x=y"}


def test_rollback_takes_the_backup_of_its_own_unit(tmp_path):
    """Backups of every unit share one directory: rolling back one unit must not
    restore (or remove) its drop-in from another unit's newer backup."""
    clock = iter(range(10**6, 10**6 + 100)).__next__
    a = Transaction("ollama.service", tmp_path, None, live=False, clock=clock)
    b = Transaction("ollama-big.service", tmp_path, None, live=False, clock=clock)
    changed = {**VALUES, "OLLAMA_NUM_PARALLEL": "6"}
    assert a.apply(CONTENT, VALUES).changed and a.apply(dropin.render(changed), changed).changed
    assert b.apply(CONTENT, VALUES).changed  # the newest backup is b's
    assert a.rollback().ok and a.path.read_text() == CONTENT  # a's previous version, not b's "nothing"
    assert b.path.read_text() == CONTENT  # b untouched
    assert b.rollback().ok and not b.path.exists()
    assert a.rollback().ok and not a.path.exists()
    assert "nothing to roll back" in b.rollback().message


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    import os

    from llmdoctor.hosts import system_files  # (what tune's apply writes the drop-in with)

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    path = dropin.dropin_path(tmp_path, "ollama.service")
    with pytest.raises(OSError):
        system_files.replace(path, CONTENT)
    assert list(path.parent.iterdir()) == []


def test_ctrl_c_while_it_waits_for_the_service_restores_the_previous_state(tmp_path):
    """Ctrl-C while --apply waits for the restarted service (is-active): the drop-in goes back to what
    it was, systemd reloads and restarts the old state, and the outcome says each step."""
    from llmdoctor.app.tune.apply import ApplyInterrupted

    class Impatient(ScriptedSystemd):
        def __init__(self):
            super().__init__()
            self.waited = False

        def run(self, argv, timeout=10.0):
            if argv[1:2] == ["is-active"] and not self.waited:
                self.waited = True
                raise KeyboardInterrupt
            if argv[1:3] == ["show", "-p"] and argv[3] != "MainPID":  # systemd loaded the new values
                self.calls.append(list(argv))
                return CommandResult(tuple(argv), 0, "Environment=" + " ".join(f"{k}={v}" for k, v in VALUES.items()))
            return super().run(argv, timeout)

    with_unit(tmp_path)
    sd = Impatient()
    with pytest.raises(ApplyInterrupted) as e:
        txn(tmp_path, sd, live=True, ready_timeout=5).apply(CONTENT, VALUES)
    out = e.value.outcome
    assert not out.ok and out.rolled_back and "interrupted (Ctrl-C)" in out.message
    assert "previous configuration was restored" in out.message
    assert [s.name for s in out.steps if not s.ok] == ["interrupted"]
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()  # there was none before
    assert sd.calls.count(["systemctl", "restart", "--", "ollama.service"]) == 2  # the new, then the old
