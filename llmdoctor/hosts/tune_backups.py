"""The tuner's backups: one directory per apply under the state directory, shared by
every unit tuned on the machine, each holding a manifest.json with the drop-in's previous
content and the hash of what the apply wrote.

A backup counts only once its manifest is in place (written atomically) and is removed
manifest first, so a run killed at any point leaves either a whole backup or a
directory without a manifest - which `clean_after_crash` removes at the next start,
together with temporary files and a newest backup that never took effect (the drop-in
still holds the content it saved: its write never happened, or a rollback had already
restored it). That keeps `--rollback` undoing the last tune that took effect.
Callers hold the tuner's lock.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Callable

from llmdoctor.atomic import crash_point, remove_temporaries, write_atomic

MANIFEST = "manifest.json"


def sha(text: str | None) -> str | None:
    return hashlib.sha256(text.encode()).hexdigest() if text is not None else None


def take(backup_root: Path, unit: str, shown_path: str, old: str | None, new: str, now: float) -> Path:
    """Save `old` (None: the drop-in did not exist) in a new backup directory."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    n = 0
    while True:
        d = backup_root / (f"{stamp}-{n}" if n else stamp)
        if not d.exists():
            break
        n += 1
    d.mkdir(parents=True, mode=0o700)
    crash_point()
    manifest = {
        "unit": unit,
        "path": shown_path,
        "existed": old is not None,
        "content_b64": base64.b64encode(old.encode()).decode() if old is not None else None,
        "content_sha256": sha(old),
        "written_sha256": sha(new),
        "created": stamp,
    }
    try:
        write_atomic(d / MANIFEST, json.dumps(manifest, indent=1).encode(), 0o600)
    except BaseException:
        shutil.rmtree(d, ignore_errors=True)
        raise
    return d


def discard(bdir: Path) -> None:
    """Remove a backup, its manifest first."""
    (bdir / MANIFEST).unlink(missing_ok=True)
    crash_point()
    shutil.rmtree(bdir, ignore_errors=True)


def listed(backup_root: Path) -> list[Path]:
    """Whole backups (with a manifest), newest first."""
    try:
        ds = [d for d in backup_root.iterdir() if (d / MANIFEST).exists()]
    except OSError:
        return []
    return sorted(ds, key=lambda d: d.name, reverse=True)


def prune(backup_root: Path, keep: int) -> None:
    for old in listed(backup_root)[keep:]:
        discard(old)


def newest_for(backup_root: Path, unit: str) -> tuple[Path, dict] | None:
    """The newest backup taken for `unit`, with its manifest."""
    for d in listed(backup_root):
        try:
            manifest = json.loads((d / MANIFEST).read_text())
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("unit") == unit:
            return d, manifest
    return None


def manifest_of(bdir: Path) -> dict:
    """A backup's manifest (OSError, ValueError when it cannot be read)."""
    return json.loads((bdir / MANIFEST).read_text())


def saved_content(manifest: dict) -> str | None:
    return base64.b64decode(manifest["content_b64"]).decode() if manifest.get("existed") else None


def clean_after_crash(backup_root: Path, dropin: Path, unit: str, current: Callable[[], str | None],
                      shown: Callable[[Path], str]) -> list[str]:
    """What a killed run left: temporary files of the drop-in and of manifests, backup
    directories without a manifest, a newest backup of `unit` that never took effect.
    Returns one line per thing removed."""
    done = [f"removed {shown(p)}" for p in remove_temporaries(dropin.parent, dropin.name)]
    try:
        dirs = [d for d in backup_root.iterdir() if d.is_dir()]
    except OSError:
        dirs = []
    for d in dirs:
        done += [f"removed {shown(p)}" for p in remove_temporaries(d, MANIFEST)]
        if not (d / MANIFEST).exists():
            shutil.rmtree(d, ignore_errors=True)
            done.append(f"removed the incomplete backup {shown(d)}")
    own = newest_for(backup_root, unit)
    if own is not None:
        bdir, manifest = own
        now = sha(current())
        before = manifest.get("content_sha256") or sha(saved_content(manifest))
        if now != manifest.get("written_sha256") and now == before:
            discard(bdir)
            done.append(f"dropped the backup {shown(bdir)} of a run that did not change {shown(dropin)}")
    return done
