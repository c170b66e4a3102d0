"""Issue 16, part 6: the tuner as a real transaction. Every fault - a read-only or full
backup or drop-in directory, SIGKILL at every write step, five applies at once - ends
with the drop-in byte-identical to the start or fully applied, no stray file, the
user's override.conf untouched, and `--rollback` back at the start."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from llmdoctor.app.tune import dropin
from llmdoctor.app.tune.apply import BACKUP_DIR, LOCK_FILE, STATE_DIR, ApplyError, Transaction
from llmdoctor.hosts.tune_lock import StateLock

REPO = Path(__file__).resolve().parents[2]
UNIT = "ollama.service"
OVERRIDE = b'[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=2"\n'  # what `systemctl edit` wrote


def vals(n: int) -> dict[str, str]:
    return {"OLLAMA_NUM_PARALLEL": str(n), "OLLAMA_MAX_QUEUE": "64"}


def content(n: int) -> str:
    return dropin.render(vals(n))


def make_root(path: Path) -> Path:
    d = path / "etc/systemd/system" / f"{UNIT}.d"
    d.mkdir(parents=True)
    (d / "override.conf").write_bytes(OVERRIDE)
    return path


def txn(root: Path) -> Transaction:
    return Transaction(UNIT, root, None, live=False)


def dropin_bytes(root: Path) -> bytes | None:
    p = dropin.dropin_path(root, UNIT)
    return p.read_bytes() if p.exists() else None


def strays(root: Path) -> list[str]:
    """Temporary files anywhere, and backup directories that are not whole backups."""
    out = [str(p) for p in root.rglob("*.tmp")]
    b = root / BACKUP_DIR
    if b.is_dir():
        out += [str(d) for d in b.iterdir() if not (d / "manifest.json").is_file()]
    return out


def assert_user_file_untouched(root: Path) -> None:
    assert (dropin.dropin_path(root, UNIT).parent / "override.conf").read_bytes() == OVERRIDE


# -- filesystem faults ------------------------------------------------------------------

def _can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


@contextmanager
def tmpfs(where: Path, opts: str):
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True, timeout=10)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


def fill(d: Path) -> None:
    try:
        with open(d / "filler", "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass


needs_mount = pytest.mark.skipif(not _can_mount(), reason="needs root to mount a small tmpfs")


@needs_mount
@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_a_backup_directory_fault_is_one_line_and_changes_nothing(tmp_path, fault):
    root = make_root(tmp_path / "r")
    assert txn(root).apply(content(4), vals(4)).ok  # a first tune to roll back to
    before = dropin_bytes(root)
    backups = sorted(p.name for p in (root / BACKUP_DIR).iterdir())
    saved = tmp_path / "saved"
    shutil.copytree(root / BACKUP_DIR, saved)
    with tmpfs(root / BACKUP_DIR, "ro,size=64k" if fault == "read-only" else "size=64k") as d:
        if fault == "full":
            fill(d)
        with pytest.raises(ApplyError) as e:
            txn(root).apply(content(6), vals(6))
        msg = str(e.value)
        assert "\n" not in msg and "cannot take a backup" in msg and "nothing was changed" in msg
        assert dropin_bytes(root) == before and not [s for s in strays(root) if "filler" not in s]
    assert sorted(p.name for p in (root / BACKUP_DIR).iterdir()) == backups
    assert_user_file_untouched(root)
    out = txn(root).rollback()  # the earlier tune's backup still counts: back to the start
    assert out.ok and out.changed and dropin_bytes(root) is None and not strays(root)


@needs_mount
@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_a_dropin_directory_fault_restores_and_leaves_no_stale_backup(tmp_path, fault):
    root = make_root(tmp_path / "r")
    assert txn(root).apply(content(4), vals(4)).ok
    before = dropin_bytes(root)
    d = dropin.dropin_path(root, UNIT).parent
    keep = {p.name: p.read_bytes() for p in d.iterdir()}
    with tmpfs(d, "size=64k") as m:
        for name, data in keep.items():
            (m / name).write_bytes(data)
        if fault == "read-only":
            subprocess.run(["mount", "-o", "remount,ro", str(m)], check=True, timeout=10)
        else:
            fill(m)
        out = txn(root).apply(content(6), vals(6))
        assert not out.ok and not out.changed and "could not write the drop-in" in out.message
        assert "\n" not in out.message
        assert dropin_bytes(root) == before and not [s for s in strays(root) if "filler" not in s]
        assert_user_file_untouched(root)
        assert len(txn(root).backups()) == 1  # the failed run's backup is gone
        if fault == "read-only":
            with pytest.raises(ApplyError, match="cannot restore .*it is unchanged"):
                txn(root).rollback()
            assert dropin_bytes(root) == before
        subprocess.run(["mount", "-o", "remount,rw", str(m)], check=True, timeout=10)
        (m / "filler").unlink(missing_ok=True)
        assert txn(root).rollback().ok and dropin_bytes(root) is None  # the start
        assert_user_file_untouched(root)


@needs_mount
def test_a_read_only_state_directory_refuses_the_lock_in_one_line(tmp_path):
    root = make_root(tmp_path / "r")
    with tmpfs(root / STATE_DIR, "ro,size=64k"):
        with pytest.raises(ApplyError, match="cannot take the tuner's lock .*nothing was changed"):
            txn(root).apply(content(4), vals(4))
    assert dropin_bytes(root) is None


def test_enospc_on_every_write_is_one_line_with_the_state_restored(tmp_path, monkeypatch):
    """Without root: os.write/os.fsync fail with ENOSPC at the k-th call, for every k."""
    import errno

    from llmdoctor import atomic

    for k in range(1, 8):
        root = make_root(tmp_path / f"r{k}")
        assert txn(root).apply(content(4), vals(4)).ok
        before = dropin_bytes(root)
        calls = {"n": 0}
        real_fsync = os.fsync

        def failing_fsync(fd, _real=real_fsync):
            calls["n"] += 1
            if calls["n"] == k:
                raise OSError(errno.ENOSPC, "No space left on device")
            return _real(fd)

        monkeypatch.setattr(atomic.os, "fsync", failing_fsync)
        try:
            out = txn(root).apply(content(6), vals(6))
        except ApplyError as e:
            assert "\n" not in str(e) and "nothing was changed" in str(e)
            assert dropin_bytes(root) == before
        else:
            if out.ok:
                assert dropin_bytes(root) == content(6).encode()
            else:
                assert dropin_bytes(root) == before and "\n" not in out.message
        monkeypatch.setattr(atomic.os, "fsync", real_fsync)
        assert not strays(root)
        assert_user_file_untouched(root)
        t = txn(root)
        while t.rollback().changed:
            pass
        assert dropin_bytes(root) is None


# -- SIGKILL at every write step ----------------------------------------------------------

SCRIPT = """
import sys
from pathlib import Path
from llmdoctor.app.tune import dropin
from llmdoctor.app.tune.apply import ApplyError, Transaction
root, action = Path(sys.argv[1]), sys.argv[2]
t = Transaction("ollama.service", root, None, live=False)
try:
    if action == "apply":
        v = {"OLLAMA_NUM_PARALLEL": sys.argv[3], "OLLAMA_MAX_QUEUE": "64"}
        o = t.apply(dropin.render(v), v)
    else:
        o = t.rollback()
