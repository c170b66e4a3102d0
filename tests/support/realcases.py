"""The real-case corpus (tests/fixtures/realcases, INDEX.md there): staging and scoring.

A case directory holds case.json (the causes the thread settled on, its source) and the
evidence files as the reporter posted them. Staging copies them into a fresh evidence
directory under the format's names; scoring reads a diagnosis' JSON the way the corpus
defines it: a case passes when every expected cause other than OTHER is reported as a
warning or critical finding and no critical finding names a cause the case does not
accept. The benchmark (bench/realcases.py) and the test (tests/test_realcases.py) both
use this module, so they cannot disagree on the rule.
"""
from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "realcases"
EXTRA = ROOT.parent / "realcases_extra"  # collected later, to measure how the diagnosis generalises
EXTRA3 = ROOT.parent / "realcases_extra3"  # a third set, run once unseen (7/10 held out), then fixed
EXTRA4 = ROOT.parent / "realcases_extra4"  # Ollama threads, collected unseen (measured before any fix)
EXTRA5 = ROOT.parent / "realcases_extra5"  # vLLM, llama-server and SGLang threads, collected unseen
EXTRA6 = ROOT.parent / "realcases_extra6"  # Ollama, vLLM, llama-server and SGLang threads, collected unseen
EXTRA7 = ROOT.parent / "realcases_extra7"  # a seventh unseen set, measured before any change
EXTRA8 = ROOT.parent / "realcases_extra8"  # an eighth unseen set, measured before any change
CORPORA = (ROOT, EXTRA, EXTRA3, EXTRA4, EXTRA5, EXTRA6, EXTRA7, EXTRA8)

RENAME = {
    "dropin.conf": "dropins/override.conf",
    "http_response.txt": "client_errors.txt",
    "journal_load_request_prefix.log": "server.log",
}
KEEP = {"journal.log", "vllm.log", "server.log", "ollama_ps.txt", "api_ps.json", "api_show.json",
        "env.txt", "unit.service", "systemctl_cat.txt", "vmstat.txt", "meminfo.txt",
        "nvidia_smi.txt", "metrics.prom", "probe.json", "meta.json", "cmdline.txt",
        "client_errors.txt"}
# Files that show the state after the fix, kept in a case only for contrast.
CONTRAST = re.compile(r"_(after|unset|fixed)\b|_after_|_unset_")
ALARM = ("warning", "critical")


def cases(root: Path = ROOT) -> list[Path]:
    return sorted(d for d in root.iterdir() if (d / "case.json").is_file())


def meta(case: Path) -> dict:
    return json.loads((case / "case.json").read_text())


def stage(case: Path, dest: Path) -> list[str]:
    """Copy the evidence under the format's names; any other *.log, *.txt or *.json too,
    because the format reads unknown logs and text files by their content."""
    staged = []
    for f in sorted(case.iterdir()):
        if not f.is_file() or f.name == "case.json" or CONTRAST.search(f.stem):
            continue
        name = RENAME.get(f.name, f.name)
        if name not in KEEP and not name.startswith("dropins/") and not name.endswith((".log", ".txt", ".json")):
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
        staged.append(name)
    return staged


@dataclass(frozen=True)
class Score:
    case: str
    passed: bool
    top1: bool | None  # None for a case whose only cause is OTHER
    false_alarm: bool | None  # None for a case that expects a cause
    found: tuple[str, ...]
    missing: tuple[str, ...]
    wrong_critical: tuple[str, ...]
    first: str | None  # the cause of the first warning/critical finding

    def line(self) -> str:
        return (f"{self.case}: {'pass' if self.passed else 'FAIL'} found={list(self.found)} "
                f"missing={list(self.missing)} wrong-critical={list(self.wrong_critical)} first={self.first}")


def score(case_meta: dict, report: dict) -> Score:
    expected = set(case_meta["expected_causes"]) - {"OTHER"}
    acceptable = expected | set(case_meta.get("acceptable_causes", ()))
    found: dict[str, set[str]] = {}
    ranked = []
    for target in report.get("targets", []):
        for f in target.get("findings", []):
            if f.get("severity") in ALARM:
                found.setdefault(f.get("cause"), set()).add(f["severity"])
                ranked.append((f["severity"] != "critical", f.get("cause")))
    ranked.sort(key=lambda r: r[0])  # stable: critical first, then the report's order
    first = ranked[0][1] if ranked else None
    missing = expected - set(found)
    wrong = {c for c, sevs in found.items() if "critical" in sevs and c not in acceptable}
    return Score(
        case=case_meta["id"], passed=not missing and not wrong,
        top1=(first in expected) if expected else None,
        false_alarm=bool(set(found) - acceptable) if not expected else None,
        found=tuple(sorted(found)), missing=tuple(sorted(missing)), wrong_critical=tuple(sorted(wrong)), first=first)


def totals(scores: list[Score]) -> dict[str, tuple[int, int]]:
    """(hits, out of) for pass, top-1 and false alarms."""
    with_cause = [s for s in scores if s.top1 is not None]
    other = [s for s in scores if s.false_alarm is not None]
    return {
        "pass": (sum(s.passed for s in scores), len(scores)),
        "top1": (sum(bool(s.top1) for s in with_cause), len(with_cause)),
        "false_alarms": (sum(bool(s.false_alarm) for s in other), len(other)),
    }
