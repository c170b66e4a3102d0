"""Per-engine knowledge: API clients, output/log parsers, documented defaults."""
from __future__ import annotations

from llmdoctor.model import Record

OLLAMA, VLLM, LLAMACPP, SGLANG = "ollama", "vllm", "llamacpp", "sglang"
# SGLang: `--port` default 30000 (python/sglang/srt/server_args.py)
DEFAULT_PORTS = {OLLAMA: 11434, VLLM: 8000, LLAMACPP: 8080, SGLANG: 30000}


class EngineInstance(Record):
    """One LLM server found on a host (or named by an evidence directory). (A plain class,
    never replace()d: a frozen dataclass costs ~1 ms of every run's start to define; ==, hash
    and repr are a dataclass's.)"""

    __slots__ = ("kind", "unit", "pid", "port", "version", "found_by")

    def __init__(self, kind: str, unit: str | None = None, pid: int | None = None, port: int | None = None,
                 version: str | None = None, found_by: str = "") -> None:
        self.kind = kind  # OLLAMA | VLLM | LLAMACPP | SGLANG
        self.unit = unit  # systemd unit, e.g. "ollama.service"
        self.pid = pid
        self.port = port
        self.version = version
        self.found_by = found_by  # "systemd unit", "process", "port", "evidence"
