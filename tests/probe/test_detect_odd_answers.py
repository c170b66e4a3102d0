"""Engine detection against a server whose answers have an unexpected JSON shape:
a reason for the user (ProbeError), never a traceback."""
import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from llmdoctor.hosts.stream_client import ProbeError
from llmdoctor.facts.live_probe.detect import detect

pytestmark = pytest.mark.timeout(30)


@contextlib.contextmanager
def answering(routes: dict[str, object]):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            status, body = (200, json.dumps(routes[self.path])) if self.path in routes else (404, "{}")
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("ps", [[{"name": "llama3"}], "models", {"models": {"name": "llama3"}}, {"models": None}])
def test_ollama_ps_of_another_shape_means_no_model_loaded(ps):
    with answering({"/api/version": {"version": "0.11.4"}, "/api/ps": ps}) as url:
        with pytest.raises(ProbeError, match="no model loaded"):
            detect(url, timeout=2)


def test_ollama_ps_list_names_the_loaded_model():
    with answering({"/api/version": {"version": "0.11.4"},
                    "/api/ps": {"models": [{"name": "llama3", "context_length": 4096}]}}) as url:
        target = detect(url, timeout=2)
    assert (target.engine, target.model, target.context) == ("ollama", "llama3", 4096)
