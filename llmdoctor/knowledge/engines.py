"""Per-engine knowledge: API clients, output/log parsers, documented defaults."""
from __future__ import annotations

from dataclasses import dataclass

OLLAMA, VLLM, LLAMACPP, SGLANG = "ollama", "vllm", "llamacpp", "sglang"
# SGLang: `--port` default 30000 (python/sglang/srt/server_args.py)
DEFAULT_PORTS = {OLLAMA: 11434, VLLM: 8000, LLAMACPP: 8080, SGLANG: 30000}


@dataclass(frozen=True)
class EngineInstance:
    """One LLM server found on a host (or named by an evidence directory)."""

    kind: str  # OLLAMA | VLLM | LLAMACPP | SGLANG
    unit: str | None = None  # systemd unit, e.g. "ollama.service"
    pid: int | None = None
    port: int | None = None
    version: str | None = None
    found_by: str = ""  # "systemd unit", "process", "port", "evidence"
