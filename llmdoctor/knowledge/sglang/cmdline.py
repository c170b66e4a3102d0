"""SGLang's launch command line (`python -m sglang.launch_server ...` or `sglang serve ...`).

Only the flags the checks read or name in their fixes are kept. SGLang's argparse takes
`--flag value` and `--flag=value`; `--tp`/`--tp-size`/`--tensor-parallel-size` and
`--dp`/`--dp-size`/`--data-parallel-size` are aliases (python/sglang/srt/server_args.py).
"""
from __future__ import annotations

from llmdoctor.model import Record
from llmdoctor.parsing import LazyPattern, flag_settings, split_cmdline

# flag -> (key, kind); keys are ServerArgs field names, as /get_server_info and the
# `server_args=ServerArgs(...)` start-up line spell them
FLAGS = {
    "--model-path": ("model_path", str),
    "--model": ("model_path", str),
    "--port": ("port", int),
    "--mem-fraction-static": ("mem_fraction_static", float),
    "--max-running-requests": ("max_running_requests", int),
    "--max-queued-requests": ("max_queued_requests", int),
    "--max-total-tokens": ("max_total_tokens", int),
    "--context-length": ("context_length", int),
    "--chunked-prefill-size": ("chunked_prefill_size", int),
    "--max-prefill-tokens": ("max_prefill_tokens", int),
    "--schedule-policy": ("schedule_policy", str),
    "--schedule-conservativeness": ("schedule_conservativeness", float),
    "--kv-cache-dtype": ("kv_cache_dtype", str),
    "--page-size": ("page_size", int),
    "--tp": ("tp_size", int),
    "--tp-size": ("tp_size", int),
    "--tensor-parallel-size": ("tp_size", int),
    "--dp": ("dp_size", int),
    "--dp-size": ("dp_size", int),
    "--data-parallel-size": ("dp_size", int),
}
SWITCHES = {
    "--disable-radix-cache": ("disable_radix_cache", True),
    "--allow-auto-truncate": ("allow_auto_truncate", True),
    "--enable-metrics": ("enable_metrics", True),
    "--enable-hierarchical-cache": ("enable_hierarchical_cache", True),
}
_LAUNCH = LazyPattern(r"sglang\.launch_server|(?:^|/)sglang$")


# The records here are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: a frozen dataclass costs ~1 ms of start-up to define.
class SglangCmdline(Record):
    __slots__ = ("argv", "settings")

    def __init__(self, argv: tuple[str, ...], settings: dict | None = None) -> None:
        self.argv = argv
        self.settings = {} if settings is None else settings

    def get(self, key: str, default=None):
        return self.settings.get(key, default)


def _serve_model(i: int, argv: list[str], settings: dict) -> None:
    """`sglang serve MODEL`: the model is the word after the subcommand."""
    if argv[i] == "serve" and i > 0 and argv[i - 1].endswith("sglang") and i + 1 < len(argv) \
            and not argv[i + 1].startswith("-"):
        settings.setdefault("model_path", argv[i + 1])


def parse_sglang_cmdline(text: str | bytes) -> SglangCmdline:
    argv = split_cmdline(text)
    return SglangCmdline(tuple(argv), flag_settings(argv, FLAGS, SWITCHES, positional=_serve_model))


def looks_like_sglang_cmdline(argv) -> bool:
    """`python -m sglang.launch_server`, `sglang serve`, or a path ending in sglang."""
    return any(_LAUNCH.search(a) for a in list(argv)[:6])
