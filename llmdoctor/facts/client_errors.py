"""The evidence file of error texts clients received (`client_errors.txt`), which the vLLM,
SGLang and llama-server log facts all read; a module of its own, so that reading it does not
load another engine's collectors."""
from __future__ import annotations

from llmdoctor.hosts.base import HostError

CLIENT_ERRORS = "client_errors.txt"  # the source name its lines are shown under


def client_errors_lines(host) -> list[str] | None:
    """Error texts clients received (what a recording kept of them), or None."""
    for name in host.kept("client errors"):
        try:
            return host.read(name, 4 * 1024 * 1024).decode("utf-8", "replace").splitlines()
        except (OSError, HostError):
            return None
    return None
