"""Ollama facts over a real HTTP server on 127.0.0.1 (serving recorded JSON), a host
without Ollama, and log sources that must be sniffed."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from llmdoctor.knowledge.engines import OLLAMA, VLLM, EngineInstance
from llmdoctor.facts.ollama_api import OllamaApiError, get_version, model_info_int, architecture
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.facts.ollama import scan_sources
from llmdoctor.hosts.base import CommandNotFound, CommandResult
from llmdoctor.hosts.local import LocalHost

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "ollama"
SHOW = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "evidence" / "ollama-kv-capacity" / "api_show.json").read_text())


class FakeOllama(BaseHTTPRequestHandler):
    routes: dict = {}

    def _answer(self, method):
        key = (method, self.path)
        if key not in self.routes:
            self.send_response(404)
            self.end_headers()
            self.wfile.write(b'{"error":"not found"}')
            return
        status, body = self.routes[key]
        if method == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            FakeOllama.last_body = json.loads(self.rfile.read(length) or b"{}")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._answer("GET")

    def do_POST(self):
        self._answer("POST")

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    FakeOllama.routes = {
        ("GET", "/api/version"): (200, b'{"version":"0.11.6"}'),
        ("GET", "/api/ps"): (200, (SAMPLES / "api_ps_split.json").read_bytes()),
        ("POST", "/api/show"): (200, json.dumps(SHOW).encode()),
        ("GET", "/api/tags"): (200, b'{"models":[{"name":"mistral:7b","size":4113301824}]}'),
    }
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


class NoCli(LocalHost):
    """The real local host, minus an `ollama` binary (this machine has none anyway)."""

    def run(self, argv, timeout=10):
        if argv[:1] == ["ollama"]:
            raise CommandNotFound("ollama: not installed")
        return super().run(argv, timeout)


def store(port, host=None):
    engines = (EngineInstance(OLLAMA, port=port, found_by="test"),)
    return FactStore(Context(host or NoCli()), preset={"engines": engines, "log_sources": (), "systemd_units": ()})


def test_live_api_facts(server):
    s = store(server)
    assert s.get("ollama_version") == "0.11.6"
    (m,) = s.get("ollama_ps")
    assert (m.name, m.size_vram, m.processor, m.source) == ("mistral:7b", 7206864896, "13%/87% CPU/GPU", f"GET :{server}/api/ps")
    show = s.get("ollama_show")
    assert FakeOllama.last_body == {"model": "mistral:7b", "verbose": False}
    assert architecture(show) == "qwen3" and model_info_int(show, "block_count") == 36
    assert s.get("ollama_tags")[0]["name"] == "mistral:7b"
    cfg = s.get("ollama_config")
    assert cfg.version == "0.11.6" and cfg.get("OLLAMA_NUM_PARALLEL") == "1"
    assert cfg.origin("OLLAMA_NUM_PARALLEL") == "default of Ollama 0.11.6"
    with pytest.raises(FactUnavailable):
        s.get("ollama_log")  # no log sources


def test_api_errors_become_unavailable(server):
    FakeOllama.routes[("GET", "/api/ps")] = (500, b'{"error":"boom"}')
    FakeOllama.routes[("GET", "/api/version")] = (200, b"not json")
    s = store(server)
    with pytest.raises(FactUnavailable) as e:
        s.get("ollama_ps")
    assert "HTTP 500" in e.value.reason and "ollama: not installed" in e.value.reason and not e.value.quiet
    with pytest.raises(FactUnavailable) as e:
        s.get("ollama_version")
    assert "unparseable JSON" in e.value.reason or "version unknown" in e.value.reason


def test_nothing_listening_times_out_fast():
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(OllamaApiError):
        get_version(NoCli(), port)
    s = store(port)
    with pytest.raises(FactUnavailable) as e:
        s.get("ollama_ps")
    assert "/api/ps" in e.value.reason


class TextOnly(NoCli):
    def http(self, *a, **kw):
        from llmdoctor.hosts.base import HostUnreachable
        raise HostUnreachable("connection refused")

    def run(self, argv, timeout=10):
        if argv == ["ollama", "ps"]:
            return CommandResult(tuple(argv), 0, (SAMPLES / "ps_pre010_two_tables.txt").read_text())
        return super().run(argv, timeout)


def test_cli_text_when_the_api_is_down():
    s = store(11434, TextOnly())
    models = s.get("ollama_ps")
    assert [m.source for m in models] == ["ollama ps", "ollama ps"]
    with pytest.raises(FactUnavailable):
        s.get("ollama_show")


def test_quiet_without_ollama():
    s = FactStore(Context(NoCli()), preset={"engines": (EngineInstance(VLLM, port=8000),)})
    for fact in ("ollama_version", "ollama_ps", "ollama_show", "ollama_config", "ollama_log"):
        with pytest.raises(FactUnavailable) as e:
            s.get(fact)
        assert e.value.quiet, fact
    s = FactStore(Context(NoCli()), preset={})
    s.missing["engines"] = FactUnavailable("no LLM engine found")
    with pytest.raises(FactUnavailable) as e:
        s.get("ollama_ps")
    assert e.value.quiet


class Source:
    def __init__(self, name, engine, lines):
        self.name, self.engine, self._lines, self.error = name, engine, lines, None

    def lines(self):
        return iter(self._lines)


def test_sources_are_sniffed_when_their_engine_is_unknown():
    ollama_lines = (SAMPLES / "log_gin_503.log").read_text().splitlines()
    vllm_lines = ["INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Running: 1 reqs, CUDA out of memory"]
    s = scan_sources([Source("a.log", None, ollama_lines), Source("b.log", None, vllm_lines), Source("vllm.log", VLLM, ollama_lines)])
    assert s.sources == ("a.log",) and s.status_503.count == 2 and s.oom.count == 0
    assert scan_sources([Source("b.log", None, vllm_lines)]) is None
    s = scan_sources([Source("journal:ollama.service", OLLAMA, vllm_lines)])
    assert s.oom.count == 1


def test_evidence_client_errors_added_unless_that_very_file_is_a_source(tmp_path):
    from llmdoctor.hosts.evidence import EvidenceHost

    (tmp_path / "client_errors.txt").write_text('{"error":"server busy, please try again.  maximum pending requests exceeded"}\n')
    other = Source("old_client_errors.txt", OLLAMA, ['[GIN] 2025/03/06 - 11:42:21 | 200 |  1s |  127.0.0.1 | POST "/api/generate"'])
    s = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(OLLAMA),), "log_sources": (other,)})
    log = s.get("ollama_log")
    assert log.sources == ("old_client_errors.txt", "client_errors.txt") and log.max_pending.count == 1
