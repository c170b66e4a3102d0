"""Finding SGLang on a live host: its process (`python -m sglang.launch_server`, `sglang serve`),
a unit named sglang*, or port 30000 answering /get_server_info with SGLang's server arguments."""
from __future__ import annotations

from llmdoctor.facts import Context
from llmdoctor.facts.engines import discover_live, engine_of_unit, parse_process_list
from llmdoctor.hosts.base import CommandResult, HostError, HttpResponse
from llmdoctor.hosts.local import LocalHost
from llmdoctor.knowledge.engines import SGLANG, VLLM
from tests.support.sglang_replay import FIXTURES


def test_process_forms():
    ps = (" 3000 python -m sglang.launch_server --model-path /data/qwen3-32B --port 8080 --tp-size 2\n"
          " 3100 /opt/venv/bin/python3 /opt/venv/bin/sglang serve Qwen/Qwen3-8B --port 30001\n"
          " 3200 /opt/venv/bin/python3 /opt/venv/bin/vllm serve Qwen/Qwen3-8B --port 8001\n"
          " 3300 less sglang-notes.txt\n")
    assert [(pid, kind) for pid, kind, _ in parse_process_list(ps)] == [(3000, SGLANG), (3100, SGLANG), (3200, VLLM)]


def test_unit_names():
    assert engine_of_unit("sglang.service") == SGLANG and engine_of_unit("sglang-qwen.service") == SGLANG


class _Host(LocalHost):
    """No units, no engine processes; port 30000 answers with the recorded server info."""

    def run(self, argv, timeout=10.0, **kw):
        return CommandResult(tuple(argv), 0, "")

    def http(self, method, port, path, body=None, timeout=5.0, headers=None):
        if (port, path) == (30000, "/get_server_info"):
            return HttpResponse(200, (FIXTURES / "server_info_docs.json").read_bytes(), source="GET :30000/get_server_info")
        raise HostError("connection refused")


def test_port_30000_answering_server_info_is_sglang():
    found, _ = discover_live(Context(host=_Host()))
    assert [(e.kind, e.port, e.found_by) for e in found] == [(SGLANG, 30000, "port (/get_server_info)")]
