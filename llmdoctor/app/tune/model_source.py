"""Where a model's KV shape comes from for `llmdoctor plan`: a Hugging Face config.json,
a GGUF file's metadata (the `gguf` package, imported only when asked), or Ollama's
/api/show for a model name. Each raises SourceError with a message for the user."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llmdoctor.knowledge.capacity import KVShape, ShapeError, kv_shape_from_gguf, kv_shape_from_hf_config

# Metadata arrays longer than this (token lists) are skipped: the KV keys are short.
MAX_ARRAY = 4096


class SourceError(ValueError):
    pass


def from_hf_config(path: Path) -> KVShape:
    try:
        cfg = json.loads(Path(path).read_text())
    except OSError as e:
        raise SourceError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:
        raise SourceError(f"{path}: not JSON ({e})") from None
    try:
        return kv_shape_from_hf_config(cfg)
    except ShapeError as e:
        raise SourceError(f"{path}: {e}") from None


def gguf_metadata(path: Path) -> dict[str, Any]:
    """The scalar and short-array key/values of a GGUF file."""
    try:
        from gguf import GGUFReader
    except ImportError:
        raise SourceError("reading a GGUF file needs the gguf package: pip install gguf") from None
    try:
        reader = GGUFReader(str(path), "r")
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise SourceError(f"{path}: not a readable GGUF file ({e})") from None
    meta: dict[str, Any] = {}
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.") or len(field.data) > MAX_ARRAY:
            continue
        try:
            meta[name] = field.contents()
        except (ValueError, IndexError, UnicodeDecodeError, AttributeError):
            continue
    return meta


def from_gguf(path: Path) -> tuple[KVShape, int]:
    """(shape, file size): the file size stands in for the weights' memory."""
    meta = gguf_metadata(path)
    try:
        return kv_shape_from_gguf(meta), Path(path).stat().st_size
    except ShapeError as e:
        raise SourceError(f"{path}: {e}") from None


def from_model_info(info: Any, name: str) -> KVShape:
    if not isinstance(info, dict) or not info:
        raise SourceError(f"Ollama's /api/show for {name} has no model_info")
    try:
        return kv_shape_from_gguf(info)
    except ShapeError as e:
        raise SourceError(f"{name}: {e}") from None
