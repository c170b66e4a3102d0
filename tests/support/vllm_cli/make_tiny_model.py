"""Build the tiny random Llama that the real-vLLM tests serve, with no hub access.

Run by the vLLM venv's python (it needs torch, transformers, tokenizers):
    python make_tiny_model.py OUT_DIR
hidden 128, 2 layers, 4 heads, 2 KV heads, head_dim 32 (vLLM's CPU attention takes 32, 64,
80...; 16 passes /health and then kills the engine on the first request), saved as float32
(bf16 takes the AMX kernel, which dies with SIGILL on VMs without it). A WordLevel tokenizer
over generated words (one word, one token) with a chat template. About 3 MB, 3-4 s.
"""
import os
import random
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402

VOCAB = 2048
SPECIALS = ["<unk>", "<s>", "</s>", "<pad>", "<|user|>", "<|assistant|>", "<|system|>"]
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "zo", "pe", "qi", "su", "va", "do", "xe", "fi", "go", "hu"]
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for m in messages %}"
    "{% if m['role'] == 'system' %}<|system|> {{ m['content'] }} "
    "{% elif m['role'] == 'user' %}<|user|> {{ m['content'] }} "
    "{% else %}<|assistant|> {{ m['content'] }} {{ eos_token }} {% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)


def tokenizer() -> PreTrainedTokenizerFast:
    rng = random.Random(1234)
    words = set()
    while len(words) < VOCAB - len(SPECIALS) - 40:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))))
    words = sorted(words)
    corpus = [" ".join(rng.choice(words) for _ in range(20)) for _ in range(4000)]
    corpus.append(" ".join("0123456789.,:;!?'\"-()[]{}"))
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##")  # joins tokens with spaces
    tok.train_from_iterator(corpus, trainer=trainers.WordLevelTrainer(
        vocab_size=VOCAB, special_tokens=SPECIALS, min_frequency=1))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", model_max_length=2048)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    fast = tokenizer()
    fast.save_pretrained(out)
    cfg = LlamaConfig(
        vocab_size=len(fast), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32, max_position_embeddings=2048,
        bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
        tie_word_embeddings=False, torch_dtype="float32",
    )
    torch.manual_seed(0)
    LlamaForCausalLM(cfg).to(torch.float32).save_pretrained(out, safe_serialization=True)
    print("saved", sorted(os.listdir(out)))


if __name__ == "__main__":
    main(sys.argv[1])
