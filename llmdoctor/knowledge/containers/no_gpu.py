"""Engine log lines that say the engine found no GPU and runs on the CPU.

Each pattern is a line real engines printed in a container without a usable GPU (the
fixtures in tests/fixtures/containers name the reports): Ollama's GPU discovery, its
compute inventory with library=cpu, and vLLM's platform detection.
"""
from __future__ import annotations

from llmdoctor.parsing import LazyPattern

NO_GPU = LazyPattern(
    r'msg="no compatible GPUs were discovered"|msg="no nvidia devices detected"|msg="no GPU detected'
    r'|msg="Discovered GPU libraries: \[\]"|msg="inference compute"[^\n]*\blibrary=cpu\b'
    r"|routes\.go:\d+: Warning: GPU support may not enabled"
    r"|No platform detected, vLLM is running on UnspecifiedPlatform|Automatically detected platform cpu\."
    r"|CUDA platform is not available because"
)
MAX_LINES = 50_000  # per log source: start-up lines come first


def no_gpu_line(lines) -> str | None:
    """The first line of `lines` that says the engine found no GPU (None when none does)."""
    for n, line in enumerate(lines):
        if n >= MAX_LINES:
            break
        if NO_GPU.search(line):
            return line.strip()[:400]
    return None
