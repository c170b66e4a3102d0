"""Values carried by Ollama lines the log scanner only counts (log.py MARKS): what each line
says, read from its key=value pairs. Pure; nothing here decides whether a value is bad.

Formats, from Ollama's source:
- `quantized kv cache requested but flash attention disabled type=q8_0` (llm/server.go:234 @ v0.5.7),
  `OLLAMA_FLASH_ATTENTION must be enabled to use a quantized OLLAMA_KV_CACHE_TYPE type=q4_0`,
  `unsupported OLLAMA_KV_CACHE_TYPE type=...`, `kv cache type not supported by model type=...`
  (llm/server.go:203-257 @ v0.17.6; `type=""` when no type was asked for, v0.5.x-v0.9),
  `flash attention enabled but not supported by gpu|model` (no type).
- `requested context size too large for model num_ctx=49152 n_ctx_train=40960` (llm/server.go:114-168,
  v0.9.3+), `requested context length is greater than model max context length requested=32768
  model=8192` (llm/server.go:51 @ v0.1.32).
- `truncating input messages which exceed context length truncated=2` (server/prompt.go:51-75): despite
  its name, `truncated` counts the messages *kept* (`len(msgs[currMsgIdx:])`).
"""
from __future__ import annotations

from llmdoctor.parsing import LazyPattern

_TYPE = LazyPattern(r'\btype=("[^"]*"|\S+)')
_CLAMP = LazyPattern(r"\b(?:num_ctx|requested)=(\d+)\s+(?:n_ctx_train|model)=(\d+)")
_KEPT = LazyPattern(r"\btruncated=(\d+)")

# why a KV-cache or flash-attention setting was not applied, by the words of the line
FLASH_ATTENTION_OFF = "flash attention off"  # a quantized type needs it, and it was not on
FLASH_ATTENTION_UNSUPPORTED = "flash attention unsupported"  # by this GPU or this model
TYPE_UNSUPPORTED = "type unsupported"  # the type is unknown, or this model cannot use it


def kv_refusal(line: str) -> tuple[str, str] | None:
    """(why, the KV cache type asked for, "" for none) of a settings_ignored line, or None."""
    low = line.lower()
    if "flash attention enabled but not supported" in low:
        return FLASH_ATTENTION_UNSUPPORTED, ""
    m = _TYPE.search(line)
    asked = m.group(1).strip('"').lower() if m else ""
    if "flash attention disabled" in low or "must be enabled to use a quantized" in low:
        return FLASH_ATTENTION_OFF, asked
    if "unsupported ollama_kv_cache_type" in low or "kv cache type not supported" in low:
        return TYPE_UNSUPPORTED, asked
    return None


def context_clamp(line: str) -> tuple[int, int] | None:
    """(context asked for, the model's trained context) of a context-too-large line, or None."""
    m = _CLAMP.search(line)
    return (int(m.group(1)), int(m.group(2))) if m else None


def messages_kept(line: str) -> int | None:
    """How many chat messages a history-truncation line kept, or None."""
    m = _KEPT.search(line)
    return int(m.group(1)) if m else None


def trained_context(examples) -> int | None:
    """The model's trained context, from the lines where Ollama cut a larger context to it (the
    smallest, where several models were cut)."""
    return min((p[1] for p in (context_clamp(e.line) for e in examples) if p), default=None)
