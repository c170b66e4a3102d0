"""Benchmark: paste repair of a large wrapped log, in a child process: wall and CPU seconds,
ms per MiB, peak RSS (the child's rusage, from wait4).

The log is bench/ollama_log_gen.py's journal (journalctl short prefixes) as a terminal copies
it: every line cut at `--width` columns. The child repairs it the way an evidence directory's
log is repaired, into a copy on disk: with repair_log_stream where the tree has it (a stream),
else with f0cfd44's repair_log over the whole decoded file (`--tree` an export of an earlier
commit gives the before). Issue 28's goal: peak RSS <= 64 MiB whatever the size.
`--check-mb N` makes the child fail when its peak RSS passes N MiB (a bench, not a timed test).
The machine may be shared: compare runs of one invocation only.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import io, sys
from pathlib import Path
from llmdoctor.knowledge import pasted
src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as f:
    encoding = pasted.pasted_encoding(f.read(4))
def lines():
    with open(src, "rb") as raw:
        yield from io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
with open(dst, "w", encoding="utf-8") as out:
    if hasattr(pasted, "repair_log_stream"):
        r = pasted.repair_log_stream(lines, out.write)
    else:
        r = pasted.repair_log(pasted.decode_pasted(Path(src).read_bytes()))
        out.write(r.text)
print(r.prefixes, r.joined, r.split, r.fragments)
"""


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wrap_file(src: Path, dst: Path, width: int) -> int:
    """Every line of `src` cut at `width` columns, as a terminal's copy does; the lines written."""
    n = 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            line = line.rstrip("\n")
            for i in range(0, max(1, len(line)), width):
                out.write(line[i:i + width] + "\n")
                n += 1
    return n


def run_child(tree: Path, log: Path, out: Path) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, what the child printed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(log), str(out)], stdout=subprocess.PIPE, cwd=tree, env=env)
    printed = proc.stdout.read().decode(errors="replace").strip()
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"the repair failed (status {status})")
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, printed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, action="append", help="log sizes (repeatable; default 64)")
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--tree", action="append", help="llmdoctor checkouts to time (repeatable; default this one)")
    ap.add_argument("--dir", default=None, help="where to write the logs (default: the temporary directory)")
    ap.add_argument("--check-mb", type=float, default=None, help="fail when a peak RSS passes this many MiB")
    args = ap.parse_args()
    trees = [Path(t).resolve() for t in args.tree] if args.tree else [ROOT]
    gen = _module("ollama_log_gen")
    work = Path(tempfile.mkdtemp(prefix="llmdoctor-paste-", dir=args.dir))
    failed = False
    try:
        for size in args.size_mb or [64]:
            plain, log, out = work / "plain.log", work / "wrapped.log", work / "repaired.log"
            gen.generate(plain, size * 2**20, style="short")
            lines = wrap_file(plain, log, args.width)
            plain.unlink()
            mib = log.stat().st_size / 2**20
            for tree in trees:
                wall, cpu, rss, printed = run_child(tree, log, out)
                out.unlink()
                print(f"{tree.name}: {mib:.0f} MiB wrapped at {args.width} ({lines:,} lines): {wall:.1f} s "
                      f"({cpu:.1f} CPU), {cpu * 1000 / mib:.0f} ms/MiB CPU, peak RSS {rss:.0f} MiB; {printed}; "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
                if args.check_mb is not None and rss > args.check_mb:
                    print(f"  peak RSS {rss:.0f} MiB > {args.check_mb:.0f} MiB", flush=True)
                    failed = True
            log.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
