"""Weighing evidence: where sources disagree, the stronger one wins and both are shown.

Strongest first: the running process (its environment, its command line, the server's own
config log line), then the unit or container that starts it, then a shell rc file or session,
then what a user believed. A line a user wrote is proof of a setting "not applied" only where
nothing stronger shows the server running with its value.
"""
from __future__ import annotations

from llmdoctor.model import Evidence

# Sources that say what the running server has, stronger than any line a user wrote: the server's
# own config line, its process's environment, its unit or its container (facts/ollama.py origins).
STRONGER = ("server config log line", "process environment", "unit ", "container environment", "pod environment")


def confirmed_by_server(a, ollama_config) -> Evidence | None:
    """The server runs with the value the line sets, by a stronger source: then the line is no
    proof of a setting not applied (the server was started from that shell, or set it elsewhere)."""
    if ollama_config is None or not a.name.startswith("OLLAMA_"):
        return None
    origin = ollama_config.origin(a.name) or ""
    have = ollama_config.get(a.name)
    if have is None or not origin.startswith(STRONGER) or have.strip('"') != (a.value or "").strip('"'):
        return None
    if origin == "server config log line" and ollama_config.server_config_line is not None:
        return Evidence(ollama_config.server_config_line.source, f"{a.name}:{have} in the server config line")
    return Evidence(origin, f"{a.name}={have}")
