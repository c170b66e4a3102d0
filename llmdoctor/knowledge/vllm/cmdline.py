"""vLLM's command line (`vllm serve MODEL ...` or `python -m vllm.entrypoints.openai.api_server ...`).

Only the flags the checks name in their fixes are kept. vLLM accepts `--flag value`,
`--flag=value` and underscores for dashes; `--no-enable-prefix-caching` turns it off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from llmdoctor.parsing import LazyPattern, flag_settings, split_cmdline

# flag -> (key, kind)
FLAGS = {
    "--gpu-memory-utilization": ("gpu_memory_utilization", float),
    "--kv-cache-memory-bytes": ("kv_cache_memory_bytes", str),  # accepts 2G / 512M; overrides the above
    "--max-model-len": ("max_model_len", str),  # accepts 32k / auto
    "--max-num-seqs": ("max_num_seqs", int),
    "--max-num-batched-tokens": ("max_num_batched_tokens", int),
    "--tensor-parallel-size": ("tensor_parallel_size", int),
    "-tp": ("tensor_parallel_size", int),
    "--kv-cache-dtype": ("kv_cache_dtype", str),
    "--port": ("port", int),
    "--model": ("model", str),
    "--preemption-mode": ("preemption_mode", str),
    "--swap-space": ("swap_space", float),
}
SWITCHES = {
    "--enable-prefix-caching": ("enable_prefix_caching", True),
    "--no-enable-prefix-caching": ("enable_prefix_caching", False),
    "--enable-chunked-prefill": ("enable_chunked_prefill", True),
    "--no-enable-chunked-prefill": ("enable_chunked_prefill", False),
    "--disable-log-stats": ("disable_log_stats", True),
}


@dataclass(frozen=True)
class VllmCmdline:
    argv: tuple[str, ...]
    settings: dict = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.settings.get(key, default)

    @property
    def max_model_len_tokens(self) -> int | None:
        return human_int(self.settings.get("max_model_len"))

    @property
    def kv_cache_bytes(self) -> int | None:
        """--kv-cache-memory-bytes: a fixed KV cache size, with which vLLM ignores
        --gpu-memory-utilization (vllm/config/cache.py, CacheConfig.kv_cache_memory_bytes)."""
        return human_int(self.settings.get("kv_cache_memory_bytes"))


def human_int(v) -> int | None:
    """vLLM's human-readable ints (vllm/utils/argparse_utils.py): k/m/g/t decimal, K/M/G/T binary;
    None for "auto" and what is no number."""
    if v is None or v == "":
        return None
    v = str(v).strip()
    mult = {"k": 10 ** 3, "m": 10 ** 6, "g": 10 ** 9, "t": 10 ** 12,
            "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}.get(v[-1:], 1)
    if mult != 1:
        v = v[:-1]
    try:
        return int(float(v) * mult)
    except (ValueError, OverflowError):  # "auto", "nan"; "inf", "1e400"
        return None


# `LLM(model=..., max_model_len=1000, gpu_memory_utilization=0.95)`: the offline Python API takes
# the same settings as keyword arguments.
_KWARG = LazyPattern(r"\b([a-z_]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,()\s]+)")


def _python_kwargs(text: str) -> dict:
    settings: dict = {}
    for key, raw in _KWARG.findall(text[text.index("LLM("):]):
        flag = "--" + key.replace("_", "-")
        value = raw.strip("'\"")
        if key == "model" and value == raw:
            continue  # a variable (model=args.model_path), not a name
        if flag in SWITCHES and value in ("True", "False"):
            k, on = SWITCHES[flag]
            settings[k] = on if value == "True" else not on
        elif flag in FLAGS:
            k, kind = FLAGS[flag]
            try:
                settings[k] = kind(value)
            except ValueError:
                settings[k] = None
    return settings


def _dashes(name: str) -> str:
    """vLLM reads `--max_num_seqs` as `--max-num-seqs`."""
    return "--" + name[2:].replace("_", "-") if name.startswith("--") else name


def _serve_model(i: int, argv: list[str], settings: dict) -> None:
    """`vllm serve MODEL`: the model is the word after the subcommand (a later --model wins)."""
    if argv[i] == "serve" and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
        settings["model"] = argv[i + 1]


def parse_vllm_cmdline(text: str | bytes) -> VllmCmdline:
    argv = split_cmdline(text)
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    settings: dict = _python_kwargs(raw) if "LLM(" in raw else {}
    settings.update(flag_settings(argv, FLAGS, SWITCHES, _dashes, _serve_model))
    return VllmCmdline(tuple(argv), settings)


def looks_like_vllm_cmdline(argv: list[str]) -> bool:
    return any("vllm" in a for a in argv[:4]) or any(a.startswith(("LLM(", "llm=LLM(")) for a in argv[:4])
