#!/usr/bin/env python3
"""Whole-process wall time of `llmdoctor diagnose --evidence DIR` against the
baseline `python -c "import rich, typer"`, measured in the same run.

Target (issue 2): ratio <= 2.0. Prints medians of N runs of each and the ratio.
Usage: bench/diagnose_startup.py [--runs N] [--evidence DIR]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# As installed by pip: bytecode cached. (Some shells export PYTHONDONTWRITEBYTECODE, which
# would make every run compile every module from source and measure that instead.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--evidence", default=None, help="evidence directory (default: the largest fixture)")
    args = ap.parse_args()
    evidence = args.evidence
    if evidence is None:
        dirs = sorted((ROOT / "tests/fixtures/evidence").glob("*/"), key=lambda d: -sum(f.stat().st_size for f in d.rglob("*") if f.is_file()))
        evidence = str(dirs[0]) if dirs else str(ROOT / "tests")
    base = [sys.executable, "-c", "import rich, typer"]
    tool = [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", evidence]
    wall(base), wall(tool)  # warm the page cache
    b, t = [], []
    for _ in range(args.runs):  # interleave so machine noise hits both alike
        b.append(wall(base))
        t.append(wall(tool))
    mb, mt = statistics.median(b), statistics.median(t)
    print(f"evidence: {evidence}")
    print(f"baseline  python -c 'import rich, typer'   median {mb * 1000:7.1f} ms over {args.runs} runs")
    print(f"llmdoctor diagnose --evidence DIR (text)   median {mt * 1000:7.1f} ms over {args.runs} runs")
    print(f"ratio {mt / mb:.2f} (target <= 2.00)")
    heavy = subprocess.run(
        [sys.executable, "-c",
         "import sys, runpy; sys.argv=['llmdoctor','diagnose','--evidence',%r,'--format','json'];\n"
         "try:\n    runpy.run_module('llmdoctor', run_name='__main__')\nexcept SystemExit:\n    pass\n"
         "print(' '.join(m for m in ('prometheus_client','pynvml','requests','numpy') if m in sys.modules), file=sys.stderr)" % evidence],
        capture_output=True, text=True, env=ENV,
    ).stderr.strip().splitlines()
    print(f"heavy modules imported by diagnose --evidence: {heavy[-1] if heavy else 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
