"""Applying a tuned drop-in as a transaction, and rolling it back.

lock -> clean up after a killed run -> back up -> write atomically (temporary file,
fsync, rename) -> `systemd-analyze verify` -> `daemon-reload` -> `restart` -> verify (`systemctl show -p Environment`, the new
process's /proc environment, `/api/version` within a timeout, optionally a
concurrency check) -> on any failure: restore, reload, restart, and say what failed.

Files are written under `root` (a path prefix: "/" on a live system, the container's
root in tests, a staging directory for packaging). Commands go through `runner`, any
object with the Host protocol's `run(argv, timeout)` and `read(path, limit)`: the
local machine, `nsenter` into a container, or SSH. `live=False` writes files only.

Crash safety: one run at a time (an flock in the state directory, hosts/tune_lock.py);
backups that count only once whole, and a clean-up at the next start of whatever a
killed run left (hosts/tune_backups.py), so `--rollback` always undoes the last tune that
took effect. Every filesystem fault is one line (ApplyError, or a failed Outcome that
says what was restored), never a traceback.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from llmdoctor.atomic import crash_point
from llmdoctor.hosts.base import CommandResult, HostError
from llmdoctor.knowledge.systemd.environ import parse_proc_environ
from llmdoctor.knowledge.systemd.show import parse_environment_property
from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit
from llmdoctor.app.tune import dropin
from llmdoctor.hosts import system_files, tune_backups as backups
from llmdoctor.hosts.tune_lock import LockHeld, StateLock
STATE_DIR = "var/lib/llmdoctor/tune"
BACKUP_DIR = f"{STATE_DIR}/backups"
LOCK_FILE = f"{STATE_DIR}/lock"
KEEP_BACKUPS = 10


class ApplyError(Exception):
    """Stopped before anything was changed; str() says why."""


def _why(e: OSError) -> str:
    """An OSError as the one line a user needs: the path and the system's reason."""
    where = f"{e.filename}: " if getattr(e, "filename", None) else ""
    return f"{where}{e.strerror or e}"


class ApplyInterrupted(KeyboardInterrupt):
    """Ctrl-C inside --apply: the previous state was put back (`outcome` says how far that went)."""

    def __init__(self, outcome: "Outcome") -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


@dataclass
class Step:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class Outcome:
    ok: bool
    changed: bool
    message: str
    steps: list[Step] = field(default_factory=list)
    rolled_back: bool = False
    backup: str | None = None

    def to_dict(self) -> dict:
        return {"ok": self.ok, "changed": self.changed, "message": self.message,
                "rolled_back": self.rolled_back, "backup": self.backup,
                "steps": [{"name": s.name, "ok": s.ok, "detail": s.detail} for s in self.steps]}


def parse_show_environment(text: str) -> dict[str, str]:
    """`systemctl show -p Environment` output -> {VAR: value}, split as the diagnosis splits it."""
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("Environment="):
            env.update(parse_environment_property(line[len("Environment="):]))
    return env


