"""A REPLAY of recorded Ollama streams on loopback, with the timing of one slot or many.

Not Ollama: a small HTTP server that answers the routes the probe uses with the
recorded chunk shapes (tests/fixtures/probe/ollama_generate_stream.ndjson, built
from FACTS §2 and samples §2j) and paces them like a server would:

- `slots`: requests decoded at once; more wait for a slot (Ollama's per-model
  semaphore of size OLLAMA_NUM_PARALLEL), which is what queueing looks like;
- `share`: how much each extra active stream slows every stream (0 = free
  batching, 1 = one stream's worth of bandwidth shared by all);
- `prefill_s_per_token`, `load_s` (first request pays a load, reported in
  `load_duration`), and faults: `busy` (503 with Ollama's exact queue-full body),
  `error_after` (a mid-stream `{"error": ...}` line), `stall_after` (goes silent),
  `hang_headers` (never answers).

The final chunk carries the counts and durations (ns) this replay really spent, the
way Ollama reports its own.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

RECORDING = Path(__file__).resolve().parent.parent / "fixtures" / "probe" / "ollama_generate_stream.ndjson"
QUEUE_FULL_BODY = '{"error":"server busy, please try again.  maximum pending requests exceeded"}'
MAX_WAIT_S = 30.0  # no replay thread waits longer than this, whatever happens


@dataclass
class ReplayConfig:
    slots: int = 1
    itl_s: float = 0.005
    share: float = 0.0
    prefill_s_per_token: float = 0.0002
    load_s: float = 0.0
    busy: bool = False
    error_after: int | None = None
    error_text: str = "an error was encountered while running the model: unexpected EOF"
    stall_after: int | None = None
    hang_headers: bool = False
    version: str = "0.12.3"
    context_length: int = 4096
    loaded: bool = True   # False: /api/ps lists no model (nothing loaded)


def recorded() -> tuple[list[dict], dict]:
    lines = [json.loads(x) for x in RECORDING.read_text().splitlines() if x.strip()]
    return [x for x in lines if not x.get("done")], next(x for x in lines if x.get("done"))


class _State:
    def __init__(self, cfg: ReplayConfig) -> None:
        self.cfg = cfg
        self.slots = threading.BoundedSemaphore(max(1, cfg.slots))
        self.lock = threading.Lock()
        self.active = 0
        self.loaded = cfg.load_s <= 0
        self.closing = threading.Event()
        self.requests: list[dict] = []
        self.chunks, self.final = recorded()
        self.model = self.final["model"]


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: _State  # set on the subclass per server

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass  # the probe closes a stream once it has the final chunk

    def _json(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        st = self.state
        if self.path == "/api/version":
            self._json(200, json.dumps({"version": st.cfg.version}))
        elif self.path == "/api/ps":
            if not st.cfg.loaded:
                self._json(200, '{"models":[]}')
                return
            self._json(200, json.dumps({"models": [{
                "name": st.model, "model": st.model, "size": 6654289920, "digest": "ff02c3702f32",
                "details": {"format": "gguf", "family": "gemma2", "parameter_size": "9.2B",
                            "quantization_level": "Q4_0"},
                "expires_at": "2099-01-01T00:00:00Z", "size_vram": 6654289920,
                "context_length": st.cfg.context_length}]}))
        else:
            self._json(404, "404 page not found")

    def do_POST(self) -> None:
        st, cfg = self.state, self.state.cfg
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        st.requests.append(body)
        if self.path not in ("/api/generate", "/api/chat"):
            self._json(404, "404 page not found")
            return
        if cfg.busy:
            self._json(503, QUEUE_FULL_BODY)
            return
        if cfg.hang_headers:
            st.closing.wait(MAX_WAIT_S)
            return
        chat = self.path == "/api/chat"
        prompt = body.get("prompt") or " ".join(m.get("content", "") for m in body.get("messages") or [])
        n_predict = int((body.get("options") or {}).get("num_predict") or 128)
        start = time.monotonic()
        if not st.slots.acquire(timeout=MAX_WAIT_S):
            self._json(503, QUEUE_FULL_BODY)
            return
        try:
            load = 0.0
            with st.lock:
                must_load, st.loaded = not st.loaded, True
            if must_load:  # Ollama loads the runner before it answers
                time.sleep(cfg.load_s)
                load = cfg.load_s
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            n_prompt = max(1, len(prompt.split()))
            t_prompt = time.monotonic()
            time.sleep(n_prompt * cfg.prefill_s_per_token)
            prompt_dur = time.monotonic() - t_prompt
            with st.lock:
                st.active += 1
            t_eval = time.monotonic()
            sent = 0
            try:
                while sent < n_predict:
                    if cfg.error_after is not None and sent >= cfg.error_after:
                        self._chunk({"error": cfg.error_text})
                        self._end()
                        return
                    if cfg.stall_after is not None and sent >= cfg.stall_after:
                        st.closing.wait(MAX_WAIT_S)
                        return
                    rec = st.chunks[sent % len(st.chunks)]
                    out = {"model": st.model, "created_at": _now(), "done": False}
                    if chat:
                        out["message"] = {"role": "assistant", "content": rec["response"]}
                    else:
                        out["response"] = rec["response"]
                    self._chunk(out)
                    sent += 1
                    with st.lock:
                        others = st.active - 1
                    time.sleep(cfg.itl_s * (1 + cfg.share * others))
            finally:
                with st.lock:
                    st.active -= 1
            eval_dur = time.monotonic() - t_eval
            final = dict(st.final)
            final.update(created_at=_now(), done_reason="length" if sent >= n_predict else "stop",
                         total_duration=int((time.monotonic() - start) * 1e9),
                         load_duration=int(load * 1e9) or st.final["load_duration"],
                         prompt_eval_count=n_prompt, prompt_eval_duration=int(prompt_dur * 1e9),
                         eval_count=sent, eval_duration=int(eval_dur * 1e9))
            if chat:
                final.pop("response", None)
                final["message"] = {"role": "assistant", "content": ""}
            self._chunk(final)
            self._end()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            st.slots.release()

    def _chunk(self, obj: dict) -> None:
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass


class ReplayServer:
    def __init__(self, url: str, state: _State) -> None:
        self.url, self.state = url, state

    @property
    def requests(self) -> list[dict]:
        return self.state.requests


@contextlib.contextmanager
def ollama_replay(config: ReplayConfig | None = None, **kw) -> Iterator[ReplayServer]:
    """Serve the replay on 127.0.0.1 (a free port); yield it with its `.url`."""
    cfg = config or ReplayConfig(**kw)
    state = _State(cfg)
    handler = type("Handler", (_Handler,), {"state": state})
    server = _QuietServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield ReplayServer(f"http://127.0.0.1:{server.server_address[1]}", state)
    finally:
        state.closing.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
