"""Benchmark: the whole `llmdoctor diagnose --evidence DIR` process against `grep -c preempted FILE`
on the same generated vLLM log, at three stats densities (0.5 %, 5 %, 20 % of the lines).

For each density (bench/vllm_log_gen.py writes realistic vLLM lines; default 1 GiB, `--size-mb N`
or LLMDOCTOR_BENCH_MB=N for a quick run) the two commands run interleaved, `--runs` times each
(the file is in the page cache; grep's output goes to a pipe, as it is read); the medians and their
ratio are printed beside the targets, with the peak RSS of the diagnose process (from its rusage,
os.wait4; Linux keeps the larger of it and the spawning process's, so the bench's own peak is
printed too: a figure at that level is the bench's, not diagnose's).
Targets (issue 15): ratio <= 1.5 at 0.5 %, <= 2.0 at 5 %, peak RSS < 100 MB. The logs are
written to a temporary directory (`--dir` to choose where, e.g. when /tmp is small) and
removed afterwards. Also checks that grep counted the warnings written and that diagnose read
every line (`--format json`, its "examined" list). Exits 1 when a target or a cross-check fails.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DENSITIES = (0.005, 0.05, 0.2)
TARGETS = {0.005: 1.5, 0.05: 2.0}
TARGET_RSS_MB = 100.0
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc cached, as installed
ENV.update(NO_COLOR="1", PYTHONPATH=str(ROOT))


def _gen():
    spec = importlib.util.spec_from_file_location("vllm_log_gen", ROOT / "bench" / "vllm_log_gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(argv: list[str], root: Path = ROOT) -> tuple[float, float, bytes]:
    """(wall seconds, peak RSS MB, stdout) of one run of llmdoctor from `root`; stdout is a pipe."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root,
                            env=dict(ENV, PYTHONPATH=str(root)))
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t, usage.ru_maxrss / 1024.0, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=int(os.environ.get("LLMDOCTOR_BENCH_MB", "1024")))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--density", type=float, action="append", help="stats share of the lines (repeatable)")
    ap.add_argument("--dir", default=None, help="where to write the logs (default: the temporary directory)")
    ap.add_argument("--before", default=None, help="another llmdoctor checkout (e.g. the previous commit), timed "
                                                   "interleaved with this one for a before/after in the same run")
    args = ap.parse_args()
    if not shutil.which("grep"):
        print("grep not found", file=sys.stderr)
        return 3
    gen = _gen()
    ok = True
    rows = []
    for density in args.density or DENSITIES:
        work = Path(tempfile.mkdtemp(prefix="llmdoctor-bench-", dir=args.dir))
        try:
            evidence = work / "evidence"
            evidence.mkdir()
            log = evidence / "vllm.log"
            t = time.perf_counter()
            made = gen.generate(log, args.size_mb * 2**20, density=density)
            print(f"{density * 100:g} %: generated {made['bytes'] / 2**20:.0f} MiB in {time.perf_counter() - t:.0f} s "
                  f"({made['stats_lines']} stats lines of {made['lines']}, {made['preemption_warnings']} warnings)",
                  flush=True)
            grep = ["grep", "-c", "preempted", str(log)]
            tool = [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(evidence), "--format", "json"]
            before = Path(args.before).resolve() if args.before else None
            timed(grep), timed(tool)  # page cache, bytecode
            if before:
                timed(tool, before)
            g, d, b, rss = [], [], [], 0.0
            report = b""
            for _ in range(args.runs):  # interleaved: machine noise hits both alike
                wall, _, out = timed(grep)
                g.append(wall)
                if int(out.strip() or 0) != made["preemption_warnings"]:
                    print("MISMATCH: grep's count", file=sys.stderr)
                    ok = False
                wall, peak, report = timed(tool)
                d.append(wall)
                rss = max(rss, peak)
                if before:
                    b.append(timed(tool, before)[0])
            if b:
                print(f"{density * 100:g} %: before ({before}): diagnose {statistics.median(b):.2f} s, "
                      f"ratio {statistics.median(b) / statistics.median(g):.2f}", flush=True)
            examined = json.loads(report)["targets"][0]["examined"] if report else []
            if f"vLLM log vllm.log ({made['lines']:,} lines)" not in examined:
                print(f"MISMATCH: diagnose examined {examined}, {made['lines']:,} lines were written", file=sys.stderr)
                ok = False
            mg, md = statistics.median(g), statistics.median(d)
            ratio = md / mg
            target = TARGETS.get(density)
            mb = statistics.median(b) if b else None
            rows.append((density, mg, md, ratio, rss, target, mb))
            print(f"{density * 100:g} %: grep -c {mg:.2f} s, diagnose {md:.2f} s: ratio {ratio:.2f}"
                  f"{f' (target <= {target:g})' if target else ''}; diagnose peak RSS {rss:.0f} MB", flush=True)
            if (target and ratio > target) or rss >= TARGET_RSS_MB:
                ok = False
        finally:
            shutil.rmtree(work, ignore_errors=True)
    extra = f" {'before s':>9} {'ratio':>6}" if args.before else ""
    print(f"\n{'density':>8} {'grep -c s':>10} {'diagnose s':>11} {'ratio':>6} {'target':>7} {'RSS MB':>7}{extra}")
    for density, mg, md, ratio, rss, target, mb in rows:
        before_cols = f" {mb:9.2f} {mb / mg:6.2f}" if mb is not None else ""
        print(f"{density * 100:7g}% {mg:10.2f} {md:11.2f} {ratio:6.2f} {target or '-':>7} {rss:7.0f}{before_cols}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"medians of {args.runs} interleaved runs, {args.size_mb} MiB logs; RSS target < {TARGET_RSS_MB:g} MB "
          f"(this bench's own peak: {own:.0f} MB)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
