"""Benchmark: `llmdoctor diagnose --evidence TICKET.txt` on one pasted support ticket (a user's
message: prose, a code fence, `$ ollama ps`, `$ journalctl -u ollama` with a long journal pasted
under it, `$ systemctl show`), against `grep -c 'GIN]'` on the same file, idle or beside `--hogs N`
bounded CPU hogs: wall and CPU seconds (the child's rusage), ms per MiB, peak RSS.

The journal is bench/ollama_log_gen.py's (journalctl short prefixes, gin lines at `--density`).
Default 100 MiB (`--size-mb`); targets (issue 28): a 100 MiB ticket <= 10 s, peak RSS <= 128 MiB.
The machine may be shared: compare the ratio to grep, taken in the same run.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAD = """Hi, ollama is slow when my team uses it. Here is what I have:

```
user@gpu01:~$ ollama ps
NAME          ID              SIZE      PROCESSOR          CONTEXT    UNTIL
mistral:7b    6577803aa9a0    8.3 GB    13%/87% CPU/GPU    16384      4 minutes from now
user@gpu01:~$ systemctl show ollama -p Environment
Environment="OLLAMA_NUM_PARALLEL=1" "OLLAMA_HOST=0.0.0.0"
user@gpu01:~$ sudo journalctl -u ollama --no-pager
"""
TAIL = "```\nThanks!\n"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--density", type=float, default=0.05)
    ap.add_argument("--hogs", type=int, default=0)
    ap.add_argument("--site", default=None, help="a directory put on PYTHONPATH (e.g. one holding ahocorasick_rs)")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--tree", default=None, help="the llmdoctor checkout to time (default: this one)")
    args = ap.parse_args()
    tree = Path(args.tree).resolve() if args.tree else ROOT
    scan = _module("ollama_log_scan")
    gen = _module("ollama_log_gen")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join(p for p in (str(tree), args.site) if p))
    work = Path(tempfile.mkdtemp(prefix="llmdoctor-ticket-", dir=args.dir))
    hogs = []
    try:
        journal = work / "journal.part"
        made = gen.generate(journal, args.size_mb * 2**20, density=args.density, style="short")
        ticket = work / "ticket.txt"
        with open(ticket, "wb") as out:
            out.write(HEAD.encode())
            with open(journal, "rb") as f:
                shutil.copyfileobj(f, out)
            out.write(TAIL.encode())
        journal.unlink()
        mib = ticket.stat().st_size / 2**20
        print(f"tree {tree}; ticket of {mib:.0f} MiB, {made['lines']:,} journal lines ({made['gin']:,} gin); load average "
              f"{os.getloadavg()[0]:.1f}; hogs {args.hogs}", flush=True)
        grep = ["grep", "-c", "GIN]", str(ticket)]
        tool = [sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(ticket), "--format", "json"]
        hogs = [subprocess.Popen([sys.executable, "-c", scan.HOG.format(s=3600)]) for _ in range(args.hogs)]
        scan.timed(grep, env)
        g, gc, d, dc, rss = [], [], [], [], 0.0
        for _ in range(args.runs):
            wall, cpu, _, _ = scan.timed(grep, env)
            g.append(wall), gc.append(cpu)
            wall, cpu, peak, _ = scan.timed(tool, env)
            d.append(wall), dc.append(cpu)
            rss = max(rss, peak)
        mg, md = statistics.median(g), statistics.median(d)
        print(f"grep -c {mg:.2f} s ({statistics.median(gc):.2f} CPU); diagnose {md:.2f} s ({statistics.median(dc):.2f} "
              f"CPU): ratio {md / mg:.1f}, {md * 1000 / mib:.1f} ms/MiB, peak RSS {rss:.0f} MB "
              f"(targets: 100 MiB <= 10 s, <= 128 MB); medians of {args.runs}")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
