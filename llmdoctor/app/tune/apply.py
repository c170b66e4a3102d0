"""Applying a tuned drop-in as a transaction, and rolling it back.

lock -> clean up after a killed run -> back up -> write atomically (temporary file, fsync, rename) -> `systemd-analyze verify`
-> `daemon-reload` -> `restart` -> verify (`systemctl show -p Environment`, the new
process's /proc environment, `/api/version` within a timeout, optionally a
concurrency check) -> on any failure: restore, reload, restart, and say what failed.

Files are written under `root` (a path prefix: "/" on a live system, the container's
root in tests, a staging directory for packaging). Commands go through `runner`, any
object with the Host protocol's `run(argv, timeout)` and `read(path, limit)`: the
local machine, `nsenter` into a container, or SSH. `live=False` writes files only.

Crash safety: one run at a time (an flock in the state directory); a backup counts only
once its manifest is in place (written atomically), and is removed manifest first; at
the next start, temporary files of a killed run are removed, backup directories
without a manifest are removed, and the newest backup is dropped when the drop-in on
disk is still the content it saved (its write never happened, or a rollback had already
restored it) - so `--rollback` always undoes the last tune that took effect. Every
filesystem fault is one line (TuneFault / ApplyError), never a traceback.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from llmdoctor.atomic import crash_point, remove_temporaries, write_atomic
from llmdoctor.hosts.base import CommandResult, HostError
from llmdoctor.knowledge.systemd.environ import parse_proc_environ
from llmdoctor.knowledge.systemd.show import parse_environment_property
from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit
from llmdoctor.app.tune import dropin
from llmdoctor.app.tune.lock import LockHeld, StateLock
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


def _sha(text: str | None) -> str | None:
    return hashlib.sha256(text.encode()).hexdigest() if text is not None else None


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
        try:
            return self.path.read_text()
        except FileNotFoundError:
            return None

    def main_pid(self) -> int:
        r = self._systemctl("show", "-p", "MainPID", "--value", "--", self.unit)
        try:
            return int(r.stdout.strip() or 0)
        except ValueError:
            return 0

    def loaded_env(self) -> dict[str, str]:
        return parse_show_environment(self._systemctl("show", "-p", "Environment", "--", self.unit).stdout)

    # -- backups ----------------------------------------------------------------------
    def backup(self, old: str | None, new: str) -> Path:
        """Save `old` in a new backup directory; it counts once manifest.json is in place."""
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self.clock()))
        n = 0
        while True:
            d = self.backup_root / (f"{stamp}-{n}" if n else stamp)
            if not d.exists():
                break
            n += 1
        d.mkdir(parents=True, mode=0o700)
        crash_point()
        manifest = {
            "unit": self.unit,
            "path": self.shown_path,
            "existed": old is not None,
            "content_b64": base64.b64encode(old.encode()).decode() if old is not None else None,
            "content_sha256": _sha(old),
            "written_sha256": _sha(new),
            "created": stamp,
        }
        try:
            write_atomic(d / "manifest.json", json.dumps(manifest, indent=1).encode(), 0o600)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        return d

    def _prune(self) -> None:
        for old in self.backups()[KEEP_BACKUPS:]:
            self._discard(old)

    @staticmethod
    def _discard(bdir: Path) -> None:
        """Remove a backup: its manifest first, so a run killed halfway leaves a directory
        without a manifest (cleaned at the next start), never a half backup that counts."""
        (bdir / "manifest.json").unlink(missing_ok=True)
        crash_point()
        shutil.rmtree(bdir, ignore_errors=True)

    def backups(self) -> list[Path]:
        """Backups, newest first."""
        try:
            ds = [d for d in self.backup_root.iterdir() if (d / "manifest.json").exists()]
        except OSError:
            return []
        return sorted(ds, key=lambda d: d.name, reverse=True)

    def _own_backup(self) -> tuple[Path, dict] | None:
        """The newest backup taken for this unit, with its manifest (the backup
        directory is shared by every unit tuned on the machine)."""
        for d in self.backups():
            try:
                manifest = json.loads((d / "manifest.json").read_text())
            except (OSError, ValueError):
                continue
            if isinstance(manifest, dict) and manifest.get("unit") == self.unit:
                return d, manifest
        return None

    @staticmethod
    def _saved(manifest: dict) -> str | None:
        return base64.b64decode(manifest["content_b64"]).decode() if manifest.get("existed") else None

    def _restore_file(self, manifest: dict) -> None:
        saved = self._saved(manifest)
        if self.current_content() == saved:
            return  # nothing changed (the write failed before its rename): nothing to write
        if saved is not None:
            write_atomic(self.path, saved.encode())
        else:
            self.path.unlink(missing_ok=True)
            crash_point()

    def recover(self) -> list[str]:
        """Clean up after a run that was killed (call with the lock held): temporary files,
        backup directories without a manifest, and a newest backup that never took effect."""
        done = [f"removed {dropin.inside(self.root, p)}"
                for p in remove_temporaries(self.path.parent, self.path.name)]
        try:
            dirs = [d for d in self.backup_root.iterdir() if d.is_dir()]
        except OSError:
            dirs = []
        for d in dirs:
            for p in remove_temporaries(d, "manifest.json"):
                done.append(f"removed {dropin.inside(self.root, p)}")
            if not (d / "manifest.json").exists():
                shutil.rmtree(d, ignore_errors=True)
                done.append(f"removed the incomplete backup {dropin.inside(self.root, d)}")
        own = self._own_backup()
        if own is not None:
            bdir, manifest = own
            current = self.current_content()
            if _sha(current) != manifest.get("written_sha256") and \
                    _sha(current) == manifest.get("content_sha256", _sha(self._saved(manifest))):
                self._discard(bdir)
                done.append(f"dropped the backup {dropin.inside(self.root, bdir)} of a run that "
                            f"did not change {self.shown_path}")
        return done

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
            write_atomic(self.path, content.encode())
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
            self._prune()
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
        manifest = json.loads((bdir / "manifest.json").read_text())
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
            self._discard(bdir)
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
        own = self._own_backup()
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
