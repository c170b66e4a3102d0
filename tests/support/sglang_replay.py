"""A REPLAY of an SGLang server on loopback, built from its recorded outputs.

Not SGLang (it needs a GPU): a small HTTP server answering the routes llmdoctor reads.
`/metrics` and `/get_server_info` return recorded files verbatim (tests/fixtures/sglang/,
sources in its SOURCES.md); `/v1/models` and the streaming `/v1/chat/completions` follow
SGLang's OpenAI-compatible protocol (python/sglang/srt/entrypoints/openai/protocol.py:
`chat.completion.chunk` objects with `choices[].delta`, a last chunk with `usage` when
`stream_options.include_usage`, then `data: [DONE]`), serving `slots` requests at once
(--max-running-requests) so a second request waits - what queueing looks like.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sglang"
MAX_WAIT_S = 30.0


@dataclass
class SglangReplayConfig:
    metrics: str | None = "metrics_docs_queue.prom"  # None: /metrics off (no --enable-metrics)
    server_info: str = "server_info_docs.json"
    slots: int = 4
    itl_s: float = 0.004
    prefill_s: float = 0.01


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    cfg: SglangReplayConfig
    slots: threading.BoundedSemaphore
    requests: list

    def log_message(self, *args) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass

    def _send(self, status: int, body: str, ctype: str = "application/json") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _info(self) -> dict:
        return json.loads((FIXTURES / self.cfg.server_info).read_text())

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            if self.cfg.metrics is None:
                self._send(404, '{"detail":"Not Found"}')
            else:
                self._send(200, (FIXTURES / self.cfg.metrics).read_text(), "text/plain; version=0.0.4")
        elif path in ("/get_server_info", "/server_info"):
            self._send(200, (FIXTURES / self.cfg.server_info).read_text())
        elif path == "/v1/models":
            model = self._info()["served_model_name"]
            self._send(200, json.dumps({"object": "list", "data": [
                {"id": model, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": model}]}))
        elif path == "/health":
            self._send(200, "")
        else:
            self._send(404, '{"detail":"Not Found"}')

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.requests.append(body)
        if self.path != "/v1/chat/completions":
            self._send(404, '{"detail":"Not Found"}')
            return
        if not self.slots.acquire(timeout=MAX_WAIT_S):
            self._send(503, '{"object":"error","message":"timeout"}')
            return
        try:
            self._stream(body)
        finally:
            self.slots.release()

    def _stream(self, body: dict) -> None:
        model, n = body.get("model") or self._info()["served_model_name"], int(body.get("max_tokens") or 16)
        prompt = " ".join(m.get("content", "") for m in body.get("messages") or [])
        rid, created = f"{abs(hash((prompt, time.monotonic()))):032x}", int(time.time())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(obj) -> None:
            data = ("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n").encode()
            self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def chunk(delta, finish=None, usage=None) -> dict:
            return {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [] if usage else [{"index": 0, "delta": delta, "logprobs": None,
                                                  "finish_reason": finish, "matched_stop": None}],
                    "usage": usage}

        time.sleep(self.cfg.prefill_s)
        event(chunk({"role": "assistant", "content": ""}))
        for i in range(n):
            time.sleep(self.cfg.itl_s)
            event(chunk({"content": f" {i + 1},"}, "length" if i == n - 1 else None))
        if (body.get("stream_options") or {}).get("include_usage"):
            p = max(1, len(prompt.split()))
            event(chunk({}, usage={"prompt_tokens": p, "total_tokens": p + n, "completion_tokens": n,
                                   "prompt_tokens_details": None}))
        event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")


@contextlib.contextmanager
def sglang_replay(cfg: SglangReplayConfig | None = None):
    """Yields (port, requests) of a replay listening on 127.0.0.1."""
    cfg = cfg or SglangReplayConfig()
    handler = type("Handler", (_Handler,), {"cfg": cfg, "slots": threading.BoundedSemaphore(max(1, cfg.slots)),
                                            "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], handler.requests
    finally:
        server.shutdown()
        server.server_close()
