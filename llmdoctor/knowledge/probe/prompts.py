"""The probe's fixed, harmless prompts, and the request bodies per engine.

Every prompt starts with a unique marker so no prompt/prefix cache can serve it
(llama-server also gets `cache_prompt: false`); the marker also tells an operator
reading the server log which requests were the probe's. No user data is ever sent.
"""
from __future__ import annotations

import itertools
import os
from typing import Any

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA

SHORT = "Name the colours of the rainbow, one per line."

# A plain, neutral passage; repeated to size the long prompt.
PASSAGE = (
    "The river runs past the old stone bridge and the small house near the market. "
    "In the early light the water is green and blue, and the wind moves the grass in the field. "
    "People walk to the market with bread, paper and flowers, and the tower clock rings the hour. "
)
CLOSING = "Summarise the text above in one sentence."
TOKENS_PER_WORD = 1.3  # typical for English with modern tokenizers; the server reports the truth

_counter = itertools.count(1)


def marker() -> str:
    return f"[llmdoctor probe {os.getpid()}-{next(_counter)}]"


def short_prompt() -> str:
    return f"{marker()} {SHORT}"


def long_prompt(tokens: int) -> str:
    """About `tokens` tokens of neutral text (estimated from the word count)."""
    words_wanted = max(16, int(tokens / TOKENS_PER_WORD))
    words = PASSAGE.split()
    body = " ".join(itertools.islice(itertools.cycle(words), words_wanted))
    return f"{marker()} {body}\n\n{CLOSING}"


def request(engine: str, model: str, prompt: str, max_tokens: int) -> tuple[str, dict[str, Any]]:
    """(path, JSON body) of one streaming request for this engine."""
    if engine == OLLAMA:
        # Only per-request options that never force a model reload (num_ctx would).
        return "/api/generate", {"model": model, "prompt": prompt, "stream": True,
                                 "options": {"num_predict": max_tokens}}
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "user": "llmdoctor-probe",
    }
    if engine == LLAMACPP:
        body["cache_prompt"] = False
    return "/v1/chat/completions", body
