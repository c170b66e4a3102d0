"""Benchmark: the whole `llmdoctor diagnose --evidence DIR` process on a generated Ollama journal
against `grep -c 'GIN]' FILE` on the same file, at three `[GIN]` densities (0.5 %, 5 %, 20 % of the
lines), idle or beside `--hogs N` bounded CPU hogs.

bench/ollama_log_gen.py writes realistic journal lines (journalctl short-iso prefixes, gin lines,
the DEBUG lines a request leaves, a restart and model load now and then): 64 MiB by default,
`--size-mb 1024` for 1 GiB (not to be run over and over on a shared machine), or `--lines N` for a
journal of N lines (issue 29: `--lines 10000000 --density 1` is a busy server's day of gin lines).
The two commands run interleaved `--runs` times (the file in the page cache, grep writing to a
pipe: to /dev/null it would stop at the first match); printed: medians of wall and CPU seconds
(the child's rusage), their ratio to grep's, ms per MiB and per million lines, and diagnose's peak
RSS. Checks that diagnose read every line ("examined" in --format json). The compiled word matcher
(`hyperscan` on Linux x86-64, else `ahocorasick-rs`: dependencies) decides the path: run with it installed, or point
`--site DIR` at a directory that holds it. `--baseline DIR` times a second checkout too (an export
of an earlier commit), interleaved with the first, for a before/after taken in one run: on a shared
machine only such ratios mean anything. Also printed, the floor of this design (FLOOR: start-up, the
reading, the newline count and the word pass, no line parsed), against grep. Targets (issue 28/29): 1 GiB <= 3x grep idle, 10M lines
< 30 s, peak RSS <= 64 MiB. Exits 1 when a cross-check fails.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DENSITIES = (0.005, 0.05, 0.2)
# The floor of this design, no line parsed: what a process pays to read the journal as the
# scanner does (regions of whole lines, each copied once), count its newlines and run the word
# pass (knowledge.wordscan, its words alone: not even the gin lines are found) over it. Added to diagnose's start-up (an empty journal), it is what
# no change to the per-line reading can go below.
FLOOR = """import sys
from llmdoctor.hosts.logs.files import FileSource
from llmdoctor.knowledge.ollama.log import _word_scan
words, n = _word_scan(), 0
for buf, begin, end in FileSource(sys.argv[1], engine="ollama", since_seconds=None).raw_regions():
    data = bytes(memoryview(buf)[begin:end])
    n += data.count(b"\\n")
    words.starts(data)
