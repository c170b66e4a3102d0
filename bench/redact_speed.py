"""redact_text's speed on a generated log of engine lines (100 MiB by default): MiB/s.

    python bench/redact_speed.py [MiB]

The lines are the kinds a journal of an LLM server holds (Ollama's logfmt, vLLM's stats,
llama.cpp's slot lines, GIN access lines), with one secret-looking line per 5,000.
"""
from __future__ import annotations

import sys
import time

LINES = [
    'time=2025-08-08T23:02:37.145+01:00 level=INFO source=server.go:135 msg="system memory" total="62.5 GiB" free="50.1 GiB"',
    '[GIN] 2025/08/08 - 23:02:37 | 200 |  1.234567891s |       127.0.0.1 | POST     "/api/chat"',
    "INFO 08-08 23:02:37 [loggers.py:118] Engine 000: Avg prompt throughput: 1234.5 tokens/s, Avg generation throughput: 56.7 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 12.3%, Prefix cache hit rate: 45.6%",
    "slot update_slots: id  0 | task 1234 | new prompt, n_ctx_slot = 8192, n_keep = 0, n_prompt_tokens = 2048",
    "llama_model_loader: - kv  21: tokenizer.ggml.bos_token_id u32 = 128000",
    'time=2025-08-08T23:02:38.000+01:00 level=DEBUG source=sched.go:400 msg="context for request finished" model=/usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa',
    "prompt eval time =     123.45 ms /   512 tokens (    0.24 ms per token,  4147.39 tokens per second)",
    "INFO:     127.0.0.1:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
]
RARE = 'Environment="HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz1234" --api-key sk-proj-abcdefghijklmnopqrstuvwx'


def make(mib: int) -> str:
    out, size, i = [], 0, 0
    while size < mib * 1024 * 1024:
        line = RARE if i % 5000 == 4999 else LINES[i % len(LINES)]
        out.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    from llmdoctor.redact import redact_text

    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    text = make(mib)
    redact_text("warm up: HF_TOKEN=x --api-key y")
    t = time.perf_counter()
    out = redact_text(text)
    dt = time.perf_counter() - t
    print(f"{len(text) / 2**20:.0f} MiB in {dt:.2f} s: {len(text) / 2**20 / dt:.1f} MiB/s "
          f"(changed: {out != text}, secrets left: {'hf_AbCd' in out or 'sk-proj-abc' in out})")
