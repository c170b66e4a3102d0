"""A tiny random-weight llama GGUF that the test suite writes itself (no download).

Why it looks the way it does (see TESTBED.md, "A real llama.cpp server"):
- a SentencePiece-style ("llama") vocabulary of control tokens, the 256 byte-fallback
  tokens and a few hundred word pieces, so any prompt tokenizes;
- a ChatML chat template, so `/v1/chat/completions` works;
- every hidden state carries a constant positive component in dimension 0 (set in
  the embeddings, never written by a layer because row 0 of each layer's output
  projections is zero), and the output rows of end-of-generation, control, byte and
  punctuation tokens point the other way along that dimension. Those tokens can then
  never be sampled: every request runs to `max_tokens` and each streamed chunk is one
  printable word piece.

"medium" (embd 512, 8 layers, ~103 MB, ~140 tokens/s on 2 cores) is slow enough to
show concurrency; "small" (~0.6 MB, ~2,500 tokens/s) is for quick functional tests.
The file is deterministic and cached outside the clone, keyed by a hash of the
generator parameters, so a test session builds it at most once per machine.
"""
from __future__ import annotations

import hashlib
import json
import os
import string
from pathlib import Path

GENERATOR_VERSION = 3

SIZES: dict[str, dict[str, int]] = {
    "small": {"n_embd": 64, "n_layer": 2, "n_ff": 192, "n_head": 4, "n_head_kv": 2, "n_ctx_train": 4096},
    "medium": {"n_embd": 512, "n_layer": 8, "n_ff": 1536, "n_head": 8, "n_head_kv": 4, "n_ctx_train": 4096},
}

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# Token types in a llama GGUF vocabulary (llama.cpp LLAMA_TOKEN_TYPE_*).
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6

_WORDS = (
    "the of and to in is was for on that with as by at from it his an are were be this which or "
    "had not but first one their its new after who they has her also two been other when there all "
    "during into school time may years more most only over city some world would where later up such "
    "used many can state about national out known university united then made three these including "
    "between she well year several since south under part through both while high north team century "
    "under water light house river story game music system people small large early long little great "
    "model token server slot queue cache memory speed fast slow stream quick brown fox jumps lazy dog "
    "red green blue yellow black white stone paper wood glass iron silver gold cloud rain snow wind sun "
    "moon star tree leaf flower grass field hill valley road bridge tower garden market window door "
    # the words of the probe's own prompts (llmdoctor/knowledge/probe/prompts.py), so a long
    # prompt costs about one token per word, as with a real tokenizer
    "river runs past old near light moves walk bread flowers clock rings hour summarise text above "
    "sentence name colours rainbow per line llmdoctor probe"
).split()


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "llmdoctor-tests"


def _vocab() -> tuple[list[str], list[float], list[int], list[bool]]:
    """tokens, scores, types, and whether each token may be sampled."""
    tokens: list[str] = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    types = [UNKNOWN, CONTROL, CONTROL, CONTROL, CONTROL]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [BYTE] * 256
    pieces: list[str] = []
    seen: set[str] = set()
    chars = string.ascii_letters + string.digits + string.punctuation
    # llama.cpp's SentencePiece tokenizer merges adjacent pieces only into pieces
    # that exist, so every prefix of a word piece must exist too ("\u2581r", "\u2581ri", ...).
    words = ["\u2581" + w[:i] for w in _WORDS for i in range(1, len(w) + 1)]
    for piece in (["\u2581"] + list(chars) + ["\u2581" + c for c in string.ascii_letters]
                  + words + list(dict.fromkeys(_WORDS))):
        if piece not in seen:
            seen.add(piece)
            pieces.append(piece)
    tokens += pieces
    types += [NORMAL] * len(pieces)
    # SentencePiece scores: longer pieces preferred; control/byte tokens neutral.
    scores = [0.0] * 261 + [-1000.0 + 10.0 * len(p) - i * 1e-3 for i, p in enumerate(pieces)]
    sampleable = [t == NORMAL and any(ch.isalnum() for ch in tok) and all(ch.isalnum() or ch == "\u2581" for ch in tok)
                  for tok, t in zip(tokens, types)]
    return tokens, scores, types, sampleable


def params_for(size: str) -> dict[str, int]:
    if size not in SIZES:
        raise ValueError(f"unknown tiny model size {size!r}; choose one of {sorted(SIZES)}")
    return dict(SIZES[size])


def params_key(size: str) -> str:
    blob = json.dumps({"v": GENERATOR_VERSION, "size": size, **params_for(size)}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def write_tiny_gguf(path: str | os.PathLike, size: str = "small") -> Path:
    """Write the tiny model to `path` (deterministic for a given size) and return it."""
    import gguf
    import numpy as np

    p = params_for(size)
    n_embd, n_layer, n_ff = p["n_embd"], p["n_layer"], p["n_ff"]
    n_head, n_head_kv = p["n_head"], p["n_head_kv"]
    head_dim = n_embd // n_head
    tokens, scores, types, sampleable = _vocab()
    n_vocab = len(tokens)
    rng = np.random.default_rng(int(params_key(size), 16) % (2**32))

    def rand(*shape: int, std: float = 0.02) -> "np.ndarray":
        return (rng.standard_normal(shape) * std).astype(np.float32)

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(f"llmdoctor-tiny-{size}")
    w.add_context_length(p["n_ctx_train"])
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_rope_dimension_count(head_dim)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_eot_token_id(4)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(CHATML_TEMPLATE)

    # Dimension 0 of the residual stream is a constant the layers never touch.
    embd = rand(n_vocab, n_embd, std=0.02)
    embd[:, 0] = 1.0
    w.add_tensor("token_embd.weight", embd)
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    out = rand(n_vocab, n_embd, std=0.5)
    out[:, 0] = np.where(np.array(sampleable), 0.5, -8.0).astype(np.float32)
    w.add_tensor("output.weight", out)
    for i in range(n_layer):
        attn_out = rand(n_embd, n_embd)
        attn_out[0, :] = 0.0
        ffn_down = rand(n_embd, n_ff)
        ffn_down[0, :] = 0.0
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.attn_q.weight", rand(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_k.weight", rand(n_head_kv * head_dim, n_embd))
        w.add_tensor(f"blk.{i}.attn_v.weight", rand(n_head_kv * head_dim, n_embd))
        w.add_tensor(f"blk.{i}.attn_output.weight", attn_out)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", rand(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_up.weight", rand(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_down.weight", ffn_down)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def tiny_gguf(size: str = "small") -> Path:
    """The cached model file for `size`, written on first use (atomic rename)."""
    target = cache_dir() / f"tiny-{size}-{params_key(size)}.gguf"
    if target.is_file() and target.stat().st_size > 0:
        return target
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write_tiny_gguf(tmp, size)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target
