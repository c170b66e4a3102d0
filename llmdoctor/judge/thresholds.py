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
# vLLM's KV cache counts as full from this usage (%) on a stats line: the scheduler then has no
# blocks for a waiting request's prompt, and preempts running ones as theirs grow. A whole
# percentage at or above the log scanner's floor (knowledge/vllm/log.py KV_RUN_FLOOR_PCT): the
# scanner notes the longest run at each such level, and the judge reads the one at this.
VLLM_KV_FULL_PCT = 95
# One request running alone with the KV cache at least this full (the scanner's floor): that one
# sequence takes nearly all of it, so a request near max_model_len does not fit the cache at all
# (vLLM before 0.2.7 did not check this at start-up, and hung or preempted it forever; vllm#2418 family).
VLLM_KV_ALONE_PCT = 90
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
# A round duration shorter than this is not a client deadline worth naming (a 1 s health check's
# limit); people set request timeouts of 10 s, 30 s, minutes (ollama#8387's 30m0s, case132's 10 s).
MIN_DEADLINE_S = 5.0
# One request of a chain cut at a round duration is one runaway generation meeting its client's
# limit (ollama#8387: a 30m0s 500 among 20-70 s answers, tests/fixtures/realcases/case109); this
# many at the same round duration are a limit the queue keeps hitting (judge/deadlines.py).
DEADLINE_HITS = 2

# --- CPU spill (llama-server offload, Ollama `ollama ps` / load lines) ----------------------
# At least half of the layers (or of the model, in `ollama ps` "48%/52% CPU/GPU") on the CPU:
# decode runs at the CPU's memory bandwidth for most of every token, CRITICAL; less is WARNING.
CPU_SPILL_CRITICAL_PCT = 50
# `ollama ps` PROCESSOR "100% CPU": size_vram 0 (cmd/cmd.go ListRunningHandler; a split prints
# "48%/52% CPU/GPU", the share of the size not in VRAM).
OLLAMA_PS_ALL_CPU_PCT = 100
# What to lower a high OLLAMA_NUM_PARALLEL to when a spill is found: the old automatic default
# (server/sched.go v0.2.0-v0.6.6 chose 4 slots where memory allowed). Above it is "set high".
OLLAMA_SPILL_PARALLEL = 4
# "100% GPU" while Ollama's processes hold under this share of the model's size in GPU memory
# (nvidia-smi compute apps): the weights are not there, whatever `ollama ps` says.
OLLAMA_GPU_HELD_SHARE = 0.05

# --- llama-server slots and sleep -----------------------------------------------------------
# A slot taken this soon after it was freed, while every other slot was busy, was taken by a
# request that was already waiting: a release hands the deferred task back to the queue
# (slot.callback_on_release -> queue_tasks.pop_deferred_task(), examples/server/server.cpp:1935 @
# b4747) and the server loop launches it on its next pass, while a client that sends its next
# request only after reading the answer adds its own round trip (knowledge/llamacpp/log.py reports
# every such gap, judge/llamacpp.py queued_launches compares).
LLAMACPP_BACK_TO_BACK_S = 0.05
# A slot taken within LLAMACPP_BACK_TO_BACK_S of being freed while every other slot was busy, this
# many times, is a request that waited, not a client that happened to be quick.
LLAMACPP_QUEUED_LAUNCHES = 2
# The lines the back-to-back inference adds (two examples and its summary): the queueing finding
# is HIGH confidence only with evidence beyond them (a counter, a deferral, every slot busy).
LLAMACPP_WAITED_LINES = 3
# "N requests deferred" is added once the server deferred more than the lines shown (2).
LLAMACPP_DEFERRED_SHOWN = 2
# Idle slots purged to make room this often (knowledge/llamacpp/log.py slot_purges): the shared
# KV pool is short even where no request failed.
LLAMACPP_KV_PURGES_ALONE = 2
# Woken from --sleep-idle-seconds (or a model LRU-unloaded by --models-max) this often in one log:
# a pattern, HIGH confidence; once is MEDIUM.
LLAMACPP_SLEEP_REPEATS = 2

