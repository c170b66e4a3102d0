"""Values the shell completion offers for an option (`llmdoctor completion SHELL`).

Each function runs only when a shell asks for completions (typer calls it then), so nothing
here costs start-up time; it reads the checks' generated index, never the check modules.
"""
from __future__ import annotations

from typing import Callable, Iterable

# knowledge.messages.ENGINE_NAMES, written out: importing the catalogue costs start-up (a test keeps them equal)
ENGINES = ("ollama", "vllm", "llamacpp", "sglang", "llama.cpp")


def choices(values: Iterable[str]) -> Callable[[str], list[str]]:
    """A completion function offering `values` that start with what was typed."""
    values = tuple(values)

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return complete


def check_ids_and_causes(incomplete: str) -> list[str]:
    """--only takes a check id or a cause name: the built-in ones."""
    from llmdoctor.plugins.builtin_index import CHECKS

    names = sorted({row[2] for row in CHECKS}) + sorted({row[3] for row in CHECKS})
    return [n for n in names if n.startswith(incomplete)]


def check_ids(incomplete: str) -> list[str]:
    """`explain` takes a built-in check's id."""
    from llmdoctor.plugins.builtin_index import CHECKS

    return [n for n in sorted({row[2] for row in CHECKS}) if n.startswith(incomplete)]
