"""Every evidence fixture, re-pasted the ways users paste it, yields the same findings.

Real reports arrive wrapped in Markdown fences with the shell prompt and command on top,
with Windows line endings, or as UTF-16 from PowerShell's `>`. The diagnosis must not
care: each variant of each fixture must fire exactly the checks its expected.json names.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from llmdoctor.plugins import load_checks
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in ROOT.glob("*/expected.json"))
JOURNALD = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d ")
COMMANDS = {
    "ollama_ps.txt": "ollama ps",
    "journal.log": "sudo journalctl -u ollama --no-pager",
    "vllm.log": "tail -n 500 vllm.log",
    "server.log": "cat server.log",
    "env.txt": "systemctl show ollama -p Environment",
    "vmstat.txt": "vmstat 1 5",
    "meminfo.txt": "cat /proc/meminfo",
    "nvidia_smi.txt": "nvidia-smi",
    "metrics.prom": "curl -s localhost:8000/metrics",
    "api_ps.json": "curl -s localhost:11434/api/ps",
    "api_show.json": "curl -s localhost:11434/api/show -d '{\"model\": \"m\"}'",
    "unit.service": "cat /etc/systemd/system/ollama.service",
    "systemctl_cat.txt": "systemctl cat ollama",
}


def repaste(path: Path, how: str) -> None:
    text = path.read_text(errors="replace")
    if how == "fenced-with-prompt" and path.name in COMMANDS:
        path.write_text(f"```\nuser@gpu:~$ {COMMANDS[path.name]}\n{text}```\n")
    elif how == "crlf":
        path.write_bytes(text.replace("\n", "\r\n").encode())
    elif how == "journald-prefix" and path.name in ("journal.log", "server.log", "vllm.log"):
        # as `journalctl -u UNIT` prints a plain log file's lines (lines that have a prefix keep it)
        unit = next((u for u in ("vllm", "llama-server") if u.split("-")[0] in path.parent.name), "ollama")
        prefixed = [line if JOURNALD.match(line) or not line else f"Nov 29 10:00:00 gpu-box {unit}[1234]: {line}"
                    for line in text.split("\n")]
        path.write_text("\n".join(prefixed))
    elif how == "utf16-powershell":
        path.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


@pytest.mark.parametrize("how", ["fenced-with-prompt", "crlf", "utf16-powershell", "journald-prefix"])
def test_repasted_fixtures_give_the_same_findings(how, specs, tmp_path):
    wrong = []
    for d in DIRS:
        copy = tmp_path / d.name
        shutil.copytree(d, copy)
        for f in copy.rglob("*"):
            if f.is_file() and f.name not in ("expected.json", "meta.json"):
                repaste(f, how)
        expected = sorted(set(json.loads((d / "expected.json").read_text())["checks"]))
        report = diagnose_target(EvidenceHost(copy), DiagnoseOptions(sample_seconds=0), specs).report
        got = sorted({f.check for f in report.findings})
        if got != expected:
            wrong.append(f"{d.name}: expected {expected}, got {got}")
    assert not wrong, "\n".join(wrong)