# --- Ollama loads, keep-alive, queue ----------------------------------------------------------
# A reload after at least this long idle (or OLLAMA_KEEP_ALIVE, whichever is longer) is the
# keep-alive expiry; shorter is a reload while in use (ollama-reload-while-active's, up to an hour).
OLLAMA_IDLE_RELOAD_MIN_S = 60.0
OLLAMA_EARLY_RELOAD_MAX_S = 3600.0
# keep_alive at or above this many seconds is "forever" (knowledge/ollama/env.py keep_alive_seconds
# reads a negative value or Go's printed maximum as inf; 10**9 s, ~31 years, takes any such value).
OLLAMA_KEEP_FOREVER_S = 10**9
# keep_alive 0 seen this often, with this many loads: the model is unloaded after every request.
OLLAMA_KEEP_ZERO_REPEATS = 2
# An unloaded runner's VRAM-recovery wait that began this close to a runner load belongs to that
# load: the scheduler waits up to 5 s for the freed VRAM (server/sched.go:640 @ v0.3.14, :649 @ v0.6.8;
# waitForRecovery = 5 s, sched.go:77 @ v0.12.11) before it loads the runner it made room for, polling
# every 250 ms; 10 s leaves the runner's own start time on top.
OLLAMA_UNLOAD_LOAD_GAP_S = 10.0
# Loaded this many times with more than one context size: clients' num_ctx churns the runner.
OLLAMA_RELOAD_CHURN_LOADS = 3
# OLLAMA_MAX_QUEUE at least this many requests per slot is deep: at a few seconds per answer the
# last waits minutes (envconfig: the default is 512 since 0.1.34, over 1-4 slots). It was seen
# filling when more than OLLAMA_DEEP_QUEUE_OBSERVED_PER_SLOT per slot were in flight at once.
OLLAMA_DEEP_QUEUE_PER_SLOT = 32
OLLAMA_DEEP_QUEUE_OBSERVED_PER_SLOT = 2
# Evicted on a CPU-only host with more than this much RAM free: ollama/ollama#13227 (before
# 0.13.1 the scheduler evicted whenever a model could not go to VRAM), not a lack of room.
OLLAMA_EVICT_CPU_FREE_BYTES = 32 * 2**30
# server/routes.go v0.11.0-v0.12.10: gpt-oss's context is raised to at least this unless VRAM is low.
OLLAMA_GPT_OSS_MIN_CONTEXT = 8192
# An answer's own figures (knowledge/ollama/response.py): prompt evaluation taking at least this
# share of the answers' time (less any load) is PREFILL, as llama-server's timings are read
# (LLAMACPP_PREFILL_SHARE: the prompt, not generation, is then most of the wait) ...
OLLAMA_ANSWER_PREFILL_SHARE = LLAMACPP_PREFILL_SHARE
# ... once the prompts took at least this long in all: a second of prompt work is not a wait
# anyone reports (the probe's PREFILL verdict starts at a 2 s time to first token too).
OLLAMA_ANSWER_PREFILL_MIN_S = 2.0

# --- HTTP ----------------------------------------------------------------------------------
# RFC 9110 section 15: 4xx and 5xx are the failed answers.
HTTP_ERROR_STATUS = 400

# --- vLLM (more) -----------------------------------------------------------------------------
# "Maximum concurrency for N tokens per request: X" (gpu_executor / kv_cache_utils): under one
# full-length request the pool cannot hold the longest request; under two it runs one at a time.
VLLM_KV_FULL_REQUESTS = 1.0
VLLM_KV_FEW_FULL_REQUESTS = 2.0
# GPU KV cache usage at or above this share with requests waiting is a pool held near full.
VLLM_KV_PINNED_USAGE = 0.8
# Preemptions at or above this count in a log (at least what the warnings and the cumulative
# count say: V0 warns on the 1st, 51st, 101st..., scheduler.py), or at or above this many per
# minute now (vllm:num_preemptions_total between two scrapes), are CRITICAL: latency collapses.
VLLM_PREEMPTIONS_CRITICAL = 100
VLLM_PREEMPTIONS_PER_MIN_CRITICAL = 60.0
# A low prefix hit rate counts over at least this many busy stats lines, or this many queried
# prompt tokens between two metric samples (a few long prompts are not a workload).
VLLM_PREFIX_MIN_LINES = 3
VLLM_PREFIX_MIN_QUERIED_TOKENS = 10000
# V0 prints "Prefix cache hit rate" beside its stats when caching is on: this many stats lines
# without it say caching is off.
VLLM_PREFIX_OFF_MIN_LINES = 3
# A Waiting run this long (stats lines) is a queue seen over time; one pasted line proves less.
VLLM_WAITING_RUN_LINES = 2

# --- SGLang (more) ---------------------------------------------------------------------------
# tp_worker.py (0.4-0.5.10) allows min(context_len - 1, max_total_num_tokens - 1) - 5 input tokens:
# a refusal limit under context_len - 6 is the KV pool's.
SGLANG_INPUT_LIMIT_MARGIN = 6
# A truncation limit under this share of --context-length is the pool's, not the context's.
SGLANG_TRUNCATION_POOL_SHARE = 0.9

