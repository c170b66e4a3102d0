"""Per-engine knowledge: API clients, output/log parsers, documented defaults."""
from __future__ import annotations

from llmdoctor.model import Record, record

OLLAMA, VLLM, LLAMACPP, SGLANG = "ollama", "vllm", "llamacpp", "sglang"
# SGLang: `--port` default 30000 (python/sglang/srt/server_args.py)
DEFAULT_PORTS = {OLLAMA: 11434, VLLM: 8000, LLAMACPP: 8080, SGLANG: 30000}


@record
class EngineInstance(Record):
    """One LLM server found on a host (or named by an evidence directory). (A record,
    llmdoctor.model.record, never replace()d: a frozen dataclass costs ~1.5 ms of every run's start
    to define; ==, hash and repr are a dataclass's.)"""

    kind: str  # OLLAMA | VLLM | LLAMACPP | SGLANG
    unit: str | None = None  # systemd unit, e.g. "ollama.service"
    pid: int | None = None
    port: int | None = None
    version: str | None = None
    found_by: str = ""  # "systemd unit", "process", "port", "evidence"
