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
