"""llama-server's command line (`/proc/PID/cmdline` or as typed) -> the settings that size slots.

`-np` given explicitly turns the auto-unified KV cache off, so `-c` is split across the
slots; `-np` left out (or -1) means 4 slots sharing a unified cache (llama.cpp PR #16736).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from llmdoctor.parsing import split_cmdline

AUTO_SLOTS = 4
# `-fa` takes on|off|auto from b6325 (ggml-org/llama.cpp#15434, which also made flash attention and
# every layer on the GPU the default); before it `-fa` is a bare switch, and `-fa on` an error.
FA_TAKES_VALUE_BUILD = 6325


def flash_attention_flag(build: int | None) -> str:
    """The value `-fa` takes on this build: "on", or "" (a bare switch) before b6325; "on" when the
    build is unknown (the newer form: what a current install takes)."""
    return "" if build is not None and build < FA_TAKES_VALUE_BUILD else "on"


@dataclass(frozen=True)
class LlamaCmdline:
    argv: tuple[str, ...]
    n_parallel: int | None = None  # as given; None = not given (auto)
    ctx_size: int | None = None  # as given; None = not given (model default / fit)
    kv_unified: bool | None = None  # -kvu / -no-kvu as given
    metrics: bool = False
    port: int | None = None
    model: str | None = None
    gpu_layers: int | None = None  # -ngl as given

    @property
    def slots(self) -> int:
        return self.n_parallel if self.n_parallel and self.n_parallel > 0 else AUTO_SLOTS

    @property
    def unified(self) -> bool:
        """Effective: explicit flag, else on only when -np is auto."""
        if self.kv_unified is not None:
            return self.kv_unified
        return self.n_parallel is None or self.n_parallel < 0

    @property
    def per_slot_ctx(self) -> int | None:
        """Context each slot gets, when -c is known (non-unified: n_ctx / n_parallel, padded to 256)."""
        if not self.ctx_size:
            return None
        if self.unified:
            return self.ctx_size
        per = self.ctx_size // self.slots
        return per - per % 256 if per >= 256 else per




def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_llama_cmdline(text: str | bytes) -> LlamaCmdline:
    argv = split_cmdline(text)
    vals: dict = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition("=")
        if not name.startswith("-"):
            i += 1
            continue
        def value() -> str | None:
            nonlocal i
            if eq:
                return inline
            i += 1
            return argv[i] if i < len(argv) else None
        if name in ("-np", "--parallel"):
            vals["n_parallel"] = _int(value())
        elif name in ("-c", "--ctx-size"):
            vals["ctx_size"] = _int(value())
        elif name in ("-kvu", "--kv-unified"):
            vals["kv_unified"] = True
        elif name in ("-no-kvu", "--no-kv-unified"):
            vals["kv_unified"] = False
        elif name == "--metrics":
            vals["metrics"] = True
        elif name == "--port":
            vals["port"] = _int(value())
        elif name in ("-m", "--model"):
            vals["model"] = value()
        elif name in ("-ngl", "--n-gpu-layers", "--gpu-layers"):
            vals["gpu_layers"] = _int(value())
        i += 1
    return LlamaCmdline(tuple(argv), **vals)


def looks_like_llama_cmdline(argv: list[str]) -> bool:
    """llama-server's, or a front-end's that passes llama-server flags (Lemonade, a llama.cpp image).
    Ollama's runner (`ollama runner ...`, the older `ollama_llama_server`) takes llama-server's flags
    but is Ollama's own child: its --parallel/--ctx-size are Ollama's settings, never llama-server's."""
    if argv and "ollama" in re.split(r"[/\\]", argv[0])[-1].lower():
        return False
    return any("llama-server" in a or "llama_server" in a or "lemonade" in a.lower() or "llama.cpp" in a
               for a in argv[:8]) or \
        any(a in ("-np", "--parallel", "-ngl", "--n-gpu-layers", "-kvu", "--ctx-size") for a in argv)