# --- Swap -------------------------------------------------------------------------------------
# Swapping with more than this share of RAM available: a cgroup memory limit squeezes the
# workload, not the host (the fix is the limit, not more RAM).
SWAP_CGROUP_AVAILABLE_SHARE = 0.5

# --- vLLM: why requests wait (judge/vllm.py) ---------------------------------------------------
# Waiting requests on lines with the KV cache at least this full (or on the gauge) wait for KV
# room, not for a place in the batch: "kv" when at least VLLM_KV_BOUND_SHARE of the waiting lines.
VLLM_KV_BOUND_PCT = 80.0
VLLM_KV_BOUND_SHARE = 0.5
# Waiting matters over VLLM_WAITING_RUN_LINES lines in a row (>= 10 s at the default interval),
# or on one line whose queue is at least this deep and as deep as the running batch (a pasted
# excerpt is often that short).
VLLM_DEEP_QUEUE_MIN = 4
# Prompt throughput over this many times generation throughput is prefill's; more than this
# share of waiting lines prompt-heavy makes the wait prefill's. One of the ratios the vLLM log
# scanner counts waiting lines at (knowledge/vllm/log.py PROMPT_RATIOS).
VLLM_PREFILL_OVER_GENERATION = 10
VLLM_PREFILL_HEAVY_SHARE = 0.5
# Decode starved by a prefill: prompt tokens/s that only a long prompt's prefill produces in one
# interval, beside generated tokens/s per running request below which decoding has stalled.
VLLM_PREFILL_TPS = 1000.0
VLLM_STARVED_TPS = 2.0
# --max-num-seqs by default: 128 (CPU) to 1024 (H100/H200), vllm/engine/arg_utils.py get_batch_defaults.
VLLM_SMALLEST_DEFAULT_SEQS = 128
# A KV cache under half full while requests wait still has room for them.
VLLM_ROOM_KV_PCT = 50.0
# A running request holding this share of the KV cache or more has a long context; fuller than
# VLLM_FEW_LONG_KV_PCT, a waiting long request may not fit in what is left (under it, vLLM admits
# what waits as soon as a step allows: a queue then is not the cache's doing; from
# VLLM_KV_BOUND_PCT on, classify_waiting calls it a KV-bound wait of its own).
VLLM_KV_HOG_PCT = 10.0
VLLM_FEW_LONG_KV_PCT = 70.0
# --gpu-memory-utilization proposed for more KV room where the value set is below this (vLLM's
# default is 0.9, 0.92 from v0.20); at or above it, kv_room_fix adds 0.02, up to 0.98.
VLLM_MAX_GPU_UTIL = 0.95

# --- SGLang: why requests wait (judge/sglang.py) ----------------------------------------------
# One batch line whose queue is at least this deep (and as deep as the running batch) is a backlog
# even without SGLANG_QUEUE_LINES of them; "kv" when at least this share of the waiting lines had
# the pool full; a queue run this long is a backlog seen over time.
SGLANG_DEEP_QUEUE_MIN = 4
SGLANG_KV_FULL_SHARE = 0.5
SGLANG_QUEUE_SUSTAINED_LINES = 2

# --- Swap (judge/swap.py) ---------------------------------------------------------------------
# Below this swap-in + swap-out rate an interval is background noise (a few pages of an idle
# daemon); at or above it, swap activity. Activity in at least SWAP_SUSTAINED_INTERVALS intervals
# that make up at least SWAP_SUSTAINED_SHARE of the window is sustained; swap-in at half the
# activity rate is pages coming back (the working set itself does not fit: thrashing).
SWAP_ACTIVE_BYTES_PER_S = 256 * 1024
SWAP_SUSTAINED_INTERVALS = 2
SWAP_SUSTAINED_SHARE = 0.5
SWAP_READ_BACK_BYTES_PER_S = SWAP_ACTIVE_BYTES_PER_S / 2

# --- GPU idle (judge/gpu.py) ------------------------------------------------------------------
# A performance state this deep or deeper (P5-P12: the card lowered clocks and link because little
# runs, nvidia-smi -q "Performance State") says idle.
GPU_IDLE_PSTATE = 5

# --- Ollama VRAM held by others (judge/ollama.py) ---------------------------------------------
# GPU memory other processes hold when Ollama takes its inventory. Ollama plans every load
# against the free memory it measures (discover/, llm/memory.go), so what they hold is lost to
# models; a desktop session holds a few hundred MiB, which both floors stay clear of.
OLLAMA_VRAM_HELD_SHARE = 0.25  # of the GPUs' total
OLLAMA_VRAM_HELD_MIN_BYTES = 2 << 30

