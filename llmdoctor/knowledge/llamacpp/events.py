"""The events llama.cpp's lines tell of, one record each: a timed request, a context shift or
cut prompt, a prompt-cache miss. Their own module: most logs have none of them (knowledge/
llamacpp/lines.py imports this module when its first such line comes). Plain classes
(llmdoctor.model.Record: a dataclass's ==, hash and repr), never replace()d: three frozen
dataclasses cost ~3 ms of a llama-server diagnosis's start to define."""
from __future__ import annotations

from llmdoctor.model import Record


class RequestTiming(Record):
    """One request's `print_timing(s)` lines: prompt evaluation (prefill) against generation."""

    __slots__ = ("task", "prompt_ms", "prompt_tokens", "eval_ms", "eval_tokens", "text")

    def __init__(self, task: str, prompt_ms: float, prompt_tokens: int, eval_ms: float | None = None,
                 eval_tokens: int | None = None, text: str = "") -> None:
        self.task = task
        self.prompt_ms = prompt_ms
        self.prompt_tokens = prompt_tokens
        self.eval_ms = eval_ms
        self.eval_tokens = eval_tokens
        self.text = text  # the prompt eval line

    @property
    def prompt_share(self) -> float | None:
        if self.eval_ms is None or self.prompt_ms + self.eval_ms <= 0:
            return None
        return self.prompt_ms / (self.prompt_ms + self.eval_ms)


class Shift(Record):
    """The slot's context filled: llama.cpp dropped tokens to go on (shift) or cut the prompt."""

    __slots__ = ("kind", "n_ctx", "dropped", "text")

    def __init__(self, kind: str, n_ctx: int | None, dropped: int | None, text: str) -> None:
        self.kind = kind  # "shift" (generation went past the context) | "truncated" (the prompt was cut) |
        # "released" (a slot released with `truncated = 1`: one of the two happened to its request)
        self.n_ctx = n_ctx
        self.dropped = dropped  # n_discard / n_erase
        self.text = text


class CacheMiss(Record):
    __slots__ = ("cached", "matched", "text")

    def __init__(self, cached: int | None, matched: int, text: str) -> None:
        self.cached = cached  # tokens the slot held
        self.matched = matched  # tokens of the new prompt found in it
        self.text = text