except ApplyError as e:
    print("refused:", e)
    sys.exit(3)
print("ok" if o.ok else "failed", o.message)
sys.exit(0 if o.ok else 2)
"""


def run_tuner(root: Path, *args: str, crash_at: int = 0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("LLMDOCTOR_TEST_CRASH_AT", None)
    if crash_at:
        env["LLMDOCTOR_TEST_CRASH_AT"] = str(crash_at)
    return subprocess.run([sys.executable, "-c", SCRIPT, str(root), *args], capture_output=True, text=True,
                          timeout=60, env=env)


def kill_at_every_step(tmp_path: Path, setup, args: tuple[str, ...], check) -> int:
    """Run `args` killed at crash point 1, 2, ... until a run completes; `check(root, killed)`
    judges the state after each. Returns the number of crash points."""
    for n in range(1, 60):
        root = make_root(tmp_path / f"k{n}")
        setup(root)
        r = run_tuner(root, *args, crash_at=n)
        if r.returncode == 0:
            check(root, killed=False)
            return n - 1
        assert r.returncode == -9, (n, r.returncode, r.stdout, r.stderr)
        check(root, killed=True)
    raise AssertionError("the run never completed")


def test_sigkill_at_every_step_of_a_first_apply(tmp_path):
    def check(root, killed):
        assert dropin_bytes(root) in (None, content(4).encode())
        assert_user_file_untouched(root)
        t = txn(root)
        t.rollback()  # the next start: cleans up, then undoes what took effect
        assert dropin_bytes(root) is None and not strays(root)
        assert "nothing to roll back" in t.rollback().message
        assert_user_file_untouched(root)

    points = kill_at_every_step(tmp_path, lambda root: None, ("apply", "4"), check)
    assert points >= 6


def test_sigkill_at_every_step_of_a_second_apply(tmp_path):
    def setup(root):
        assert txn(root).apply(content(4), vals(4)).ok

    def check(root, killed):
        state = dropin_bytes(root)
        assert state in (content(4).encode(), content(6).encode())
        txn(root).rollback()
        # Back to the start when the second tune took effect; when it did not, its backup
        # was dropped and the rollback undid the first tune (never a no-op).
        assert dropin_bytes(root) == (content(4).encode() if state == content(6).encode() else None)
        assert not strays(root)
        assert_user_file_untouched(root)

    kill_at_every_step(tmp_path, setup, ("apply", "6"), check)


def test_sigkill_at_every_step_of_a_rollback(tmp_path):
    def setup(root):
        assert txn(root).apply(content(4), vals(4)).ok

    def check(root, killed):
        assert dropin_bytes(root) in (None, content(4).encode())
        t = txn(root)
        t.rollback()
        assert dropin_bytes(root) is None and not strays(root)
        assert "nothing to roll back" in t.rollback().message
        assert_user_file_untouched(root)

    kill_at_every_step(tmp_path, setup, ("rollback",), check)


# -- concurrent applies -------------------------------------------------------------------

def test_a_second_apply_fails_at_once_naming_the_holder(tmp_path):
    root = make_root(tmp_path / "r")
    lock = root / LOCK_FILE
    with StateLock(lock, "/" + LOCK_FILE):
        procs, t0 = [], time.monotonic()
        env = dict(os.environ, PYTHONPATH=str(REPO))
        for n in range(5):
            procs.append(subprocess.Popen([sys.executable, "-c", SCRIPT, str(root), "apply", str(n + 2)],
                                          stdout=subprocess.PIPE, text=True, env=env))
        outs = [p.communicate(timeout=60)[0] for p in procs]
        elapsed = time.monotonic() - t0
    assert [p.returncode for p in procs] == [3] * 5
    for out in outs:
        assert f"pid {os.getpid()} started" in out and "another llmdoctor tune is running" in out
    assert elapsed < 10  # at once: no waiting on the lock (5 interpreter start-ups)
    assert dropin_bytes(root) is None and not strays(root)


def test_five_concurrent_applies_end_applied_or_refused_and_roll_back(tmp_path):
    root = make_root(tmp_path / "r")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, str(root), "apply", str(n + 2)],
                              stdout=subprocess.PIPE, text=True, env=env) for n in range(5)]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    codes = [p.returncode for p in procs]
    assert set(codes) <= {0, 3} and 0 in codes, outs
    for code, out in zip(codes, outs):
        assert code == 0 or "another llmdoctor tune is running" in out
    assert dropin_bytes(root) in {content(n + 2).encode() for n in range(5)}
    assert not strays(root)
    t = txn(root)
    assert len(t.backups()) == codes.count(0)  # one backup per run that took effect
    for _ in range(codes.count(0)):
        assert t.rollback().changed
    assert dropin_bytes(root) is None and "nothing to roll back" in t.rollback().message
    assert_user_file_untouched(root)