@dataclass
class Transaction:
    unit: str
    root: Path
    runner: Any  # Host protocol: run(argv, timeout), read(path, limit)
    http_get: Callable[[str, float], Any] | None = None  # (path, timeout) -> HttpResponse
    live: bool = True
    restart_timeout: float = 90.0
    ready_timeout: float = 30.0
    concurrency_check: Callable[[], tuple[bool, str]] | None = None
    clock: Callable[[], float] = time.time
    steps: list[Step] = field(default_factory=list)

    def __post_init__(self) -> None:
        try:
            self.unit = check_unit(self.unit)
        except BadUnitName as e:
            raise ApplyError(str(e)) from None
        for what, p in (("the drop-in", self.path), ("the backup directory", self.backup_root),
                        ("the lock", self.lock_path)):
            if not dropin.is_confined(self.root, p):
                raise ApplyError(f"{what} {p} resolves outside --root {self.root}; refusing to write there")

    # -- paths ------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return dropin.dropin_path(self.root, self.unit)

    @property
    def shown_path(self) -> str:
        return dropin.inside(self.root, self.path)

    @property
    def backup_root(self) -> Path:
        return Path(self.root) / BACKUP_DIR

    @property
    def lock_path(self) -> Path:
        return Path(self.root) / LOCK_FILE

    def _lock(self) -> StateLock:
        return StateLock(self.lock_path, dropin.inside(self.root, self.lock_path))

    # -- helpers ----------------------------------------------------------------------
    def _step(self, name: str, ok: bool, detail: str = "") -> bool:
        self.steps.append(Step(name, ok, detail))
        return ok

    def _run(self, argv: list[str], timeout: float = 30.0):
        try:
            return self.runner.run(argv, timeout=timeout)
        except HostError as e:
            return CommandResult(tuple(argv), 124, "", str(e))

    def _systemctl(self, *args: str, timeout: float = 30.0):
        return self._run(["systemctl", *args], timeout)

    def current_content(self) -> str | None:
        return system_files.read_text(self.path)

    def main_pid(self) -> int:
        r = self._systemctl("show", "-p", "MainPID", "--value", "--", self.unit)
        try:
            return int(r.stdout.strip() or 0)
        except ValueError:
            return 0

    def loaded_env(self) -> dict[str, str]:
        return parse_show_environment(self._systemctl("show", "-p", "Environment", "--", self.unit).stdout)

    # -- backups (hosts/tune_backups.py) -------------------------------------------------
    def backup(self, old: str | None, new: str) -> Path:
        return backups.take(self.backup_root, self.unit, self.shown_path, old, new, self.clock())

    def backups(self) -> list[Path]:
        """Backups, newest first."""
        return backups.listed(self.backup_root)

    def _restore_file(self, manifest: dict) -> None:
        saved = backups.saved_content(manifest)
        if self.current_content() == saved:
            return  # nothing changed (the write failed before its rename): nothing to write
        if saved is not None:
            system_files.replace(self.path, saved)
        else:
            system_files.remove(self.path)

    def recover(self) -> list[str]:
        """Clean up after a run that was killed (call with the lock held)."""
        return backups.clean_after_crash(self.backup_root, self.path, self.unit, self.current_content,
                                         lambda p: dropin.inside(self.root, p))

    # -- the transaction --------------------------------------------------------------
    def _locked(self):
        """The state lock, or ApplyError (held by another run, or not creatable)."""
        lock = self._lock()
        try:
            lock.__enter__()
        except LockHeld as e:
            raise ApplyError(str(e)) from None
        except OSError as e:
            raise ApplyError(f"cannot take the tuner's lock {lock.shown}: {_why(e)}; nothing was changed") from None
        return lock

    def _recover(self) -> None:
        try:
            for note in self.recover():
                self._step("clean up after an interrupted run", True, note)
        except OSError as e:
            raise ApplyError(f"cannot clean up after an interrupted run: {_why(e)}; nothing was changed") from None

    def apply(self, content: str, values: dict[str, str]) -> Outcome:
        """Install `content` as llmdoctor's drop-in and prove `values` reached the service."""
        self.steps = []
        lock = self._locked()
        try:
            self._recover()
            return self._apply(content, values)
        finally:
            lock.__exit__(None, None, None)

    def _apply(self, content: str, values: dict[str, str]) -> Outcome:
        try:
            old = self.current_content()
        except OSError as e:
            raise ApplyError(f"cannot read {self.shown_path}: {_why(e)}; nothing was changed") from None
        if old is not None and not dropin.is_ours(old):
            raise ApplyError(f"{self.shown_path} exists and was not written by llmdoctor; not touching it")
        if self.live and dropin.unit_files(self.root, self.unit)[0] is None:
            raise ApplyError(f"no {self.unit} unit file under {self.root} (looked in /etc/systemd/system, "
                             f"/lib/systemd/system, ...): is Ollama installed as a systemd service? (--unit NAME)")
        conflicts = dropin.check_precedence(self.root, self.unit, set(values)).conflicts
        if conflicts:
            raise ApplyError("another file would override llmdoctor's values: " + "; ".join(conflicts))
        if old == content:
            if not self.live:
                return Outcome(True, False, "nothing to change: the drop-in already holds these values")
            loaded = self.loaded_env()
            if all(loaded.get(k) == v for k, v in values.items()):
                return Outcome(True, False, "nothing to change: the drop-in and the running service already hold these values")
        pid_before = self.main_pid() if self.live else 0
        baseline_ok = self._verify_units("systemd-analyze verify (before)") if self.live else True
        try:
            bdir = self.backup(old, content)
        except OSError as e:
            raise ApplyError(f"cannot take a backup in {dropin.inside(self.root, self.backup_root)}: {_why(e)}; "
                             f"nothing was changed") from None
        self._step("backup", True, dropin.inside(self.root, bdir))
        crash_point()
        try:
            return self._install(bdir, content, values, pid_before, baseline_ok)
        except KeyboardInterrupt:  # Ctrl-C while it writes, restarts or waits: put the old state back
            self._step("interrupted", False, "Ctrl-C before the new values were verified")
            raise ApplyInterrupted(self._fail(bdir, "interrupted (Ctrl-C) before the new values were verified",
                                              reload=self.live)) from None

    def _install(self, bdir: Path, content: str, values: dict[str, str], pid_before: int,
                 baseline_ok: bool) -> Outcome:
        """Write, reload, restart and verify; a failure restores the backup in `bdir`."""
        try:
            system_files.replace(self.path, content)
        except OSError as e:
            self._step("write", False, f"{self.shown_path}: {e.strerror or e}")
            return self._fail(bdir, f"could not write the drop-in ({e.strerror or e})", reload=False)
        self._step("write", True, f"{self.shown_path} (temporary file, fsync, rename)")
        if not self.live:
            self._prune_quietly()
            return Outcome(True, True, f"wrote {self.shown_path} under {self.root} (no service restarted)",
                           self.steps, backup=str(bdir))
        if not self._verify_units() and baseline_ok:
            return self._fail(bdir, "systemd-analyze verify rejected the unit with the new drop-in", reload=False)
        if not self._reload_restart():
            return self._fail(bdir, "the service did not restart with the new drop-in")
        problem = self._verify_live(values, pid_before)
        if problem:
            return self._fail(bdir, problem)
        self._prune_quietly()
        return Outcome(True, True, f"applied: {self.unit} runs with " +
                       ", ".join(f"{k}={v}" for k, v in sorted(values.items())), self.steps, backup=str(bdir))

    def _prune_quietly(self) -> None:
        """Keep the newest KEEP_BACKUPS; a fault here costs disk space, not correctness."""
        try:
            backups.prune(self.backup_root, KEEP_BACKUPS)
        except OSError as e:
            self._step("prune old backups", False, _why(e))

    def _verify_units(self, label: str = "systemd-analyze verify") -> bool:
        r = self._run(["systemd-analyze", "verify", "--", self.unit], timeout=60)
        detail = (r.stderr or r.stdout).strip().splitlines()
        return self._step(label, r.returncode == 0, detail[-1] if detail else "")

    def _reload_restart(self) -> bool:
        r = self._systemctl("daemon-reload", timeout=60)
        if not self._step("daemon-reload", r.returncode == 0, r.stderr.strip()):
            return False
        r = self._systemctl("restart", "--", self.unit, timeout=self.restart_timeout)
        return self._step("restart", r.returncode == 0, r.stderr.strip())

    def _wait_for_new_process(self, pid_before: int) -> int:
        deadline = time.monotonic() + self.ready_timeout
        while True:
            state = self._systemctl("is-active", "--", self.unit).stdout.strip()
            pid = self.main_pid()
            if state == "active" and pid and pid != pid_before:
                return pid
            if time.monotonic() >= deadline:
                return 0
            time.sleep(0.2)

    def _verify_live(self, values: dict[str, str], pid_before: int) -> str | None:
        loaded = self.loaded_env()
        missing = {k: v for k, v in values.items() if loaded.get(k) != v}
        if not self._step("systemctl show -p Environment", not missing,
                          "holds the new values" if not missing else
                          "missing " + ", ".join(f"{k}={v}" for k, v in missing.items())):
            return "systemd did not load the new values"
        pid = self._wait_for_new_process(pid_before)
        if not self._step("new process", bool(pid), f"MainPID {pid}" if pid else
                          f"{self.unit} did not become active with a new main process "
                          f"within {self.ready_timeout:g} s"):
            return "the service did not come back up"
        try:
            environ = parse_proc_environ(self.runner.read(f"/proc/{pid}/environ", 1 << 20))
        except (OSError, HostError) as e:
            self._step(f"/proc/{pid}/environ", False, str(e))
            return "could not read the new process's environment"
        missing = {k: v for k, v in values.items() if environ.get(k) != v}
        if not self._step(f"/proc/{pid}/environ", not missing, "holds the new values" if not missing else
                          "missing " + ", ".join(f"{k}={v}" for k, v in missing.items())):
            return "the new process does not run with the new values"
        if self.http_get is not None:
            answer = self._wait_for_api()
            if not self._step("/api/version", answer is not None,
                              answer or f"no answer within {self.ready_timeout:g} s"):
                return "Ollama did not answer after the restart"
        if self.concurrency_check is not None:
            ok, detail = self.concurrency_check()
            if not self._step("two concurrent requests", ok, detail):
                return "two concurrent requests did not start together"
        return None

    def _wait_for_api(self) -> str | None:
        deadline = time.monotonic() + self.ready_timeout
        while True:
            try:
                r = self.http_get("/api/version", 2.0)
                if r.status == 200:
                    return r.text.strip()
            except (HostError, OSError):
                pass
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.3)

    def _fail(self, bdir: Path, why: str, reload: bool = True) -> Outcome:
        manifest = backups.manifest_of(bdir)
        try:
            self._restore_file(manifest)
        except OSError as e:
            self._step("restore", False, f"{self.shown_path}: {_why(e)}")
            return Outcome(False, True, f"{why}; could not restore {self.shown_path} ({_why(e)}): the backup is "
                           f"kept in {dropin.inside(self.root, bdir)}, run --rollback once that is fixed",
                           self.steps, backup=str(bdir))
        self._step("restore", True, f"{self.shown_path} restored from {dropin.inside(self.root, bdir)}")
        if self.live:
            self._systemctl("daemon-reload", timeout=60)
            r = self._systemctl("restart", "--", self.unit, timeout=self.restart_timeout)
            self._step("restart (previous configuration)", r.returncode == 0, r.stderr.strip())
            pid = self._wait_for_new_process(0)
            self._step("service running again", bool(pid), f"MainPID {pid}" if pid else
                       f"{self.unit} is not active after the restore - look at journalctl -u {self.unit}")
            if pid and self.http_get is not None:
                answer = self._wait_for_api()
                self._step("/api/version (previous configuration)", answer is not None, answer or "no answer")
        # The backup has served: keep --rollback pointing at the state before the last success.
        self._discard_quietly(bdir)
        return Outcome(False, False, f"{why}; the previous configuration was restored", self.steps, rolled_back=True)

    def _discard_quietly(self, bdir: Path) -> None:
        """Drop a used backup; if the filesystem refuses, the next start drops it (recover)."""
        try:
            backups.discard(bdir)
        except OSError as e:
            self._step("remove the used backup", False, f"{_why(e)} (removed at the next run)")

    def rollback(self) -> Outcome:
        """Restore the state before the last applied tune."""
        self.steps = []
        lock = self._locked()
        try:
            self._recover()
            return self._rollback()
        finally:
            lock.__exit__(None, None, None)

    def _rollback(self) -> Outcome:
        own = backups.newest_for(self.backup_root, self.unit)
        if own is None:
            return Outcome(True, False, "nothing to roll back: no backup from llmdoctor tune", self.steps)
        bdir, manifest = own
        try:
            current = self.current_content()
        except OSError as e:
            raise ApplyError(f"cannot read {self.shown_path}: {_why(e)}; nothing was changed") from None
        if current is not None and not dropin.is_ours(current):
            raise ApplyError(f"{self.shown_path} was not written by llmdoctor; not touching it")
        try:
            self._restore_file(manifest)
        except OSError as e:
            raise ApplyError(f"cannot restore {self.shown_path}: {_why(e)}; it is unchanged and the backup "
                             f"{dropin.inside(self.root, bdir)} is kept") from None
        crash_point()
        self._step("restore", True, f"{self.shown_path} " + ("restored" if manifest.get("existed") else "removed")
                   + f" from {dropin.inside(self.root, bdir)}")
        ok = True
        if self.live:
            ok = self._reload_restart()
            pid = self._wait_for_new_process(0) if ok else 0
            ok = self._step("service running", bool(pid), f"MainPID {pid}" if pid else "not active") and ok
            if ok and self.http_get is not None:
                answer = self._wait_for_api()
                ok = self._step("/api/version", answer is not None, answer or "no answer") and ok
        self._discard_quietly(bdir)
        msg = "rolled back to the configuration before the last tune" if ok else \
            "restored the files, but the service did not come back cleanly"
        return Outcome(ok, True, msg, self.steps, rolled_back=True, backup=str(bdir))
