#!/usr/bin/env python3
"""Footprint of `llmdoctor exporter` after 100 collection cycles on evidence.

Starts the real exporter process (`--interval 50ms`, so cycles run back to back),
scrapes /metrics throughout, and once `llmdoctor_runs_total` reaches the cycle
count reports:
  - exporter RSS (target <= 60 MB),
  - scrape latency p50/p95 while cycles run and when idle (target p95 <= 10 ms),
  - CPU time per cycle without a probe, start-up excluded (target <= 0.2 s).
Usage: bench/exporter_footprint.py [--cycles N] [--evidence DIR]
Exit status 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
TARGET_RSS_MB, TARGET_P95_MS, TARGET_CPU_S = 60.0, 10.0, 0.2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(url: str) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=5) as r:
        body = r.read()
    return time.perf_counter() - t0, body


def runs(body: bytes) -> int:
    m = re.search(rb"^llmdoctor_runs_total(?:\{[^}]*\})? ([0-9.e+]+)$", body, re.M)
    return int(float(m.group(1))) if m else 0


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[max(0, min(len(values) - 1, round(q / 100 * len(values)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=100)
    ap.add_argument("--evidence", default=None, help="evidence directory (default: the largest fixture)")
    ap.add_argument("--timeout", type=float, default=300.0, help="give up after this many seconds")
    args = ap.parse_args()
    evidence = args.evidence
    if evidence is None:
        dirs = sorted((ROOT / "tests/fixtures/evidence").glob("*/"),
                      key=lambda d: -sum(f.stat().st_size for f in d.rglob("*") if f.is_file()))
        evidence = str(dirs[0]) if dirs else str(ROOT / "tests/exporter/fixtures/evidence-vllm")
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "llmdoctor", "exporter", "--evidence", evidence,
                             "--listen", f"127.0.0.1:{port}", "--interval", "50ms"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ps = psutil.Process(proc.pid)
    deadline = time.monotonic() + args.timeout
    busy: list[float] = []
    try:
        body, cpu0, runs0 = b"", None, 0
        while time.monotonic() < deadline:  # first completed run: start-up is over
            try:
                _, body = scrape(url)
            except OSError:
                time.sleep(0.05)
                continue
            if runs(body) >= 1:
                t = ps.cpu_times()
                cpu0, runs0 = t.user + t.system, runs(body)
                break
            time.sleep(0.01)
        if cpu0 is None:
            print(f"exporter did not complete a run within {args.timeout:g} s", file=sys.stderr)
            return 1
        startup_rss = ps.memory_info().rss
        n = runs0
        while n < runs0 + args.cycles and time.monotonic() < deadline:
            latency, body = scrape(url)
            busy.append(latency)
            n = runs(body)
            time.sleep(0.005)
        t = ps.cpu_times()
        cycles = n - runs0
        cpu_per_cycle = (t.user + t.system - cpu0) / max(cycles, 1)
        rss = ps.memory_info().rss
        # Scrapes during which no cycle completed: closer to a real exporter, which
        # sleeps for most of its interval.
        idle = []
        for _ in range(100):
            before = runs(scrape(url)[1])
            latency, body = scrape(url)
            if runs(body) == before:
                idle.append(latency)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait(15)
    ok = True
    print(f"evidence: {evidence}")
    print(f"cycles measured: {cycles} (after the first run; {len(busy)} scrapes during them)")
    print(f"exporter RSS: {rss / 2**20:.1f} MB after {cycles} cycles ({startup_rss / 2**20:.1f} MB after the first)"
          f"  [target <= {TARGET_RSS_MB:g} MB]")
    ok &= rss / 2**20 <= TARGET_RSS_MB
    p95_busy = pct(busy, 95) * 1000
    print(f"scrape latency while cycles run: p50 {statistics.median(busy) * 1000:.2f} ms, p95 {p95_busy:.2f} ms"
          f"  [target p95 <= {TARGET_P95_MS:g} ms]")
    ok &= p95_busy <= TARGET_P95_MS
    if idle:
        print(f"scrape latency between cycles: p50 {statistics.median(idle) * 1000:.2f} ms, "
              f"p95 {pct(idle, 95) * 1000:.2f} ms ({len(idle)} scrapes)")
    print(f"CPU time per cycle (no probe): {cpu_per_cycle * 1000:.1f} ms  [target <= {TARGET_CPU_S * 1000:g} ms]")
    ok &= cpu_per_cycle <= TARGET_CPU_S and cycles >= args.cycles
    print(f"exporter exit status on SIGTERM: {rc}")
    ok &= rc == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
