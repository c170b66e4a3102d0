"""Benchmark: the whole `llmdoctor diagnose --evidence DIR` process against `grep -c` on the same
generated engine log (vLLM, SGLang), at 0.5, 5 and 20 % dense lines (the periodic stats lines),
idle and beside bounded CPU hogs.

For each engine and density the log is generated (bench/vllm_log_gen.py, bench/sglang_log_gen.py:
the engines' real line formats; 64 MiB by default, `--gib` for 1 GiB, `--size-mb N` for any size),
then for each load (`--hogs 0,2`: idle, then beside two busy loops, each bounded in time and
killed at the end) the two commands run interleaved `--runs` times (the file in the page cache;
grep writes its count to a pipe, as it is read: to /dev/null it would stop at the first match).
Printed per row: the medians of wall time and of CPU time (user + system, from each child's
rusage), their ratios to grep's from the same run, ms per MiB of both (so growth with size is
visible), and the peak RSS of the diagnose process (os.wait4; Linux keeps the larger of it and
the spawning process's, so the bench's own peak is printed too). Cross-checks: grep counted the
lines it should, and diagnose read every line (`--format json`, its "examined" list).

Targets (issue 28, for 1 GiB): vLLM at 5 %: <= 2x grep idle and <= 3x beside two hogs; at 20 %:
<= 4x. At 64 MiB the process's start-up (about 0.3 s) weighs on the ratios: they are printed,
not judged. Exit 1 on a failed cross-check (or a missed target at 1 GiB with `--strict`).
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
TARGETS = {("vllm", 0.05, 0): 2.0, ("vllm", 0.05, 2): 3.0, ("vllm", 0.2, 0): 4.0, ("vllm", 0.2, 2): 4.0}
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc cached, as installed
ENV.update(NO_COLOR="1", PYTHONPATH=str(ROOT))
# engine: (generator module, log file name in the evidence directory, what grep counts, the
# generator's count of it, the words of diagnose's "examined" entry)
ENGINES = {
    "vllm": ("vllm_log_gen", "vllm.log", "preempted", "preemption_warnings", "vLLM log vllm.log"),
    "sglang": ("sglang_log_gen", "sglang.log", "retracted", "retractions", "SGLang log sglang.log"),
}
HOG = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    pass\n"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(argv: list[str], root: Path = ROOT) -> tuple[float, float, float, bytes]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one run; stdout is a pipe."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root,
                            env=dict(ENV, PYTHONPATH=str(root)))
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out


class Hogs:
    """`n` busy loops beside the measured commands, each ending by itself after `limit` seconds
    (bounded even if this bench dies) and killed when the block ends."""

    def __init__(self, n: int, limit: float) -> None:
        self.n, self.limit, self.procs = n, limit, []

    def __enter__(self) -> "Hogs":
        code = HOG.format(limit=self.limit)
        self.procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(self.n)]
        time.sleep(0.2 if self.n else 0)  # let them take their cores
        return self

    def __exit__(self, *exc) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=int(os.environ.get("LLMDOCTOR_BENCH_MB", "64")))
    ap.add_argument("--gib", action="store_true", help="1 GiB logs (slow: not for a shared machine's every run)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--density", type=float, action="append", help="dense share of the lines (repeatable)")
    ap.add_argument("--engine", action="append", choices=sorted(ENGINES), help="default: all")
    ap.add_argument("--hogs", default="0,2", help="loads to run beside, comma-separated counts of busy loops")
    ap.add_argument("--hog-limit", type=float, default=600.0, help="seconds after which a hog ends by itself")
    ap.add_argument("--dir", default=None, help="where to write the logs (default: the temporary directory)")
    ap.add_argument("--before", default=None, help="another llmdoctor checkout (e.g. main), timed interleaved with "
                                                   "this one: a before/after in the same run")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a 1 GiB target is missed")
    args = ap.parse_args()
    if not shutil.which("grep"):
        print("grep not found", file=sys.stderr)
        return 3
    size_mb = 1024 if args.gib else args.size_mb
    loads = [int(x) for x in args.hogs.split(",") if x.strip()]
    ok, rows, befores = True, [], []
    for engine in args.engine or sorted(ENGINES):
        gen_name, file_name, word, count_key, examined_words = ENGINES[engine]
        gen = _module(gen_name)
        for density in args.density or DENSITIES:
            work = Path(tempfile.mkdtemp(prefix="llmdoctor-bench-", dir=args.dir))
            try:
                evidence = work / "evidence"
                evidence.mkdir()
                log = evidence / file_name
                t = time.perf_counter()
                made = gen.generate(log, size_mb * 2**20, density=density)
                mib = made["bytes"] / 2**20
                print(f"{engine} {density * 100:g} %: generated {mib:.0f} MiB in {time.perf_counter() - t:.0f} s "
                      f"({made['stats_lines']} dense lines of {made['lines']})", flush=True)
                grep = ["grep", "-c", word, str(log)]
                tool = [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(evidence), "--format", "json"]
                before = Path(args.before).resolve() if args.before else None
                timed(grep), timed(tool)  # page cache, bytecode
                if before:
                    timed(tool, before)
                for hogs in loads:
                    g, d, b, rss, report = [], [], [], 0.0, b""
                    with Hogs(hogs, args.hog_limit):
                        for _ in range(args.runs):  # interleaved: machine noise hits both alike
                            wall, cpu, _, out = timed(grep)
                            g.append((wall, cpu))
                            if int(out.strip() or 0) != made[count_key]:
                                print(f"MISMATCH: grep counted {out.strip()!r}, {made[count_key]} written",
                                      file=sys.stderr)
                                ok = False
                            wall, cpu, peak, report = timed(tool)
                            d.append((wall, cpu))
                            rss = max(rss, peak)
                            if before:
                                b.append(timed(tool, before)[:2])
                    examined = json.loads(report)["targets"][0]["examined"] if report else []
                    if f"{examined_words} ({made['lines']:,} lines)" not in examined:
                        print(f"MISMATCH: diagnose examined {examined}, {made['lines']:,} lines were written",
                              file=sys.stderr)
                        ok = False
                    gw, gc = (statistics.median(x[i] for x in g) for i in (0, 1))
                    dw, dc = (statistics.median(x[i] for x in d) for i in (0, 1))
                    target = TARGETS.get((engine, density, hogs))
                    row = (engine, density, hogs, mib, gw, dw, dw / gw, gc, dc, dc / max(gc, 1e-3), rss, target)
                    rows.append(row)
                    print(_line(row), flush=True)
                    if b:
                        bw, bc = (statistics.median(x[i] for x in b) for i in (0, 1))
                        print(f"    before ({before}): diagnose {bw:.3f} s ({bc:.3f} s CPU): wall ratio {bw / gw:.2f}, "
                              f"CPU ratio {bc / max(gc, 1e-3):.2f}, {bw * 1000 / mib:.2f} ms/MiB", flush=True)
                        befores.append((engine, density, hogs, bw / gw, bc / max(gc, 1e-3)))
                    if args.strict and size_mb >= 1024 and target and dw / gw > target:
                        ok = False
            finally:
                shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'engine':<7} {'dense':>6} {'hogs':>4} {'MiB':>5} {'grep s':>7} {'diag s':>7} {'ratio':>6} "
          f"{'grep cpu':>8} {'diag cpu':>8} {'ratio':>6} {'grep ms/MiB':>11} {'diag ms/MiB':>11} {'RSS MiB':>7} "
          f"{'target':>6}")
    for r in rows:
        engine, density, hogs, mib, gw, dw, ratio, gc, dc, cratio, rss, target = r
        print(f"{engine:<7} {density * 100:5g}% {hogs:4d} {mib:5.0f} {gw:7.3f} {dw:7.3f} {ratio:6.2f} {gc:8.3f} "
              f"{dc:8.3f} {cratio:6.2f} {gw * 1000 / mib:11.2f} {dw * 1000 / mib:11.2f} {rss:7.0f} "
              f"{target or '-':>6}")
    for engine, density, hogs, wr, cr in befores:
        print(f"before: {engine} {density * 100:g} % beside {hogs} hog(s): wall ratio {wr:.2f}, CPU ratio {cr:.2f}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"medians of {args.runs} interleaved runs; ratios to grep -c (to a pipe) in the same run; targets are "
          f"for 1 GiB (this bench's own peak RSS: {own:.0f} MiB; load average now {os.getloadavg()[0]:.1f})")
    return 0 if ok else 1


def _line(row) -> str:
    engine, density, hogs, mib, gw, dw, ratio, gc, dc, cratio, rss, target = row
    return (f"{engine} {density * 100:g} % beside {hogs} hog(s): grep -c {gw:.3f} s ({gc:.3f} s CPU), diagnose "
            f"{dw:.3f} s ({dc:.3f} s CPU): wall ratio {ratio:.2f}{f' (target <= {target:g} at 1 GiB)' if target else ''}, "
            f"CPU ratio {cratio:.2f}, {dw * 1000 / mib:.2f} ms/MiB; peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