# --- systemd (judge/systemd.py) ---------------------------------------------------------------
# A server config line logged more than this before the unit's ActiveEnterTimestamp is from an
# earlier start (the margin absorbs the engine's start-up time and the clocks' rounding).
SYSTEMD_LOGGED_BEFORE_START_S = 120.0

# --- Headroom (judge/probe/headroom.py: the fitted service model of a sweep) --------------------
# A prediction is trusted when the model fitted without one measured level predicts that level's
# p50 TTFT and mean ITL within this relative error (the larger of the two). Beyond it the output says
# "not to be trusted" instead of a number: a model that misses a level it could see the neighbours
# of would miss an unmeasured one by more. 35%: the p50 of four requests on a busy machine moves
# 10-25% between runs of the same level.
HEADROOM_TRUST_ERROR = 0.35
# The error bar is never narrower than this share of a latency, however well the backtest did:
# one held-out level of four requests is a small sample.
HEADROOM_MIN_BAND = 0.10
# A backtest needs a level to hold out and at least two to fit from (the batch must vary).
HEADROOM_MIN_LEVELS = 3
# Predictions beyond this many times the largest concurrency measured are extrapolation: said so.
HEADROOM_EXTRAPOLATION = 4
# An answer whose chunks all arrived within this share of its request's time came in one bunch
# (vLLM on a busy CPU sends a whole answer at once): its timings do not show the engine's steps.
# When at least HEADROOM_BUNCHED_SHARE of a sweep's answers did, no model is fitted to them.
HEADROOM_BUNCHED_WINDOW = 0.1
HEADROOM_BUNCHED_SHARE = 0.25

# --- Ollama: requests after a pause (checks/ollama_slow_after_idle.py, judge.ollama.cold_starts) --
# A request after this long without traffic that took COLD_FACTOR times the median of the
# requests that came without a pause, and COLD_MARGIN_S more, was "cold": a reload, or a
# prompt not cached. (The scanner only reads each request's pause and duration.)
OLLAMA_IDLE_GAP_S = 30.0
OLLAMA_COLD_FACTOR = 3.0
OLLAMA_COLD_MARGIN_S = 5.0
# The typical (median warm) duration is taken as at least this, so a run of near-instant answers
# (a cache hit, an empty prompt) does not make every ordinary request look like a cold start.
OLLAMA_TYPICAL_FLOOR_S = 0.1

# --- Ollama: requests answered one at a time (checks/ollama_queueing.py, judge.ollama.serial_service) --
# The numbers the Ollama log scanner applied itself (knowledge/ollama/log.py _Requests._close at
# c802c72) until issue 26 moved the rule here, unchanged: tests/engines/ollama/
# test_ollama_serial_reference.py holds the two to the same result. The scanner counts the groups on
# a grid (knowledge/ollama/log.py SERIAL_CAP) on which all five lie; a site's value off it acts as the
# next grid point above it.

# A group of access-log requests in flight together was served by one slot when at least this many
# of them finished one after another: two in a row is a coincidence of arrival (counted up to 8).
OLLAMA_SERIAL_MIN_REQUESTS = 3
# ... with at least this many in flight at once, beyond gin's 1 s resolution (counted up to 8).
OLLAMA_SERIAL_MIN_PEAK = 3
# ... each end at least this long after the one before: gin stamps whole seconds, so ends closer
# than 1.5 s cannot be told from finishing together (grid: 0.1 s, up to 10 s).
OLLAMA_SERIAL_MIN_GAP_S = 1.5
# ... and at least this share of a typical answer (the median of the requests that had the server
# alone) after it: with one slot each waits for a whole answer ahead of it, with several they
# finish close together; a quarter leaves room for short answers in the mix (grid: 0.05, up to 2).
OLLAMA_SERIAL_GAP_SHARE = 0.25
# Pairs that overlapped and ended within gin's 1 s of each other show parallel slots (and silence
# the finding) only where a typical answer takes this long: shorter ones end that close by chance
# (grid: 0.1 s, up to 60 s).
OLLAMA_PARALLEL_MIN_TYPICAL_S = 3.0

# -- A Prometheus window (diagnose --prometheus) ------------------------------------------------
# Waiting above 0 at this many consecutive points of the window is a queue, not one unlucky
# scrape (the log checks ask the same of vLLM's stats lines: a run of two or more).
PROM_QUEUE_MIN_POINTS = 2
# Twice that many points in a row: the waiting was sustained, HIGH confidence (fewer: MEDIUM).
PROM_QUEUE_SURE_POINTS = 2 * PROM_QUEUE_MIN_POINTS
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
