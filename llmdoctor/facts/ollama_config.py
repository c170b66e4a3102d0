"""The effective Ollama configuration, as facts/ollama.py merges it. A module of its own, imported
once there is an Ollama to configure: a frozen dataclass costs ~1 ms of start-up to define,
and a run about another engine needs none."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llmdoctor.knowledge.ollama.log import Example


@dataclass(frozen=True)
class OllamaConfig:
    """What Ollama runs with, and where each value came from.

    `values`/`origins`: the effective value of every known variable (server config log
    line > process environment > unit environment > the version's default).
    `assigned`: raw values someone set (var -> (value, where)), for parse problems."""

    version: str | None
    values: dict[str, str]
    origins: dict[str, str]
    assigned: dict[str, tuple[str, str]] = field(default_factory=dict)
    server_config_line: Example | None = None

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def origin(self, name: str) -> str:
        return self.origins.get(name, "unknown")

    def is_default(self, name: str) -> bool:
        return self.origins.get(name, "").startswith("default")

    def summary(self) -> list[tuple[str, str]]:
        keys = ("OLLAMA_NUM_PARALLEL", "OLLAMA_MAX_QUEUE", "OLLAMA_KEEP_ALIVE", "OLLAMA_CONTEXT_LENGTH")
        shown = ", ".join(f"{k.removeprefix('OLLAMA_')}={self.values.get(k, '?') or '(empty)'}"
                          + ("*" if self.is_default(k) else "") for k in keys)
        note = "* = default of this version" if self.version else "* = newest default; version unknown"
        return [("Ollama", f"{self.version or 'version unknown'}: {shown} ({note})")]
