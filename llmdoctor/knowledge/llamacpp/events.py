"""The events llama.cpp's lines tell of, one record each: a timed request, a context shift or
cut prompt, a prompt-cache miss. Their own module: most logs have none of them (knowledge/
llamacpp/lines.py imports this module when its first such line comes). Records
(llmdoctor.model.record: a dataclass's ==, hash and repr), never replace()d: three frozen
dataclasses cost ~3-5 ms of a llama-server diagnosis's start to define, three records ~0.3 ms."""
from __future__ import annotations

from llmdoctor.model import Record, record


@record
class RequestTiming(Record):
    """One request's `print_timing(s)` lines: prompt evaluation (prefill) against generation."""

    task: str
    prompt_ms: float
    prompt_tokens: int
    eval_ms: float | None = None
    eval_tokens: int | None = None
    text: str = ""  # the prompt eval line

    @property
    def prompt_share(self) -> float | None:
        if self.eval_ms is None or self.prompt_ms + self.eval_ms <= 0:
            return None
        return self.prompt_ms / (self.prompt_ms + self.eval_ms)


@record
class Shift(Record):
    """The slot's context filled: llama.cpp dropped tokens to go on (shift) or cut the prompt."""

    kind: str  # "shift" (generation went past the context) | "truncated" (the prompt was cut) |
    n_ctx: int | None
    dropped: int | None  # n_discard / n_erase
    text: str


@record
class CacheMiss(Record):
    cached: int | None  # tokens the slot held
    matched: int  # tokens of the new prompt found in it
    text: str
