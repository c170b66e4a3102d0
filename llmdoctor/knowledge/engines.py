"""Per-engine knowledge: API clients, output/log parsers, documented defaults."""
from __future__ import annotations

from dataclasses import dataclass

OLLAMA, VLLM, LLAMACPP = "ollama", "vllm", "llamacpp"
DEFAULT_PORTS = {OLLAMA: 11434, VLLM: 8000, LLAMACPP: 8080}


@dataclass(frozen=True)
class EngineInstance:
    """One LLM server found on a host (or named by an evidence directory)."""

    kind: str  # OLLAMA | VLLM | LLAMACPP
    unit: str | None = None  # systemd unit, e.g. "ollama.service"
    pid: int | None = None
    port: int | None = None
    version: str | None = None
    found_by: str = ""  # "systemd unit", "process", "port", "evidence"
