"""Realistic Ollama journals at a chosen `[GIN]` density, for bench/ollama_log_scan.py and the tests.

The line shapes are the real ones (tests/fixtures/ollama, tests/fixtures/realcases*/journal.log):
journalctl's short-iso or short prefix (`2025-05-01T10:00:00+0000 gpu01 ollama[1234]: ` /
`May 01 10:00:00 gpu01 ollama[1234]: `), gin's access lines (`[GIN] 2025/05/01 - 10:00:00 | 200 |
 1.234s | 10.0.0.7 | POST "/api/chat"`), the scheduler's and server's DEBUG lines a request leaves
with OLLAMA_DEBUG=1 (`evaluating already loaded`, `completion request`, `context for request
finished`, ...), and now and then a restart: `server config`, `Listening on`, `inference compute`,
then a model load (`starting llama server` cmd=, llama.cpp's `offloaded N/M layers to GPU`,
buffer sizes, `llama runner started in S seconds`). `density` is the share of lines that are
`[GIN]` lines; the rest are the DEBUG lines (the lines that do not matter) and the restarts.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

HOST, PID = "gpu01", 1234
GIN = '[GIN] {d} - {t} | {status} | {dur} | {client} | {method} "{path}"'
NOISE = (
    'time={ts} level=DEBUG source=sched.go:575 msg="evaluating already loaded" model={blob}',
    'time={ts} level=DEBUG source=server.go:729 msg="completion request" images=0 prompt={n} format=""',
    'time={ts} level=DEBUG source=sched.go:407 msg="context for request finished"',
    'time={ts} level=DEBUG source=sched.go:339 msg="after processing request finished event" modelPath={blob} refCount=0',
    'time={ts} level=DEBUG source=routes.go:1516 msg="chat request" images=0 prompt="<|im_start|>user {words}"',
    'time={ts} level=DEBUG source=server.go:1032 msg="stopping llama server" pid={pid}',
)
RESTART = (
    'time={ts} level=INFO source=routes.go:1205 msg="server config" env="map[CUDA_VISIBLE_DEVICES: OLLAMA_DEBUG:true '
    'OLLAMA_FLASH_ATTENTION:false OLLAMA_HOST:http://0.0.0.0:11434 OLLAMA_KEEP_ALIVE:5m0s OLLAMA_MAX_LOADED_MODELS:0 '
    'OLLAMA_MAX_QUEUE:512 OLLAMA_MODELS:/usr/share/ollama/.ollama/models OLLAMA_NUM_PARALLEL:0]"',
    'time={ts} level=INFO source=routes.go:1256 msg="Listening on [::]:11434 (version 0.5.7)"',
    'time={ts} level=INFO source=types.go:131 msg="inference compute" id=GPU-6b6ec8a5-5c03-11ee-8c99-0242ac120002 '
    'library=cuda variant=v12 compute=8.9 driver=12.4 name="NVIDIA GeForce RTX 4090" total="23.6 GiB" '
    'available="23.2 GiB"',
)
LOAD = (
    'time={ts} level=INFO source=server.go:376 msg="starting llama server" cmd="/usr/local/bin/ollama runner '
    '--model {blob} --ctx-size 8192 --batch-size 512 --n-gpu-layers 29 --threads 16 --parallel 4 --port 41239"',
    "llm_load_tensors: offloaded 29/29 layers to GPU",
    "llm_load_tensors:   CPU_Mapped model buffer size =   292.36 MiB",
    "llm_load_tensors:        CUDA0 model buffer size =  4168.09 MiB",
    'time={ts} level=INFO source=server.go:594 msg="llama runner started in 2.51 seconds"',
)
PATHS = ("/api/chat", "/api/chat", "/api/generate", "/v1/chat/completions", "/api/tags", "/api/embed")
WORDS = ("you are a helpful assistant answer the question below using the context provided summarize "
         "the following document in three bullet points translate into french explain step by step").split()
BLOB = "/usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa"
RESTART_EVERY = 200_000  # lines between restarts (a model load follows each)


def _duration(rnd: random.Random, path: str) -> str:
    if path == "/api/tags":
        return f"{rnd.uniform(200, 999):.3f}µs"
    s = rnd.lognormvariate(0.5, 1.0)
    if s < 1:
        return f"{s * 1000:.6f}ms"
    if s >= 60:  # (gin truncates a latency over a minute to whole seconds)
        return f"{int(s // 60)}m{int(s % 60)}s"
    return f"{s:.9f}s"


def generate(path: Path, size: int | None = None, density: float = 0.05, seed: int = 7, lines: int | None = None,
             style: str = "short-iso", polls: float | None = None) -> dict:
    """Write about `size` bytes (or exactly `lines` lines) of journal in which `density` of the lines
    are `[GIN]` lines; return what was written (gin: how many gin lines, for `grep -c`). `polls`:
    the share of gin lines that are `GET /api/tags` (a web UI polling; default: one path in six)."""
    rnd = random.Random(seed)
    at = datetime(2025, 5, 1, 0, 0, 0, tzinfo=timezone.utc)
    prompts = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 30))) for _ in range(100)]
    written = gins = n = 0
    with open(path, "w", encoding="utf-8") as f:
        batch: list[str] = []
        while (lines is None or n < lines) and (size is None or written < size):
            at += timedelta(microseconds=rnd.randint(1000, 400_000))
            stamp = at.strftime("%Y-%m-%dT%H:%M:%S") + f".{at.microsecond // 1000:03d}Z"
            prefix = (at.strftime("%Y-%m-%dT%H:%M:%S+0000") if style == "short-iso" else at.strftime("%b %d %H:%M:%S")) \
                + f" {HOST} ollama[{PID}]: "
            if n % RESTART_EVERY == 0:
                body = [s.format(ts=stamp, blob=BLOB) for s in RESTART + LOAD]
            elif rnd.random() < density:
                p = rnd.choice(PATHS) if polls is None else \
                    "/api/tags" if rnd.random() < polls else rnd.choice(PATHS[:4] + PATHS[5:])
                body = [GIN.format(d=at.strftime("%Y/%m/%d"), t=at.strftime("%H:%M:%S"),
                                   status=503 if rnd.random() < 0.002 else 200, dur=_duration(rnd, p).rjust(13),
                                   client=f"10.0.{rnd.randint(0, 9)}.{rnd.randint(2, 250)}".rjust(15),
                                   method=("GET" if p == "/api/tags" else "POST").ljust(8), path=p)]
                gins += 1
            else:
                body = [rnd.choice(NOISE).format(ts=stamp, blob=BLOB, n=rnd.randint(20, 9000), pid=PID + 7,
                                                 words=rnd.choice(prompts))]
            for b in body:
                batch.append(prefix + b + "\n")
                n += 1
            if len(batch) >= 4096:
                chunk = "".join(batch)
                f.write(chunk)
                written += len(chunk.encode("utf-8"))
                batch = []
        chunk = "".join(batch)
        f.write(chunk)
        written += len(chunk.encode("utf-8"))
    return {"bytes": written, "lines": n, "gin": gins}
