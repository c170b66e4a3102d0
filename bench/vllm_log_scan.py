"""Benchmark: the full vLLM log scan vs `grep -c preempted` on the same generated log.

Generates a vLLM log (default 1 GiB; `--size-mb N` or LLMDOCTOR_BENCH_MB=N for a quick run)
in a temporary directory: V1 stats lines every ~10 s of traffic, uvicorn access lines,
"Received request" lines with prompts, KV start-up lines at each of a few restarts, and
about 0.1 % V0 preemption warnings. Then, in the same run:

1. `grep -c preempted` (twice; the faster run counts; the file is in the page cache),
2. the full scan (preemptions, stats lines, KV lines) in a child process (twice, the faster
   counts) straight from the file (VllmLogScanner.scan_stream: one reused 8 MiB buffer);
   peak RSS from the rusage of that child (os.wait4, the per-child form of getrusage),
3. the same scan the way the `vllm_log` fact runs it today, through llmdoctor.hosts.logs.FileSource
   (its decoded text blocks, or raw_blocks() once logs.py offers them), recording its position
   in a ResumeState,
4. append ~1 % more log and scan again with the same ResumeState: it must read only the
   appended bytes.

Prints the throughput ratio (target >= 0.5) and peak RSS (target < 100 MB) and exits 1 when
a target or a cross-check (warnings counted == grep's count) fails.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PREEMPT = ("WARNING {ts} scheduler.py:1089] Sequence group chat-{rid:032x} is preempted by PreemptionMode.{mode} "
           "mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase "
           "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
           "total_num_cumulative_preemption={n}")
STATS = ("(APIServer pid={pid}) INFO {ts} [loggers.py:259] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
         "Avg generation throughput: {gt:.1f} tokens/s, Running: {r} reqs, Waiting: {w} reqs, "
         "GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {ph:.1f}%")
ACCESS = '(APIServer pid={pid}) INFO:     10.{a}.{b}.{c}:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'
METRICS = '(APIServer pid={pid}) INFO:     10.109.20.86:{port} - "GET /metrics HTTP/1.1" 200 OK'
RECEIVED = ("(APIServer pid={pid}) INFO {ts} [logger.py:43] Received request chatcmpl-{rid:032x}: prompt: '{prompt}', "
            "params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, "
            "temperature=0.7, top_p=0.95, top_k=-1, min_p=0.0, seed=None, stop=[], max_tokens={mt}), "
            "prompt_token_ids: None, lora_request: None.")
STARTUP = [
    "(EngineCore_DP0 pid={pid}) INFO {ts} [gpu_worker.py:298] Available KV cache memory: 6.51 GiB",
    "(EngineCore_DP0 pid={pid}) INFO {ts} [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens",
    "(EngineCore_DP0 pid={pid}) INFO {ts} [kv_cache_utils.py:868] Maximum concurrency for 32,768 tokens per request: 1.30x",
]
PREEMPT_SHARE = 0.0012  # of all lines: about 0.1 % preemption warnings
WORDS = ("you are a helpful assistant answer the question below using the context provided summarize "
         "the following document in three bullet points translate into french explain step by step").split()


def generate(path: Path, size: int, seed: int = 7) -> dict:
    """Write about `size` bytes of log; return what was written (counts for cross-checks)."""
    rnd = random.Random(seed)
    prompts = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(20, 160))) for _ in range(200)]
    written = preempts = stats = 0
    cumulative = 0
    minute = 0
    with open(path, "w") as f:
        batch: list[str] = []
        pid = 851
        while written < size:
            minute += 1
            ts = f"04-28 {minute // 3600 % 24:02d}:{minute // 60 % 60:02d}:{minute % 60:02d}"
            if minute % 20000 == 1:  # a restart: new process, KV start-up lines
                pid += 1
                cumulative = 0
                batch += [s.format(pid=pid, ts=ts) for s in STARTUP]
            for _ in range(rnd.randint(20, 40)):
                k = rnd.random()
                if k < PREEMPT_SHARE:
                    cumulative += 1
                    batch.append(PREEMPT.format(ts=ts, rid=rnd.getrandbits(128), mode=rnd.choice(("RECOMPUTE", "SWAP")),
                                                n=cumulative * 50 - 49))
                    preempts += 1
                elif k < 0.25:
                    batch.append(RECEIVED.format(pid=pid, ts=ts, rid=rnd.getrandbits(128), prompt=rnd.choice(prompts),
                                                 mt=rnd.choice((256, 512, 1024))))
                elif k < 0.30:
                    batch.append(METRICS.format(pid=pid, port=rnd.randint(30000, 60000)))
                else:
                    batch.append(ACCESS.format(pid=pid, a=rnd.randint(0, 255), b=rnd.randint(0, 255),
                                               c=rnd.randint(0, 255), port=rnd.randint(30000, 60000)))
            w = max(0, int(rnd.gauss(2, 4)))
            batch.append(STATS.format(pid=pid, ts=ts, pt=rnd.uniform(0, 3000), gt=rnd.uniform(50, 900),
                                      r=rnd.randint(1, 64), w=w, kv=rnd.uniform(20, 99.9), ph=rnd.uniform(0, 90)))
            stats += 1
            if len(batch) > 4000:
                text = "\n".join(batch) + "\n"
                f.write(text)
                written += len(text)
                batch = []
        if batch:
            text = "\n".join(batch) + "\n"
            f.write(text)
            written += len(text)
    return {"bytes": written, "preemption_warnings": preempts, "stats_lines": stats}


def child_scan(path: str, state: str, mode: str) -> None:
    """Runs in a child process so that its peak RSS is its own."""
    from llmdoctor.knowledge.vllm.log import VllmLogScanner
    from llmdoctor.hosts.logs import FileSource, ResumeState

    from llmdoctor.facts.vllm import scan_source

    start = time.perf_counter()
    if mode == "binary":  # VllmLogScanner.scan_stream
        with open(path, "rb") as f:
            r = VllmLogScanner(os.path.basename(path)).scan_stream(f).result()
        read = os.path.getsize(path)
    else:  # exactly what the vllm_log fact runs
        source = FileSource(path, since_seconds=None, state=ResumeState(state))
        r = scan_source(source)
        read = source._reached - source._range[0] if source._range else 0
    print(json.dumps({"seconds": time.perf_counter() - start, "read": read,
                      "preemption_warnings": r.preemption_warnings, "stats_lines": r.stats_lines,
                      "max_concurrency": r.kv_capacity.max_concurrency if r.kv_capacity else None,
                      "startups": r.startups}))


def run_child(path: Path, state: Path, mode: str) -> tuple[dict, float, float]:
    """(child's report, wall seconds including start-up, peak RSS in MB)."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(path), str(state), mode],
                            stdout=subprocess.PIPE, cwd=ROOT)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"child scan failed with {proc.returncode}")
    return json.loads(out), wall, usage.ru_maxrss / 1024.0  # ru_maxrss is KiB on Linux


