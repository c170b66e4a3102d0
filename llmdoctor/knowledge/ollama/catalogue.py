"""Ollama's messages that carry a fact a cause needs, from Ollama's own source
(ollama/ollama at the tags named; line numbers move in every release, the format string
is what is matched). The table format: knowledge/messages.py."""
from __future__ import annotations

from llmdoctor.knowledge.messages import message

E = "ollama"

MESSAGES = (
    message(
        "ollama.runner.truncating_input_prompt", E, "v0.3.13-v0.24.x",
        "llama/runner/runner.go:129 @ v0.5.7; runner/llamarunner/runner.go:152, runner/ollamarunner/runner.go:186 @ v0.12.11",
        r'msg="truncating input prompt" limit=\d+ prompt=\d+', "truncating input prompt",
        facts=("context limit (num_ctx)", "prompt tokens", "tokens kept"), causes=("CONTEXT_TRUNCATION",),
        examples=[('time=2025-03-01T17:27:56.756-08:00 level=WARN source=runner.go:130 msg="truncating input prompt" '
                   'limit=2048 prompt=91541 keep=5 new=2048', "https://github.com/ollama/ollama/issues/9452")],
        expect=[("truncations.count", 1), ("truncation_max_prompt", 91541)],
    ),
)


def summarize(lines):
    from llmdoctor.knowledge.ollama.log import scan

    return scan(lines)
