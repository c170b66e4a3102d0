"""Engine log lines that say the engine found no GPU and runs on the CPU.

Each pattern is a line real engines printed in a container without a usable GPU (the
fixtures in tests/fixtures/containers name the reports): Ollama's GPU discovery, its
compute inventory with library=cpu, and vLLM's platform detection.
"""
from __future__ import annotations

from itertools import islice

from llmdoctor.parsing import LazyPattern

NO_GPU = LazyPattern(
    r'msg="no compatible GPUs were discovered"|msg="no nvidia devices detected"|msg="no GPU detected'
    r'|msg="Discovered GPU libraries: \[\]"|msg="inference compute"[^\n]*\blibrary=cpu\b'
    r"|routes\.go:\d+: Warning: GPU support may not enabled"
    r"|No platform detected, vLLM is running on UnspecifiedPlatform|Automatically detected platform cpu\."
    r"|CUDA platform is not available because"
)
# A word each of NO_GPU's forms holds: a batch of lines without one is passed over by a find per
# word in C, rather than a regex search of every line (a fifth of a second per 50,000 lines).
WORDS = ("no compatible GPUs", "no nvidia devices", "no GPU detected", "Discovered GPU libraries: []",
         "inference compute", "GPU support may not enabled", "No platform detected", "detected platform cpu.",
         "CUDA platform is not available")
MAX_LINES = 50_000  # per log source: start-up lines come first
BATCH = 2048  # lines joined for the finds


def no_gpu_line(lines) -> str | None:
    """The first line of `lines` that says the engine found no GPU (None when none does)."""
    it = iter(lines)
    for start in range(0, MAX_LINES, BATCH):
        batch = list(islice(it, min(BATCH, MAX_LINES - start)))
        if not batch:
            break
        text = "\n".join(batch)
        if any(w in text for w in WORDS):
            for line in batch:
                if NO_GPU.search(line):
                    return line.strip()[:400]
    return None
