"""A stand-in for `ollama serve` where the real binary cannot run (no GPU, no models).

It answers /api/version, /api/ps, /api/show and /api/tags in the shapes recorded from
real servers (FACTS.md §2; samples.md §1b for /api/ps; Ollama's docs/api.md for
/api/show), and it *behaves* like Ollama where the tuner looks:

- it reads its configuration from its own environment as envconfig does (OLLAMA_HOST
  for the address, OLLAMA_NUM_PARALLEL, OLLAMA_CONTEXT_LENGTH, OLLAMA_KV_CACHE_TYPE...);
- it logs the `msg="server config" env="map[...]"` line at start, so the journal holds
  the effective configuration, and `Listening on ... (version X)`;
- /api/ps reports `context_length` = the configured context and `size` = weights +
  KV for num_ctx × num_parallel slots, computed from the model's /api/show model_info;
- POST /api/generate streams NDJSON chunks (samples.md §2j shape for the last one),
  and, like the runner, serves at most OLLAMA_NUM_PARALLEL requests at a time: the
  others wait for a slot;
- FAKE_OLLAMA_FAIL_IF="VAR=value" makes it exit 1 at start when that variable has that
  value: a service that fails after a restart, for the rollback test.

Run: python fake_ollama.py --show api_show.json --model llama3:8b --weights 4661224676
Standard library only: it runs inside a test container with whatever Python is there.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSION = os.environ.get("FAKE_OLLAMA_VERSION", "0.32.15")
BYTES = {"f32": 4.0, "f16": 2.0, "bf16": 2.0, "q8_0": 34 / 32, "q4_0": 18 / 32, "q4_1": 20 / 32,
         "q5_0": 22 / 32, "q5_1": 24 / 32, "iq4_nl": 18 / 32}
ENV_KEYS = ("OLLAMA_CONTEXT_LENGTH", "OLLAMA_DEBUG", "OLLAMA_FLASH_ATTENTION", "OLLAMA_GPU_OVERHEAD",
            "OLLAMA_HOST", "OLLAMA_KEEP_ALIVE", "OLLAMA_KV_CACHE_TYPE", "OLLAMA_LOAD_TIMEOUT",
            "OLLAMA_MAX_LOADED_MODELS", "OLLAMA_MAX_QUEUE", "OLLAMA_MODELS", "OLLAMA_NUM_PARALLEL",
            "OLLAMA_ORIGINS", "OLLAMA_SCHED_SPREAD")
DEFAULTS = {"OLLAMA_CONTEXT_LENGTH": "0", "OLLAMA_DEBUG": "INFO", "OLLAMA_FLASH_ATTENTION": "false",
            "OLLAMA_GPU_OVERHEAD": "0", "OLLAMA_HOST": "http://127.0.0.1:11434", "OLLAMA_KEEP_ALIVE": "5m0s",
            "OLLAMA_KV_CACHE_TYPE": "", "OLLAMA_LOAD_TIMEOUT": "5m0s", "OLLAMA_MAX_LOADED_MODELS": "0",
            "OLLAMA_MAX_QUEUE": "512", "OLLAMA_MODELS": "/usr/share/ollama/.ollama/models",
            "OLLAMA_NUM_PARALLEL": "1", "OLLAMA_ORIGINS": "[]", "OLLAMA_SCHED_SPREAD": "false"}


def env(name: str) -> str:
    return os.environ.get(name, "").strip().strip("\"'")


def effective(name: str) -> str:
    return env(name) or DEFAULTS.get(name, "")


def host_port() -> tuple[str, int]:
    raw = env("OLLAMA_HOST") or "127.0.0.1:11434"
    raw = raw.split("://", 1)[-1].split("/", 1)[0]
    host, _, port = raw.rpartition(":")
    return (host or "127.0.0.1"), int(port or 11434)


def kv_bytes_per_token(info: dict, cache: str) -> float:
    arch = info.get("general.architecture", "")
    layers = int(info.get(f"{arch}.block_count", 0))
    heads = int(info.get(f"{arch}.attention.head_count", 1))
    kv = info.get(f"{arch}.attention.head_count_kv", heads)
    kv_total = sum(kv) if isinstance(kv, list) else int(kv) * layers
    dim = int(info.get(f"{arch}.attention.key_length") or int(info.get(f"{arch}.embedding_length", 0)) // heads)
    return 2 * kv_total * dim * BYTES.get(cache or "f16", 2.0)


def log(msg: str) -> None:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    print(f"time={now} level=INFO source=routes.go:1 msg={msg}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", required=True, help="recorded /api/show JSON of the model")
    ap.add_argument("--model", default="llama3:8b")
    ap.add_argument("--weights", type=int, default=4_661_224_676)
    args = ap.parse_args()
    with open(args.show) as f:
        show = json.load(f)
    fail_if = env("FAKE_OLLAMA_FAIL_IF")
    if fail_if:
        name, _, value = fail_if.partition("=")
        if env(name) == value:
            print(f"Error: refusing to start with {name}={value} (FAKE_OLLAMA_FAIL_IF)", file=sys.stderr, flush=True)
            return 1
    config = " ".join(f"{k}:{effective(k)}" for k in ENV_KEYS)
    log(f'"server config" env="map[{config}]"')
    host, port = host_port()
    info = show.get("model_info", {})
    arch = info.get("general.architecture", "")
    trained = int(info.get(f"{arch}.context_length", 4096))
    ctx = int(effective("OLLAMA_CONTEXT_LENGTH") or 0) or 4096
    ctx = min(ctx, trained)
    parallel = int(effective("OLLAMA_NUM_PARALLEL") or 1) or 1
    size = args.weights + int(kv_bytes_per_token(info, env("OLLAMA_KV_CACHE_TYPE")) * ctx * parallel)
    details = show.get("details", {})
    started = datetime.now(timezone.utc)
    slots = threading.BoundedSemaphore(parallel)
    token_seconds = float(os.environ.get("FAKE_OLLAMA_TOKEN_SECONDS", "0.05"))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # like Ollama (Go net/http): keep-alive, chunked streams

        def _send(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, fmt, *a):  # gin-style access line, like Ollama's
            print(f"[GIN] {time.strftime('%Y/%m/%d - %H:%M:%S')} | {a[1] if len(a) > 1 else '-'} | "
                  f"     1.0ms |       127.0.0.1 | {self.command}     \"{self.path}\"", flush=True)

        def do_GET(self):
            if self.path == "/api/version":
                self._send(200, {"version": VERSION})
            elif self.path == "/api/ps":
                expires = (datetime.now(timezone.utc) + timedelta(minutes=5)).isoformat()
                self._send(200, {"models": [{
                    "name": args.model, "model": args.model, "size": size,
                    "digest": "365c0bd3c000a25d28ddbf732fe1c6add414de7275464c4e4d1c3b5fcb5d8ad1",
                    "details": details, "expires_at": expires, "size_vram": size, "context_length": ctx}]})
            elif self.path == "/api/tags":
                self._send(200, {"models": [{
                    "name": args.model, "model": args.model, "modified_at": started.isoformat(),
                    "size": args.weights, "digest": "365c0bd3c000a25d28ddbf732fe1c6add414de7275464c4e4d1c3b5fcb5d8ad1",
                    "details": details}]})
            elif self.path == "/":
                self.send_response(200)
                self.send_header("Content-Length", "17")
                self.end_headers()
                self.wfile.write(b"Ollama is running")
            else:
                self._send(404, {"error": "404 page not found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": "invalid JSON"})
                return
            if self.path == "/api/generate":
                self._generate(body)
            elif self.path == "/api/show":
                name = body.get("model") or body.get("name") or ""
                if name in (args.model, args.model.split(":")[0]):
                    self._send(200, show)
                else:
                    self._send(404, {"error": f"model '{name}' not found"})
            else:
                self._send(404, {"error": "404 page not found"})

        def _generate(self, body: dict) -> None:
            if body.get("model") not in (args.model, args.model.split(":")[0]):
                self._send(404, {"error": f"model '{body.get('model')}' not found, try pulling it first"})
                return
            n = int((body.get("options") or {}).get("num_predict") or 8)
            n = max(1, min(n, 64))
            begin = time.monotonic()
            with slots:  # the runner's parallelism semaphore
                started = time.monotonic()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(n):
                    time.sleep(token_seconds)
                    chunk = {"model": args.model, "created_at": datetime.now(timezone.utc).isoformat(),
                             "response": f" w{i}", "done": False}
                    self._chunk(json.dumps(chunk).encode() + b"\n")
                end = time.monotonic()
                final = {"model": args.model, "created_at": datetime.now(timezone.utc).isoformat(), "response": "",
                         "done": True, "done_reason": "length", "total_duration": int((end - begin) * 1e9),
                         "load_duration": 1000000, "prompt_eval_count": 12,
                         "prompt_eval_duration": int((started - begin) * 1e9) + 1000000,
                         "eval_count": n, "eval_duration": int((end - started) * 1e9)}
                self._chunk(json.dumps(final).encode() + b"\n")
                self._chunk(b"")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    server = ThreadingHTTPServer((host, port), Handler)
    log(f'"Listening on {host}:{port} (version {VERSION})"')
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
