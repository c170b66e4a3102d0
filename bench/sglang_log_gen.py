"""Realistic SGLang scheduler logs at a chosen density of batch lines, for bench/engine_log_scan.py
and the tests.

The lines are SGLang's real formats (tests/fixtures/sglang, knowledge/sglang/FORMATS.md): `Decode
batch, ...` and `Prefill batch. ...` lines (the dense kind: the scheduler prints one every
--decode-log-interval steps), uvicorn access lines, and a few retractions ("KV cache pool is full.
Retract requests. #retracted_reqs: N, ...") so that `grep -c retracted` has something to count.
`density` is the share of lines that are batch lines; most of them healthy (#queue-req 0).
"""
from __future__ import annotations

import random
from pathlib import Path

DECODE = ("[{day} {ts} TP0] Decode batch, #running-req: {r}, #token: {tok}, token usage: {u:.2f}, cuda graph: True, "
          "gen throughput (token/s): {gt:.2f}, #queue-req: {q},")
PREFILL = ("[{day} {ts} TP0] Prefill batch. #new-seq: {s}, #new-token: {nt}, #cached-token: {ct}, token usage: {u:.2f}, "
           "#running-req: {r}, #queue-req: {q}")
ACCESS = '[{day} {ts}] INFO:     10.{a}.{b}.{c}:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'
HEALTH = '[{day} {ts}] INFO:     127.0.0.1:{port} - "GET /health HTTP/1.1" 200 OK'
RETRACT = ("[{day} {ts} TP0] KV cache pool is full. Retract requests. #retracted_reqs: {n}, "
           "#new_token_ratio: 0.1474 -> 0.1845")
RETRACT_SHARE = 0.001  # of the other lines


def generate(path: Path, size: int, density: float = 0.05, seed: int = 7) -> dict:
    """Write about `size` bytes of log in which `density` of the lines are batch lines; return
    what was written (for cross-checks)."""
    rnd = random.Random(seed)
    written = retractions = dense = lines = 0
    second = 0
    day = "2026-04-28"
    with open(path, "w") as f:
        batch: list[str] = []
        while written < size:
            second += 1
            ts = f"{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            if rnd.random() < density:
                q = rnd.randint(1, 40) if rnd.random() < 0.1 else 0
                u = rnd.uniform(0.9, 1.0) if rnd.random() < 0.03 else rnd.uniform(0.05, 0.89)
                r = rnd.randint(0, 64)
                if rnd.random() < 0.9:
                    batch.append(DECODE.format(day=day, ts=ts, r=r, tok=r * rnd.randint(100, 900), u=u,
                                               gt=rnd.uniform(50, 900), q=q))
                else:
                    batch.append(PREFILL.format(day=day, ts=ts, s=rnd.randint(1, 8), nt=rnd.randint(16, 8192),
                                                ct=rnd.randint(0, 4096), u=u, r=r, q=q))
                dense += 1
            else:
                k = rnd.random()
                if k < RETRACT_SHARE:
                    batch.append(RETRACT.format(day=day, ts=ts, n=rnd.randint(1, 4)))
                    retractions += 1
                elif k < 0.1:
                    batch.append(HEALTH.format(day=day, ts=ts, port=rnd.randint(30000, 60000)))
                else:
                    batch.append(ACCESS.format(day=day, ts=ts, a=rnd.randint(0, 255), b=rnd.randint(0, 255),
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
    return {"bytes": written, "lines": lines, "retractions": retractions, "stats_lines": dense}
