"""Realistic vLLM logs at a chosen stats density, for bench/engine_log_scan.py and the tests.

The lines are the real formats (tests/fixtures/vllm, the vLLM 0.x CPU recordings): V1 stats
lines from the API server (some with `Preemptions: N`, vLLM >= 0.12), uvicorn access lines,
`Received request` lines with prompts, the KV start-up lines at each restart, and a few V0
preemption warnings so that `grep -c preempted` has something to count. `density` is the
share of lines that are stats lines; among them most are healthy (Waiting 0, KV below 95 %),
as on a busy server that keeps up.
"""
from __future__ import annotations

import random
from pathlib import Path

PREEMPT = ("WARNING {ts} scheduler.py:1089] Sequence group chat-{rid:032x} is preempted by PreemptionMode.{mode} "
           "mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase "
           "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
           "total_num_cumulative_preemption={n}")
STATS = ("(APIServer pid={pid}) INFO {ts} [loggers.py:259] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
         "Avg generation throughput: {gt:.1f} tokens/s, Running: {r} reqs, Waiting: {w} reqs, {mid}"
         "GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {ph:.1f}%")
ACCESS = '(APIServer pid={pid}) INFO:     10.{a}.{b}.{c}:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'
METRICS = '(APIServer pid={pid}) INFO:     10.109.20.86:{port} - "GET /metrics HTTP/1.1" 200 OK'
RECEIVED = ("(APIServer pid={pid}) INFO {ts} [logger.py:43] Received request chatcmpl-{rid:032x}: prompt: '{prompt}', "
            "params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, "
            "temperature=0.7, top_p=0.95, top_k=-1, min_p=0.0, seed=None, stop=[], max_tokens={mt}), "
            "prompt_token_ids: None, lora_request: None.")
STARTUP = (
    "(EngineCore_DP0 pid={pid}) INFO {ts} [gpu_worker.py:298] Available KV cache memory: 6.51 GiB",
    "(EngineCore_DP0 pid={pid}) INFO {ts} [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens",
    "(EngineCore_DP0 pid={pid}) INFO {ts} [kv_cache_utils.py:868] Maximum concurrency for 32,768 tokens per request: 1.30x",
)
PREEMPT_SHARE = 0.001  # of the other lines: about 0.1 % V0 preemption warnings
WORDS = ("you are a helpful assistant answer the question below using the context provided summarize "
         "the following document in three bullet points translate into french explain step by step").split()


def stats_line(rnd: random.Random, pid: int, ts: str, busy: float = 0.1) -> str:
    """One V1 stats line: healthy most of the time; `busy` of them queue, a few run the KV cache
    full, some (vLLM >= 0.12) carry a Preemptions field."""
    k = rnd.random()
    waiting = rnd.randint(1, 40) if k < busy else 0
    kv = rnd.uniform(95, 100) if rnd.random() < 0.03 else rnd.uniform(5, 94.9)
    mid = ""
    if rnd.random() < 0.3:
        mid = f"Preemptions: {rnd.randint(1, 4) if rnd.random() < 0.02 else 0}, "
    return STATS.format(pid=pid, ts=ts, pt=rnd.uniform(0, 3000), gt=rnd.uniform(50, 900), r=rnd.randint(0, 64),
                        w=waiting, mid=mid, kv=kv, ph=rnd.uniform(0, 90))


def generate(path: Path, size: int, density: float = 0.05, seed: int = 7) -> dict:
    """Write about `size` bytes of log in which `density` of the lines are stats lines; return
    what was written (for cross-checks)."""
    rnd = random.Random(seed)
    prompts = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(10, 60))) for _ in range(200)]
    written = preempts = stats = lines = 0
    cumulative = second = 0
    pid = 851
    with open(path, "w") as f:
        batch: list[str] = []
        while written < size:
            second += 1
            ts = f"04-28 {second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            if second % 200000 == 1:  # a restart: new process, KV start-up lines
                pid += 1
                cumulative = 0
                batch += [s.format(pid=pid, ts=ts) for s in STARTUP]
            if rnd.random() < density:
                batch.append(stats_line(rnd, pid, ts))
                stats += 1
            else:
                k = rnd.random()
                if k < PREEMPT_SHARE:
                    cumulative += 1
                    batch.append(PREEMPT.format(ts=ts, rid=rnd.getrandbits(128), mode=rnd.choice(("RECOMPUTE", "SWAP")),
                                                n=cumulative * 50 - 49))
                    preempts += 1
                elif k < 0.2:
                    batch.append(RECEIVED.format(pid=pid, ts=ts, rid=rnd.getrandbits(128), prompt=rnd.choice(prompts),
                                                 mt=rnd.choice((256, 512, 1024))))
                elif k < 0.3:
                    batch.append(METRICS.format(pid=pid, port=rnd.randint(30000, 60000)))
                else:
                    batch.append(ACCESS.format(pid=pid, a=rnd.randint(0, 255), b=rnd.randint(0, 255),
                                               c=rnd.randint(0, 255), port=rnd.randint(30000, 60000)))
            if len(batch) >= 4000:
                text = "\n".join(batch) + "\n"
                f.write(text)
                written += len(text)
                lines += len(batch)
                batch = []
        if batch:
            text = "\n".join(batch) + "\n"
            f.write(text)
            written += len(text)
            lines += len(batch)
    return {"bytes": written, "lines": lines, "preemption_warnings": preempts, "stats_lines": stats}
