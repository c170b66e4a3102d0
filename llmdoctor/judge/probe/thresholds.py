"""Every threshold the probe's verdicts use, in one place, with the reason for it.

Each verdict prints the figures it compared against these values, so a reader can
judge a borderline call. Change a value here, never inline.
"""
from __future__ import annotations

# --- QUEUEING -----------------------------------------------------------------------
# Two streams released together. If the later one's first token arrives only after
# the earlier one has (nearly) finished, the server ran them one after the other.
# Overlap = time both were streaming / duration of the shorter stream. With one slot
# it is ~0 (measured on llama-server -np 1: 0 of 10 bursts overlapped); with several
# slots it is ~0.9-1.0.
QUEUE_MAX_OVERLAP = 0.2
# ... and the later stream's wait must be large against a normal first token, so
# two very short streams on a fast server are not misread.
QUEUE_MIN_EXTRA_WAIT_S = 0.05

# --- Batching vs shared bandwidth ---------------------------------------------------
# Per-stream decode rate during the pair, as a fraction of the single-stream rate.
# Decoding is memory-bandwidth bound; real batching costs little per extra stream
# (>= 80 % each). Near half means two streams share one stream's worth of hardware.
HEALTHY_BATCH_SHARE = 0.80
BANDWIDTH_LIMIT_SHARE = 0.60

# --- PREFILL ------------------------------------------------------------------------
# On an idle server, a first token later than this for the probe's long prompt is
# what users feel as "it thinks for ages before typing".
PREFILL_TTFT_WARN_S = 2.0
# ... or a prefill rate so low that a prompt of PREFILL_REFERENCE_TOKENS (a modest
# RAG/chat-history prompt, capped at the context) would wait this long.
PREFILL_REFERENCE_TOKENS = 4096
PREFILL_REFERENCE_WARN_S = 10.0
# Load mode: a stream's longest pause while another request's prompt is processed,
# against its own median inter-token latency.
PREFILL_STALL_FACTOR = 5.0
PREFILL_STALL_MIN_S = 0.25

# --- MODEL_UNLOAD -------------------------------------------------------------------
# Ollama reports the load in load_duration; a resident model shows tens of ms.
LOAD_DURATION_WARN_S = 0.5
# Engines that do not report loads: the warm-up's first token this many times
# later than the next request's, and at least LOAD_EXTRA_MIN_S later.
WARMUP_TTFT_FACTOR = 5.0
LOAD_EXTRA_MIN_S = 1.0

# --- Performance data (figures a monitor graphs; `--format nagios`) ------------------
# Levels for the probe's own latencies, for a monitor's warning and critical states; the
# verdicts above decide the findings. Users notice a first token after ~2 s and give up
# on a chat around 5 s; a stream slower than ~5 tokens/s (0.2 s apart) is slower than
# reading, and 2 tokens/s (0.5 s) reads as stalled.
TTFT_P95_WARN_S = 2.0
TTFT_P95_CRIT_S = 5.0
ITL_P95_WARN_S = 0.2
ITL_P95_CRIT_S = 0.5
