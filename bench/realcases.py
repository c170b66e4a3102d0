#!/usr/bin/env python3
"""How often llmdoctor names the cause a real thread settled on.

Runs `llmdoctor diagnose --evidence DIR --format json` as a user would (one process per
case) on every scored case of a corpus laid out as tests/fixtures/realcases (INDEX.md
there), and prints each case, then the pass rate, top-1 (the first warning or critical
finding names an expected cause) and false alarms (any warning or critical finding on a
case whose only cause is OTHER). Targets (issue 10): pass >= 22 of 24, top-1 >= 18 of 20,
no false alarm.

Usage: bench/realcases.py [--cases DIR] [--llmdoctor CMD] [--min-pass N] [--write-state]
(--write-state pins each case's new pass/fail state in the corpus' expected_state.json,
which tests/test_realcases.py asserts.)
"""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.realcases import ROOT as CASES, cases, meta, score, stage, totals  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=Path, default=CASES, help="corpus directory (default: the project's copy)")
    ap.add_argument("--llmdoctor", default=f"{shlex.quote(sys.executable)} -m llmdoctor",
                    help="command that runs llmdoctor (default: this Python's module)")
    ap.add_argument("--min-pass", type=int, default=0, help="exit 1 when fewer cases pass")
    ap.add_argument("--write-state", action="store_true", help="pin the pass/fail states in expected_state.json")
    args = ap.parse_args()
    scores, skipped, seconds = [], 0, []
    for case in cases(args.cases):
        m = meta(case)
        if m.get("scored") is False:
            skipped += 1
            continue
        with tempfile.TemporaryDirectory() as tmp:
            staged = stage(case, Path(tmp))
            start = time.perf_counter()
            p = subprocess.run(shlex.split(args.llmdoctor) + ["diagnose", "--evidence", tmp, "--format", "json"],
                               capture_output=True, text=True, timeout=120, cwd=ROOT)
            seconds.append(time.perf_counter() - start)
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            report = {"targets": []}  # counted as a case with no finding
            print(f"{m['id']}: no JSON (exit {p.returncode}) {(p.stderr or p.stdout)[-300:]!r}")
        s = score(m, report)
        scores.append(s)
        print(f"{s.line()} expected={m['expected_causes']} exit={p.returncode} files={staged}")
    t = totals(scores)
    if args.write_state:
        path = args.cases / "expected_state.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        new = {s.case: {"state": "pass" if s.passed else "fail"} for s in scores}
        for case in sorted(new):
            if old.get(case) != new[case]:
                print(f"state of {case}: {old.get(case, {}).get('state')} -> {new[case]['state']}")
        path.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
    print(f"\npass {t['pass'][0]}/{t['pass'][1]} ({skipped} unscored); "
          f"top-1 {t['top1'][0]}/{t['top1'][1]}; false alarms {t['false_alarms'][0]}/{t['false_alarms'][1]}; "
          f"median {sorted(seconds)[len(seconds) // 2] * 1000:.0f} ms per case" if seconds else "no scored cases")
    return 0 if t["pass"][0] >= args.min_pass else 1


if __name__ == "__main__":
    sys.exit(main())
