"""The thresholds the engine checks compare with, in one place, each with its reason.

A check prints the figures it compared, so a reader can judge a borderline call; change
a value here, never inline. (The live probe's are in judge/probe/thresholds.py.) Constants
only: every check file imports this module on every run.
"""
from __future__ import annotations

# -- llama-server ---------------------------------------------------------------------------
# Prompt evaluation taking at least this share of request time, over at least this many
# timed requests, is PREFILL (one long prompt alone is not a pattern).
LLAMACPP_PREFILL_MIN_REQUESTS = 3
LLAMACPP_PREFILL_SHARE = 0.5
# Re-processing fewer cached tokens than this is not worth a warning on its own (unless
# prompt evaluation already dominates): a chat turn or two.
LLAMACPP_CACHE_MISS_TOKENS = 1024
# A slot context below this is small for today's chats: an explicit -np split -c that far.
LLAMACPP_SMALL_SLOT_TOKENS = 8192

# -- Progress (llmdoctor ready, ENGINE_STALLED) -------------------------------------------------
# A decode step takes milliseconds and a stats or slot counter moves with each token: requests
# in flight and not one token in this long is no progress, not a slow step. (A prefill of a
# very long prompt can take longer than this on a CPU; the counters of prompt processing do
# not move per batch in every engine, so ENGINE_STALLED from counters alone waits this long.)
STALL_MIN_WINDOW_S = 1.5
# `llmdoctor ready`'s default deadline: what a load balancer or a Kubernetes probe waits.
READY_DEADLINE_S = 5.0

# -- CPU contention ------------------------------------------------------------------------------
# Other work holding at least a third of every core's time over the window, on a host whose
# cores were at least CPU_BUSY_SHARE busy, leaves the engine no spare core: decode on the CPU
# (and a GPU engine's scheduling and sampling threads) waits for it. Steal at or above
# CPU_STEAL_SHARE is the hypervisor giving the VM's time to others (the same wait).
CPU_OTHERS_SHARE = 1 / 3  # (a 2-thread engine beside two busy loops on 2 cores gets about half)
CPU_BUSY_SHARE = 0.9
CPU_STEAL_SHARE = 0.1
# ...while the engine was at work: its processes used at least this many cores' worth (an idle
# engine waits for nobody, whoever holds the cores).
CPU_ENGINE_ACTIVE_CORES = 0.1

# -- GPU health (GPU_DEGRADED) -----------------------------------------------------------------
# A card "works" when a kernel ran this share of the last sample period (nvidia-smi
# utilization.gpu, NVML nvmlDeviceGetUtilizationRates) or its clocks event reasons do not say
# Idle. A decoding LLM server keeps it far above this; a card between requests drops to 0.
GPU_BUSY_UTIL_PCT = 20
# SW power cap and SW thermal slowdown are how a GPU normally runs at its limits (a card at full
# load sits at its power cap); they slow the work only when the SM clock is held well below its
# maximum. Below this share of the max SM clock, while busy, they are a finding. (HW slowdown,
# HW thermal and HW power brake are reported whatever the clock: nvml.h says HW slowdown "reduces
# the core clocks by a factor of 2 or more".)
GPU_HELD_CLOCK_FRACTION = 0.75
# A power limit set below the board's default (`nvidia-smi -pl`, a BMC, a datacenter policy) makes
# SW power cap a finding while the card works, whatever the clock: below this share of the default
# (the margin absorbs the limit's rounding to the card's steps).
GPU_POWER_LIMIT_LOWERED_FRACTION = 0.95

# -- Ollama -----------------------------------------------------------------------------------
# A model load taking longer than this is felt as "the first request hangs".
OLLAMA_SLOW_LOAD_S = 5.0
# This many fast 5xx answers within one second look like a queue turning requests away.
OLLAMA_REJECTED_BURST = 5

# -- vLLM -------------------------------------------------------------------------------------
# KV cache usage pinned near full on this many consecutive stats lines (30 s at the default
# 10 s interval) is not a spike.
VLLM_KV_PINNED_LINES = 3
# A prefix-cache hit rate below this, while many prompt tokens are processed, means prompts
# that could share a prefix do not.
VLLM_LOW_PREFIX_HIT_PCT = 10.0

# -- SGLang -----------------------------------------------------------------------------------
# SGLang logs a decode batch every --decode-log-interval (40) steps, so a run of this many
# batch lines with #queue-req > 0 is a backlog, not one burst.
SGLANG_QUEUE_LINES = 3
# SGLang's tuning guide: token usage > 0.9 is a full KV pool (good utilisation when nothing
# waits); below it with requests queued, the scheduler holds back (--schedule-conservativeness).
SGLANG_KV_FULL = 0.9
# Retractions: the guide calls about one a minute acceptable; this many in a log is a pattern.
SGLANG_RETRACTIONS = 3
# Prompts at least this long (tokens per request), with under this share served from the radix
# cache across at least this many prefill batches, make prefill the cost.
SGLANG_LONG_PROMPT = 1024
SGLANG_LOW_HIT = 0.2
SGLANG_PREFILL_LINES = 3

# --- Queue shape (vLLM Waiting across stats lines) -------------------------------------
# A queue that grows is told from one that absorbs bursts: it climbs when its last line
# holds at least this share of its peak and this many times its first value, over at least
# QUEUE_TREND_MIN_LINES lines that never drained to 0 (arrivals outpace service). Waiting
# that drained to 0 and came back is bursts; a run this short that never came back is a spike.
QUEUE_TREND_PEAK_SHARE = 0.8
QUEUE_TREND_GROWTH = 2.0
QUEUE_TREND_MIN_LINES = 3
QUEUE_SPIKE_MAX_LINES = 2

# --- Concurrency rebuilt from access logs (knowledge/concurrency.py) -----------------------
# A back-to-back chain this long is a server that never idled, not two requests that happened to
# meet (Ollama issue 9054: three /api/chat lines, each starting as the previous ended).
BACK_TO_BACK_MIN_REQUESTS = 3

# -- A Prometheus window (diagnose --prometheus) ------------------------------------------------
# Waiting above 0 at this many consecutive points of the window is a queue, not one unlucky
# scrape (the log checks ask the same of vLLM's stats lines: a run of two or more).
PROM_QUEUE_MIN_POINTS = 2
# Replicas of one model: the busiest carrying at least this many times the load (generated
# tokens/s, else requests running + waiting) of the least busy is a balancer that does not
# balance (round-robin over equal replicas stays well within 1.5x).
REPLICA_LOAD_RATIO = 3.0
# ...and it queued while the others had room, or its peak KV use or p95 TTFT stood apart by
# this much: one replica with a smaller KV pool or a slower card.
REPLICA_KV_GAP = 0.4  # peak KV usage, 0..1
REPLICA_TTFT_RATIO = 3.0
# dcgm-exporter's clocks event reasons that slow a working GPU (nvml.h bits): SW power cap,
# HW slowdown, SW thermal, HW thermal, HW power brake; not idle, application clocks, sync boost.
PROM_GPU_SLOW_REASONS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80
