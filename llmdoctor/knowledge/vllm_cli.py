"""Which vLLM release has the `vllm serve` command and the flags a fix proposes: a fix for an
older server must be a command that server takes.

Read from the released sdists on PyPI (vllm-X.tar.gz): `setup.py` for the console script,
`vllm/engine/arg_utils.py` for each flag (`parser.add_argument('--flag', ...)`), the line given.
A flag's entry is (newest release checked without it, oldest release checked with it): a
version between the two is unknown, and an unknown keeps the flag (no claim without a source).
"""
from __future__ import annotations

import re

# `vllm=vllm.scripts:main` first appears in setup.py at 0.5.2 (setup.py:492, vllm/scripts.py);
# 0.5.1's setup.py has no console_scripts (0.2.7, 0.4.3, 0.5.0 and 0.5.1 checked): before 0.5.2 the
# server is `python -m vllm.entrypoints.openai.api_server --model M`.
SERVE_SINCE = (0, 5, 2)
API_SERVER = "python -m vllm.entrypoints.openai.api_server --model"

# flag -> (newest release checked without it, oldest release checked with it, where)
FLAGS: dict[str, tuple[tuple[int, ...] | None, tuple[int, ...] | None, str]] = {
    "--max-num-seqs": (None, (0, 2, 7), "0.2.7 arg_utils.py:171"),
    "--gpu-memory-utilization": (None, (0, 2, 7), "0.2.7 arg_utils.py:160"),
    "--max-model-len": (None, (0, 2, 7), "0.2.7 arg_utils.py:118"),
    "--max-num-batched-tokens": (None, (0, 2, 7), "0.2.7 arg_utils.py:166"),
    "--kv-cache-dtype": ((0, 2, 7), (0, 3, 0), "0.3.0 arg_utils.py:127"),
    "--enable-prefix-caching": ((0, 3, 3), (0, 4, 1), "0.4.1 arg_utils.py:245"),
    "--enable-chunked-prefill": ((0, 3, 3), (0, 4, 1), "0.4.1 arg_utils.py:416"),
    # absent from 0.5.4's arg_utils.py; their first release was not checked here
    "--data-parallel-size": ((0, 5, 4), None, "not in 0.5.4 arg_utils.py"),
    "--kv-cache-memory-bytes": ((0, 5, 4), None, "not in 0.5.4 arg_utils.py"),
    "--no-enable-prefix-caching": ((0, 5, 4), None, "not in 0.5.4 arg_utils.py"),
    # SchedulerConfig.max_num_queued_reqs (vllm/config/scheduler.py): not in the 0.21.0 wheel, in 0.33.0's
    "--max-num-queued-reqs": ((0, 21, 0), (0, 33, 0), "0.33.0 vllm/config/scheduler.py"),
}

def version_tuple(version: str | None) -> tuple[int, ...] | None:
    """`0.5.4.post1` -> (0, 5, 4); None when it does not start with numbers."""
    m = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    return tuple(int(x) for x in m.groups() if x is not None) if m else None


def has_serve(version: str | None) -> bool | None:
    """Whether that release has `vllm serve` (None: version unknown)."""
    v = version_tuple(version)
    return None if v is None else v >= SERVE_SINCE


def has_flag(version: str | None, flag: str) -> bool | None:
    """Whether that release takes `flag`: False only where a checked release at or after it lacks it."""
    v = version_tuple(version)
    entry = FLAGS.get(flag)
    if v is None or entry is None:
        return None
    without, with_, _ = entry
    if with_ is not None and v >= with_:
        return True
    if without is not None and v <= without:
        return False
    return None
