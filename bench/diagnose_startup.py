#!/usr/bin/env python3
"""Whole-process wall time of `llmdoctor diagnose --evidence DIR` (one fixture per engine) and
of `llmdoctor --help`, against the baseline `python -c "import rich, typer"`, measured in the
same run, interleaved.

Target (issue 15): every ratio <= 1.6. Prints medians of N runs of each, the ratio and the
target beside it. The machine is shared, so every run of the tool is paired with a run of the
baseline right before it and the medians are taken over many pairs.
Usage: env -u PYTHONDONTWRITEBYTECODE bench/diagnose_startup.py [--runs N] [--evidence DIR ...]
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


def wall(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole run of argv. The CPU time (user + system, from
    wait4) is shown beside the wall time: on a shared machine it varies less."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=ROOT)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


# Every engine's fixtures (Ollama, vLLM, llama.cpp, SGLang), the ones with a /metrics scrape
# (vllm-healthy, llamacpp-healthy, sglang-healthy: parsed without prometheus_client when plain),
# and systemd-only evidence (a unit, its drop-ins and environment, no engine output).
DEFAULT_FIXTURES = ("ollama-cpu-spill", "ollama-healthy", "vllm-preempt-v1", "vllm-healthy", "llamacpp-slot-split",
                    "llamacpp-healthy", "sglang-healthy", "sglang-kv-full", "config-no-reload",
                    "systemd-shell-client-only")
TARGET = 1.6
HEAVY = ("prometheus_client", "pynvml", "requests", "numpy")


def heavy_imports(evidence: str) -> str:
    code = (
        "import sys, runpy; sys.argv=['llmdoctor','diagnose','--evidence',%r];\n"
        "try:\n    runpy.run_module('llmdoctor', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(' '.join(m for m in %r if m in sys.modules), file=sys.stderr)" % (evidence, HEAVY)
    )
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT).stderr.strip().splitlines()
    return (lines[-1] if lines else "") or "none"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--evidence", action="append", help="evidence directory (repeatable; default: one per engine)")
    args = ap.parse_args()
    dirs = args.evidence or [str(ROOT / "tests/fixtures/evidence" / name) for name in DEFAULT_FIXTURES]
    base = [sys.executable, "-c", "import rich, typer"]
    print(f"{'':<26} {'wall ms':^23}  {'':>6} {'':>6} {'':>4}  {'CPU ms':^17}")
    print(f"{'evidence':<26} {'baseline':>11} {'llmdoctor':>11}  {'ratio':>6} {'target':>6} {'':>4}  {'base':>5} {'tool':>5} {'ratio':>5}"
          "  heavy modules imported")
    worst = 0.0
    runs = [(Path(e).name, [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", e], heavy_imports(e))
            for e in dirs]
    runs.append(("llmdoctor --help", [sys.executable, "-m", "llmdoctor", "--help"], ""))
    for name, tool, heavy in runs:
        wall(base), wall(tool)  # warm the page cache and the bytecode
        b, t = [], []
        for i in range(args.runs):  # interleave so machine noise hits both alike, in both orders
            pair = (base, tool) if i % 2 == 0 else (tool, base)
            first, second = wall(pair[0]), wall(pair[1])
            b.append(first if i % 2 == 0 else second)
            t.append(second if i % 2 == 0 else first)
        mb, mt = statistics.median(x[0] for x in b), statistics.median(x[0] for x in t)
        cb, ct = statistics.median(x[1] for x in b), statistics.median(x[1] for x in t)
        worst = max(worst, mt / mb)
        ok = "ok" if mt / mb <= TARGET else "OVER"
        print(f"{name:<26} {mb * 1000:11.1f} {mt * 1000:11.1f}  {mt / mb:6.2f} {TARGET:6.2f} {ok:>4}  "
              f"{cb * 1000:5.0f} {ct * 1000:5.0f} {ct / cb:5.2f}  {heavy}", flush=True)
    print(f"medians of {args.runs} interleaved runs each; target: wall ratio <= {TARGET:.2f} (worst here {worst:.2f})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