def grep_count(path: Path) -> tuple[int, float]:
    best, count = float("inf"), 0
    for _ in range(2):
        t = time.perf_counter()
        res = subprocess.run(["grep", "-c", "preempted", str(path)], capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - t)
        count = int(res.stdout.strip() or 0)
    return count, best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=int(os.environ.get("LLMDOCTOR_BENCH_MB", "1024")))
    ap.add_argument("--keep", action="store_true", help="keep the generated log")
    args = ap.parse_args()
    if not shutil.which("grep"):
        print("grep not found", file=sys.stderr)
        return 3
    tmp = Path(tempfile.mkdtemp(prefix="llmdoctor-bench-"))
    try:
        log, state = tmp / "vllm.log", tmp / "log-state.json"
        t = time.perf_counter()
        made = generate(log, args.size_mb * 1024 * 1024)
        size = log.stat().st_size
        print(f"generated {size / 2**20:.0f} MiB in {time.perf_counter() - t:.1f} s: "
              f"{made['stats_lines']} stats lines, {made['preemption_warnings']} preemption warnings")
        subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache, as grep sees it

        grep_n, grep_s = grep_count(log)
        binary, bin_wall, rss = run_child(log, tmp / "unused.json", "binary")
        other, _, other_rss = run_child(log, tmp / "unused.json", "binary")
        if other["seconds"] < binary["seconds"]:
            binary = other
        rss = max(rss, other_rss)
        full, full_wall, fs_rss = run_child(log, state, "blocks")
        grep_tp = size / grep_s / 2**20
        scan_tp = size / binary["seconds"] / 2**20
        fs_tp = size / full["seconds"] / 2**20
        ratio = scan_tp / grep_tp
        print(f"grep -c preempted:        {grep_s:6.2f} s  {grep_tp:7.0f} MiB/s  ({grep_n} lines)")
        print(f"full scan (scan_stream):  {binary['seconds']:6.2f} s  {scan_tp:7.0f} MiB/s  "
              f"({binary['preemption_warnings']} warnings, {binary['stats_lines']} stats lines, "
              f"{binary['startups']} start-ups; {bin_wall:.2f} s with interpreter start-up)")
        print(f"full scan (FileSource):   {full['seconds']:6.2f} s  {fs_tp:7.0f} MiB/s  "
              f"(ratio {fs_tp / grep_tp:.2f}; peak RSS {fs_rss:.0f} MB)")
        print(f"throughput ratio scan/grep: {ratio:.2f} straight from the file, "
              f"{fs_tp / grep_tp:.2f} through FileSource as the fact reads it (target >= 0.5 for both)")
        rss = max(rss, fs_rss)
        print(f"peak RSS of the scan: {rss:.0f} MB (target < 100 MB)")

        # resume: append ~1 % and scan again with the same state
        with open(log, "a") as f:
            added = generate(tmp / "more.log", max(1, size // 100), seed=11)
            f.write((tmp / "more.log").read_text())
        appended = log.stat().st_size - size
        again, _, _ = run_child(log, state, "blocks")
        print(f"resumed scan: read {again['read']:,} bytes of {log.stat().st_size:,} "
              f"(appended {appended:,}) in {again['seconds']:.3f} s; "
              f"{again['preemption_warnings']} warnings (appended {added['preemption_warnings']})")

        ok = True
        if full["preemption_warnings"] != grep_n or binary["preemption_warnings"] != grep_n:
            print("MISMATCH: warnings counted differ from grep's count", file=sys.stderr)
            ok = False
        if full["stats_lines"] != made["stats_lines"]:
            print("MISMATCH: stats lines", file=sys.stderr)
            ok = False
        if again["read"] > appended + 1 or again["preemption_warnings"] != added["preemption_warnings"]:
            print("FAIL: the resumed scan read more than the appended bytes", file=sys.stderr)
            ok = False
        if min(ratio, fs_tp / grep_tp) < 0.5 or rss >= 100:
            print("FAIL: target missed", file=sys.stderr)
            ok = False
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child_scan(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main())
