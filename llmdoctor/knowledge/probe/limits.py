"""How the live probe runs: its safety limits, timeouts and prompt sizes.

Kept apart from the verdict thresholds (judge/probe/thresholds.py): these bound what the
probe sends, those judge what it measured. Change a value here, never inline.
"""
from __future__ import annotations

# Safe by default: a handful of short requests, never more than three at once.
LIGHT_MAX_IN_FLIGHT = 3          # never more requests at once in the light probe
MAX_OUTPUT_TOKENS = 64           # per request, light and load mode
WARMUP_OUTPUT_TOKENS = 8         # the warm-up only needs the first token
LONG_PROMPT_OUTPUT_TOKENS = 8    # the long-prompt request measures prefill, not decode
DEFAULT_DEADLINE_S = 60.0        # whole probe
REQUEST_TIMEOUT_S = 30.0         # one request, send to last chunk
READ_TIMEOUT_S = 15.0            # silence on an open stream before it counts as stalled
CONNECT_TIMEOUT_S = 5.0
WARMUP_TIMEOUT_S = 45.0          # the warm-up may carry a model load from disk (tens of s)
DETECT_TIMEOUT_S = 3.0           # each engine-detection GET

# Long prompt: sized in tokens, below the slot's context (half of it at most), so
# it never triggers truncation or a 400 "exceed_context_size_error".
LONG_PROMPT_TOKENS = 1024
LONG_PROMPT_MAX_CONTEXT_SHARE = 0.5
LOAD_LONG_PROMPT_TOKENS = 2048   # the prompt injected in load mode
LOAD_MAX_STREAMS = 32

# Repetitions: every scenario (but the warm-up: only a first request can carry a load) runs
# RUNS times, interleaved, so a verdict has a spread, within about the token budget one run of
# each used to take (5 requests, ~210 tokens): each stream then generates REPEAT_OUTPUT_TOKENS.
RUNS = 3
REPEAT_OUTPUT_TOKENS = 20
# A busy server (others' requests running or queued before a scenario): wait for it to go
# idle for at most this long in all (a share of the deadline, capped), then probe anyway and
# treat what was measured on it as inconclusive.
IDLE_WAIT_MAX_S = 10.0
IDLE_WAIT_SHARE = 0.15
IDLE_WAIT_PER_RUN_S = 2.0        # before each later scenario run, a shorter wait
