"""An evidence directory is read through one guard (hosts/guard.py): regular files inside it
only, size-capped, walks bounded. The red-team cases: a FIFO as meta.json hung forever, a
link to /dev/zero read 1.8 GB, a link to /etc/shadow was opened, a symlinked dropins/
listed names outside, a link as unit.service raised an uncaught NotInEvidence, an
1800-level tree lost the systemd facts without a word."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llmdoctor.hosts import guard
from llmdoctor.hosts.base import NotInEvidence
from llmdoctor.hosts.evidence import EvidenceHost
from tests.support.inprocess import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
ROOT = Path(__file__).resolve().parents[2]


def copy(tmp_path: Path, name: str = "config-no-reload") -> Path:
    d = tmp_path / "ev"
    shutil.copytree(FIXTURES / name, d)
    return d


def secret_file(tmp_path: Path) -> Path:
    p = tmp_path / "outside-secret"
    p.write_text("root:q7shadowHash:19000:0:99999:7:::\n")
    return p


def diagnose_subprocess(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT), LLMDOCTOR_QUIET="1")
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_fifo_meta_does_not_hang(tmp_path):
    d = copy(tmp_path)
    (d / "meta.json").unlink()
    os.mkfifo(d / "meta.json")
    p = diagnose_subprocess("diagnose", "--evidence", str(d), timeout=60)
    assert p.returncode in (0, 1, 2, 3) and "Traceback" not in p.stderr
    assert "meta.json" in p.stdout and "FIFO" in p.stdout


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_meta_link_out_is_not_read(tmp_path, target):
    d = copy(tmp_path)
    (d / "meta.json").unlink()
    os.symlink(secret_file(tmp_path) if target == "outside" else target, d / "meta.json")
    host = EvidenceHost(d)
    assert host.meta == {} and any("meta.json" in p for p in host.problems)
    code, out = cli("diagnose", "--evidence", str(d))
    assert "q7shadowHash" not in out and "Traceback" not in out and "meta.json" in out


def test_read_is_capped_and_never_follows_out(tmp_path):
    d = copy(tmp_path)
    (d / "big.log").write_bytes(b"x" * 5000)
    assert len(guard.read_bytes(d, "big.log", 100)) == 100
    os.symlink(secret_file(tmp_path), d / "shadow.log")
    with pytest.raises(NotInEvidence, match="outside"):
        guard.read_bytes(d, "shadow.log", 100)
    with pytest.raises(NotInEvidence, match="outside"):
        guard.read_bytes(d, "../outside-secret", 100)
    assert "shadow.log" not in EvidenceHost(d).log_files()


def test_unit_service_link_out_is_a_report_line(tmp_path):
    d = copy(tmp_path)
    (d / "unit.service").unlink()
    os.symlink(secret_file(tmp_path), d / "unit.service")
    code, out = cli("diagnose", "--evidence", str(d))
    assert code in (0, 1, 2, 3) and "Traceback" not in out
    assert "unit.service: a link to a file outside the evidence directory" in out
    assert "q7shadowHash" not in out


def test_symlinked_dropins_lists_nothing_outside(tmp_path):
    d = copy(tmp_path)
    shutil.rmtree(d / "dropins")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "stolen.conf").write_text("[Service]\nEnvironment=\"X=q7stolen\"\n")
    os.symlink(outside, d / "dropins")
    host = EvidenceHost(d)
    with pytest.raises(FileNotFoundError):
        host.listdir("/etc/systemd/system/ollama.service.d")
    code, out = cli("diagnose", "--evidence", str(d))
    assert "stolen" not in out and "q7stolen" not in out and "Traceback" not in out


def _remove_deep(top, levels: int) -> None:
    """Remove a chain of `levels` directories "a" bottom-up: shutil.rmtree recurses once per
    level and would hit Python's recursion limit (in pytest's own clean-up of tmp_path)."""
    os.chdir(top)
    try:
        for _ in range(levels):
            os.chdir("a")
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(ROOT)


def test_deep_tree_is_a_could_not_read_line_and_keeps_the_systemd_facts(tmp_path):
    d = copy(tmp_path)
    deep = d / "files"
    os.chdir(deep)  # build 1800 levels with relative paths (an absolute one would pass PATH_MAX)
    try:
        for _ in range(1800):
            os.mkdir("a")
            os.chdir("a")
    finally:
        os.chdir(ROOT)
    try:
        code, out = cli("diagnose", "--evidence", str(d), "--format", "json")
    finally:
        _remove_deep(deep, 1800)
    assert "Traceback" not in out
    target = json.loads(out)["targets"][0]
    assert any("could not read" in e and "deeper than" in e for e in target["errors"]), target["errors"]
    assert any(f["check"].startswith("systemd-") for f in target["findings"]), target["findings"]
    assert code == 1 or code == 2  # the forgotten daemon-reload is still found


def test_walk_is_bounded_in_count(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}.txt").write_text("x")
    w = guard.walk(tmp_path, max_entries=20)
    assert len(w.files) <= 20 and any("more than 20" in s for s in w.skipped)


@pytest.mark.parametrize("command", [["exporter", "--textfile", "{prom}", "--once", "--state-dir", "{state}"],
                                     ["tune", "ollama"]])
def test_exporter_and_tune_read_meta_through_the_guard(tmp_path, command):
    d = copy(tmp_path)
    (d / "meta.json").unlink()
    os.mkfifo(d / "meta.json")
    args = [a.format(prom=tmp_path / "m.prom", state=tmp_path / "state") for a in command]
    p = diagnose_subprocess(*args, "--evidence", str(d), timeout=90)
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.returncode in (0, 1, 2, 3), p.stderr[-2000:]
