"""How an Ollama server runs (systemd, Windows, macOS, a container, Kubernetes), read from
what the evidence shows, so that a fix is given in the form that applies there."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the log's parser is imported by whoever read a log (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

class Deployment(str):
    """How the server runs ("container", ...), equal to that word, and naming what runs it where
    that is known (`container`: the container's name from docker inspect), so a fix names it."""

    def __new__(cls, where: str, name: str | None = None) -> "Deployment":
        value = super().__new__(cls, where)
        value.name = name
        return value


def container_name(where: Any) -> str:
    """The container a fix addresses: the one inspected, else the name the Ollama docs use."""
    return getattr(where, "name", None) or "ollama"


def deployment(log: OllamaLogSummary | None = None, declared: Any = None, systemd: bool = False) -> str | None:
    """How this Ollama runs, from what the evidence shows: "systemd", "windows", "macos",
    "container", "kubernetes", or None when nothing tells."""
    if systemd:
        return "systemd"
    forms = {a.form for a in (declared.assignments if declared is not None else ())}
    if "kubernetes" in forms:
        return "kubernetes"
    if forms & {"docker", "compose"}:
        return "container"
    if forms & {"setx", "cmd-set", "powershell"}:
        return "windows"
    if "launchctl" in forms:
        return "macos"
    lines = [e.line for e in _example_lines(log)]
    text = "\n".join(lines)
    if re.search(r"[A-Za-z]:\\|\\AppData\\|\.exe\b", text):
        return "windows"
    if re.search(r"/Users/[^/\s]+/\.ollama|\bMTL0\b|\bMetal\b", text):
        return "macos"
    if "/usr/share/ollama" in text or "ollama.service" in text:
        return "systemd"
    if "/root/.ollama" in text:
        return "container"
    return None


def _example_lines(log: OllamaLogSummary | None):
    if log is None:
        return []
    out = []
    for ex in (log.server_config_example, log.estimator_example, log.gpu_seen, log.runner_backends_example):
        if ex is not None:
            out.append(ex)
    for ld in log.loads[-3:]:
        out += list(ld.examples[:2])
    for sig in (log.truncations, log.load_times, log.evictions, log.invalid_env, log.gpu_libraries_empty):
        out += list(sig.examples[:1])
    return out
