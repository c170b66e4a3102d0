"""The OpenAI-compatible SSE path with `usage` counts only (how vLLM streams), against
a small REPLAY in this module: vLLM's `/v1/models` and `/metrics` (excerpt of samples §6,
production-stack#318) and OpenAI chat-completion chunks. vLLM itself cannot run here."""
import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from llmdoctor.judge.probe.verdicts import HEALTHY, PROBLEM, queueing

pytestmark = pytest.mark.timeout(60)
MODEL = "Qwen/Qwen2.5-Coder-32B-Instruct"
METRICS = (
    "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
    "# TYPE vllm:num_requests_running gauge\n"
    f'vllm:num_requests_running{{model_name="{MODEL}"}} 0.0\n'
)


@contextlib.contextmanager
def vllm_replay(slots: int, itl: float = 0.004):
    sem = threading.Semaphore(slots)
    bodies = []

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _send(self, status, body, ctype="application/json"):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/v1/models":
                self._send(200, json.dumps({"object": "list", "data": [
                    {"id": MODEL, "object": "model", "owned_by": "vllm", "max_model_len": 32768}]}))
            elif self.path == "/metrics":
                self._send(200, METRICS, "text/plain; version=0.0.4")
            else:
                self._send(404, '{"detail":"Not Found"}')

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            n = body["max_tokens"]
            with sem:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Connection", "close")
                self.end_headers()
                base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": MODEL}
                events = [dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                                               "logprobs": None, "finish_reason": None}])]
                for i in range(n):
                    events.append(dict(base, choices=[{"index": 0, "delta": {"content": f" w{i}"},
                                                       "logprobs": None, "finish_reason": None}]))
                events.append(dict(base, choices=[], usage={"prompt_tokens": 12, "total_tokens": 12 + n,
                                                            "completion_tokens": n}))
                try:
                    for e in events:
                        self.wfile.write(f"data: {json.dumps(e)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(itl)
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass
            self.close_connection = True

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", bodies
    finally:
        srv.shutdown()
        srv.server_close()


def test_vllm_is_detected_with_model_and_context():
    with vllm_replay(slots=4) as (url, _):
        t = detect(url)
    assert (t.engine, t.model, t.context, t.wire) == ("vllm", MODEL, 32768, "openai")


def test_vllm_stream_counts_come_from_usage():
    with vllm_replay(slots=4) as (url, bodies):
        r = ProbeRunner(detect(url)).light()
    assert not r.errors, r.errors
    s = r.scenario("single")[0]
    assert s.counts_from == "usage" and s.completion_tokens == 20 and s.prompt_tokens == 12
    assert s.decode_tps and s.decode_tps > 0
    assert queueing(r).kind == HEALTHY
    req = bodies[1]
    assert req["stream_options"] == {"include_usage": True} and req["user"] == "llmdoctor-probe"
    assert "cache_prompt" not in req  # llama-server only


def test_vllm_single_sequence_queues():
    with vllm_replay(slots=1) as (url, _):
        r = ProbeRunner(detect(url)).light()
    assert queueing(r).kind == PROBLEM