print(n)
"""
HOG = "import time\nend = time.time() + {s}\nwhile time.time() < end:\n    sum(range(10000))\n"


def _gen():
    spec = importlib.util.spec_from_file_location("ollama_log_gen", ROOT / "bench" / "ollama_log_gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(argv: list[str], env: dict) -> tuple[float, float, float, bytes]:
    """(wall s, CPU s, peak RSS MB, stdout) of one run; stdout is a pipe."""
    t = time.perf_counter()
    tree = env["PYTHONPATH"].split(os.pathsep)[0]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tree, env=env)
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=64)
    ap.add_argument("--lines", type=int, default=None, help="a journal of this many lines instead of --size-mb")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--density", type=float, action="append", help="gin share of the lines (repeatable)")
    ap.add_argument("--polls", type=float, help="share of the gin lines that poll GET /api/tags (a web UI), the rest "
                    "inference requests (default: one gin line in six polls)")
    ap.add_argument("--hogs", type=int, default=0, help="bounded CPU hogs running beside both commands")
    ap.add_argument("--site", default=None, help="a directory put on PYTHONPATH (e.g. one holding ahocorasick_rs)")
    ap.add_argument("--dir", default=None, help="where to write the logs (default: the temporary directory)")
    ap.add_argument("--tree", default=None, help="the llmdoctor checkout to time (default: this one; e.g. an "
                                                 "export of an earlier commit, for a before/after)")
    ap.add_argument("--baseline", default=None, help="a second checkout timed interleaved with --tree (before/after "
                                                     "in one run)")
    args = ap.parse_args()
    tree = Path(args.tree).resolve() if args.tree else ROOT
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join(p for p in (str(tree), args.site) if p))
    base_env = None
    if args.baseline:
        base_env = dict(env, PYTHONPATH=os.pathsep.join(p for p in (str(Path(args.baseline).resolve()), args.site) if p))
    probe = subprocess.run([sys.executable, "-c", "from llmdoctor.knowledge import wordscan as w; print(getattr(w, 'installed', w.available)())"],
                           capture_output=True, text=True, env=env, cwd=tree)
    print(f"tree {tree}; compiled matchers: {probe.stdout.strip() or 'none (no wordscan)'}; load average {os.getloadavg()[0]:.1f}; hogs {args.hogs}",
          flush=True)
    gen = _gen()
    ok, rows = True, []
    for density in args.density or DENSITIES:
        work = Path(tempfile.mkdtemp(prefix="llmdoctor-bench-", dir=args.dir))
        hogs = []
        try:
            evidence = work / "evidence"
            evidence.mkdir()
            log = evidence / "journal.log"
            t = time.perf_counter()
            made = gen.generate(log, None if args.lines else args.size_mb * 2**20, density=density, lines=args.lines,
                                polls=args.polls)
            mib = made["bytes"] / 2**20
            print(f"{density * 100:g} %: generated {mib:.0f} MiB, {made['lines']:,} lines ({made['gin']:,} gin) in "
                  f"{time.perf_counter() - t:.0f} s", flush=True)
            grep = ["grep", "-c", "GIN]", str(log)]
            tool = [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(evidence), "--format", "json"]
            (work / "empty").mkdir()
            (work / "empty" / "journal.log").write_bytes(b"")
            start_up = tool[:4] + [str(work / "empty")] + tool[5:]
            floor, bare = [sys.executable, "-c", FLOOR, str(log)], [sys.executable, "-c", "pass"]
            hogs = [subprocess.Popen([sys.executable, "-c", HOG.format(s=3600)]) for _ in range(args.hogs)]
            timed(grep, env), timed(tool, env)  # page cache, bytecode
            if base_env:
                timed(tool, base_env)
            g, gc, d, dc, rss = [], [], [], [], 0.0
            fl = []  # start-up + the pass - a bare interpreter's start
            b, bc, brss = [], [], 0.0
            report = b""
            for _ in range(args.runs):  # interleaved: machine noise hits both alike
                wall, cpu, _, out = timed(grep, env)
                g.append(wall), gc.append(cpu)
                if int(out.strip() or 0) != made["gin"]:
                    print("MISMATCH: grep's count", file=sys.stderr)
                    ok = False
                wall, cpu, peak, report = timed(tool, env)
                d.append(wall), dc.append(cpu)
                rss = max(rss, peak)
                fl.append(timed(start_up, env)[0] + timed(floor, env)[0] - timed(bare, env)[0])
                if base_env:
                    wall, cpu, peak, before = timed(tool, base_env)
                    b.append(wall), bc.append(cpu)
                    brss = max(brss, peak)
                    if json.loads(before)["targets"][0]["findings"] != json.loads(report)["targets"][0]["findings"]:
                        print("MISMATCH: the baseline's findings differ", file=sys.stderr)
                        ok = False
            examined = json.loads(report)["targets"][0]["examined"] if report else []
            if not any(f"({made['lines']:,} lines)" in e or f"({made['lines'] + 1:,} lines)" in e for e in examined):
                print(f"MISMATCH: diagnose examined {examined}, {made['lines']:,} lines were written", file=sys.stderr)
                ok = False
            row = (density, mib, made["lines"], statistics.median(g), statistics.median(gc), statistics.median(d),
                   statistics.median(dc), rss)
            rows.append(row)
            print(f"{density * 100:g} %: grep -c {row[3]:.2f} s ({row[4]:.2f} CPU), diagnose {row[5]:.2f} s "
                  f"({row[6]:.2f} CPU): wall ratio {row[5] / row[3]:.2f}, CPU ratio {row[6] / max(row[4], 1e-3):.2f}; "
                  f"{row[5] * 1000 / mib:.1f} ms/MiB, {row[5] / made['lines'] * 1e6:.2f} s per million lines; "
                  f"peak RSS {rss:.0f} MB", flush=True)
            print(f"{density * 100:g} %: floor (start-up, read, newline count and word pass; no line parsed) "
                  f"{statistics.median(fl):.2f} s: {statistics.median(fl) / row[3]:.2f}x grep", flush=True)
            if base_env:
                mb, mbc = statistics.median(b), statistics.median(bc)
                print(f"{density * 100:g} %: baseline {mb:.2f} s ({mbc:.2f} CPU): wall ratio to grep {mb / row[3]:.2f}, "
                      f"CPU ratio {mbc / max(row[4], 1e-3):.2f}; {mb * 1000 / mib:.1f} ms/MiB, "
                      f"{mb / made['lines'] * 1e6:.2f} s per million lines; peak RSS {brss:.0f} MB; "
                      f"this tree / baseline: wall {row[5] / mb:.2f}, CPU {row[6] / max(mbc, 1e-3):.2f}", flush=True)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'density':>8} {'MiB':>6} {'lines':>11} {'grep s':>7} {'diag s':>7} {'wall x':>7} {'CPU x':>6} "
          f"{'ms/MiB':>7} {'s/Mline':>8} {'RSS MB':>7}")
    for density, mib, lines, mg, mgc, md, mdc, rss in rows:
        print(f"{density * 100:7g}% {mib:6.0f} {lines:11,} {mg:7.2f} {md:7.2f} {md / mg:7.2f} {mdc / max(mgc, 1e-3):6.2f} "
              f"{md * 1000 / mib:7.1f} {md / lines * 1e6:8.2f} {rss:7.0f}")
    print(f"medians of {args.runs} interleaved runs, hogs {args.hogs}; machine shared (load average "
          f"{os.getloadavg()[0]:.1f} now): compare the ratios, taken in the same run")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
