"""vLLM's messages that carry a fact a cause needs, from vLLM's own source.

Read in the PyPI release wheels (`vllm==X`, the `.py` files): 0.4.3, 0.5.5, 0.6.6.post1,
0.7.3, 0.8.5, 0.9.2, 0.10.2, 0.11.0 and 0.33.0 (0.32.0 through this project's own recording,
tests/fixtures/vllm/real_0.32_cpu). Line numbers are those of the wheel of the version named
and move in every release; the format string is what is matched. "V0" lines stop at 0.10.2
(the last release that ships vllm/core/scheduler.py and vllm/engine/metrics.py). The table
format: knowledge/messages.py; `summarize` runs this engine's own log scanner.
"""
from __future__ import annotations

from llmdoctor.knowledge.messages import message

E = "vllm"

# Public reports quoted below (the lines are copied verbatim from them or from the fixtures
# named, which copy them verbatim; see tests/fixtures/vllm/README.md).
FX = "tests/fixtures/vllm/"
REAL32 = FX + "real_0.32_cpu/startup.log"
I546 = "https://github.com/vllm-project/vllm/issues/546"
I2136 = "https://github.com/vllm-project/vllm/issues/2136"
I18115 = "https://github.com/vllm-project/vllm/issues/18115"
P37307 = "https://github.com/vllm-project/vllm/pull/37307"
P6102 = "https://github.com/vllm-project/vllm/pull/6102"
P550 = "https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/550"
I11550 = "https://github.com/vllm-project/vllm/issues/11550"
P11349 = "https://github.com/vllm-project/vllm/pull/11349"
I3676 = "https://github.com/vllm-project/vllm/issues/3676"
X1715 = "https://github.com/xorbitsai/inference/issues/1715"
I10439 = "https://github.com/vllm-project/vllm/issues/10439"
I21348 = "https://github.com/vllm-project/vllm/issues/21348"
I20305 = "https://github.com/vllm-project/vllm/issues/20305"
KVC29 = "https://github.com/ovg-project/kvcached/issues/29"
I39734 = "https://github.com/vllm-project/vllm/issues/39734"
I10517 = "https://github.com/vllm-project/vllm/issues/10517"
LLMC1560 = "https://github.com/vllm-project/llm-compressor/pull/1560"
I13209 = "https://github.com/vllm-project/vllm/issues/13209"
I12165 = "https://github.com/vllm-project/vllm/issues/12165"
I17954 = "https://github.com/vllm-project/vllm/issues/17954"
X3785 = "https://github.com/xorbitsai/inference/issues/3785"
LF7723 = "https://github.com/hiyouga/LlamaFactory/issues/7723"
I4667 = "https://github.com/vllm-project/vllm/issues/4667"
KUBEAI418 = "https://github.com/kubeai-project/kubeai/issues/418"
ITTS99 = "https://github.com/Ksuriuri/index-tts-vllm/issues/99"
RLLM62 = "https://github.com/rllm-org/rllm/issues/62"
X304 = "tests/fixtures/realcases_extra3/x304_vllm_llamastack_max_tokens_6048_equals_context_400/http_response.txt"

_PREEMPT_TAIL = ("because there is not enough KV cache space. This can affect the end-to-end performance. "
                 "Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. ")

MESSAGES = (
    # -- the periodic stats line (QUEUEING, KV_CAPACITY, PREEMPTION, SWAP) ------------------------
    message(
        "vllm.stats.v0_swapped_pending", E, "≤0.4.3-0.10.2 (V0 engine)",
        "vllm/engine/metrics.py:342 @ v0.4.3, :470 @ v0.6.6.post1, :489 @ v0.8.5, :401 @ v0.10.2",
        r"Running: \d+ reqs, Swapped: \d+ reqs, Pending: \d+ reqs, \w+ KV cache usage: [\d.]+%",
        "swapped: ",
        facts=("running requests", "swapped requests", "pending (queued) requests", "GPU KV cache usage",
               "CPU KV cache usage"),
        causes=("QUEUEING", "KV_CAPACITY", "SWAP"),
        examples=[
            ("INFO 10-28 11:16:34 metrics.py:349] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
             "7220.5 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 98 reqs, GPU KV cache usage: 73.8%, "
             "CPU KV cache usage: 0.0%.", I546),
            ("INFO 05-22 02:20:59 metrics.py:229] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
             "0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, "
             "CPU KV cache usage: 0.0%", I2136),
        ],
        expect=[("stats_lines", 1), ("engine_version", "v0"), ("last_stats.swapped", 0),
                ("last_stats.cpu_kv_usage_pct", 0.0)],
    ),
    message(
        "vllm.stats.v0_pending_queue", E, "≤0.4.3-0.10.2 (V0 engine)",
        "vllm/engine/metrics.py:342 @ v0.4.3, :470 @ v0.6.6.post1",
        r"Pending: [1-9]\d* reqs, GPU KV cache usage: [\d.]+%, CPU KV cache usage: [\d.]+%",
        "pending: ",
        facts=("pending (queued) requests",), causes=("QUEUEING",),
        examples=[
            ("INFO 10-28 11:16:39 metrics.py:349] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
             "7154.5 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 98 reqs, GPU KV cache usage: 86.1%, "
             "CPU KV cache usage: 0.0%.", I546),
        ],
        expect=[("max_waiting", 98), ("max_running", 2), ("waiting_lines", 1), ("last_stats.kv_usage_pct", 86.1)],
    ),
    message(
        "vllm.stats.v0_prefix_cache", E, "0.5.5 (absent at 0.4.3)-0.10.2 (V0 engine, prefix caching on)",
        "vllm/engine/metrics.py:368 @ v0.5.5, :484 @ v0.6.6.post1, :503 @ v0.8.5, :415 @ v0.10.2",
        r"Prefix cache hit rate: GPU: [\d.]+%, CPU: [\d.]+%", "prefix cache hit rate: gpu:",
        facts=("GPU prefix-cache hit rate",), causes=("PREFILL",),
        examples=[("INFO 05-11 12:04:19 [metrics.py:502] Prefix cache hit rate: GPU: 0.00%, CPU: 0.00%", I17954)],
        note="A line of its own, printed right after the V0 stats line: read in a window after it "
             "(alone it has no record to attach to, so no expect).",
    ),
    message(
        "vllm.stats.v1_engine", E, "0.7.3-0.11.0 (V1 engine; the 'Engine NNN: ' prefix from 0.8.5)",
        "vllm/v1/metrics/loggers.py:81 @ v0.7.3, :113 @ v0.8.5, :127 @ v0.10.2, :131 @ v0.11.0",
        r"Running: \d+ reqs, Waiting: \d+ reqs, (?:[A-Za-z][A-Za-z ]*: [^,%]*, )*\w+ KV cache usage: [\d.]+%",
        "waiting: ",
        facts=("running requests", "waiting (queued) requests", "KV cache usage", "prefix-cache hit rate"),
        causes=("QUEUEING", "KV_CAPACITY"),
        examples=[
            ("(APIServer pid=11574) INFO 03-17 15:38:10 [loggers.py:259] Engine 000: Avg prompt throughput: "
             "23998.2 tokens/s, Avg generation throughput: 18.1 tokens/s, Running: 10 reqs, Waiting: 90 reqs, "
             "GPU KV cache usage: 19.3%, Prefix cache hit rate: 0.0%", P37307),
            ("INFO 07-28 06:40:59 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.2%, "
             "Prefix cache hit rate: 0.0%", I18115),
            ("INFO 02-19 23:58:05 loggers.py:78] Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: "
             "96.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%, Prefix cache hit rate: 0.0%",
             "rendered from vllm/v1/metrics/loggers.py:79 @ v0.7.3"),
        ],
        expect=[("stats_lines", 1), ("engine_version", "v1"), ("last_stats.kv_device", "GPU"),
                ("last_stats.prefix_hit_pct", 0.0)],
    ),
    message(
        "vllm.stats.v1_device_kv", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 (the device named: 'CPU KV cache usage' on the CPU backend, "
        "'XPU' on Intel; GPU before)",
        "vllm/v1/metrics/loggers.py:314 @ v0.33.0",
        r"Waiting: \d+ reqs, (?:[A-Za-z][A-Za-z ]*: [^,%]*, )*(?:CPU|XPU|NPU|HPU|TPU) KV cache usage: [\d.]+%",
        "kv cache usage: ",
        facts=("running requests", "waiting requests", "KV cache usage on the named device"),
        causes=("QUEUEING", "KV_CAPACITY", "CPU_SPILL"),
        examples=[
            ("(APIServer pid=25400) INFO 12-01 08:07:51 [loggers.py:335] Engine 000: Avg prompt throughput: "
             "721.9 tokens/s, Avg generation throughput: 376.3 tokens/s, Running: 5 reqs, Waiting: 11 reqs, "
             "CPU KV cache usage: 93.8%, Prefix cache hit rate: 0.0%", REAL32),
        ],
        expect=[("max_waiting", 11), ("max_running", 5), ("max_in_flight", 16), ("last_stats.kv_device", "CPU"),
                ("last_stats.kv_usage_pct", 93.8)],
    ),
    message(
        "vllm.stats.v1_preemptions", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 (the part is printed only when preemptions > 0)",
        "vllm/v1/metrics/loggers.py:311 @ v0.33.0 (\"Preemptions: %d\" joined into log_parts)",
        r"Waiting: \d+ reqs, (?:[A-Za-z][A-Za-z ]*: [^,%]*, )*Preemptions: \d+, (?:[A-Za-z][A-Za-z ]*: [^,%]*, )*"
        r"\w+ KV cache usage",
        "preemptions: ",
        facts=("preemptions in the interval", "KV cache usage"), causes=("PREEMPTION", "KV_CAPACITY"),
        examples=[
            ("(APIServer pid=25400) INFO 12-01 08:07:52 [loggers.py:341] Engine 000: Avg prompt throughput: "
             "1398.4 tokens/s, Avg generation throughput: 1999.7 tokens/s, Running: 7 reqs, Waiting: 1 reqs, "
             "Preemptions: 6, GPU KV cache usage: 100.0%, Prefix cache hit rate: 0.0%",
             "rendered from vllm/v1/metrics/loggers.py:311 @ v0.33.0"),
        ],
        expect=[("v1_preemptions", 6), ("stats_with_preemptions", 1), ("last_stats.preemptions", 6),
                ("last_stats.kv_usage_pct", 100.0)],
    ),
    message(
        "vllm.stats.v1_deferred", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 (printed only when requests were skipped in the waiting queue)",
        "vllm/v1/metrics/loggers.py:300 @ v0.33.0",
        r"Waiting: \d+ reqs, Deferred: \d+ reqs", "deferred: ",
        facts=("waiting requests (skipped ones included)", "deferred requests"), causes=("QUEUEING",),
        examples=[
            ("(APIServer pid=7) INFO 05-02 10:00:10 [loggers.py:341] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
             "Avg generation throughput: 310.4 tokens/s, Running: 32 reqs, Waiting: 12 reqs, Deferred: 4 reqs, "
             "GPU KV cache usage: 64.0%, Prefix cache hit rate: 12.5%",
             "rendered from vllm/v1/metrics/loggers.py:300 @ v0.33.0"),
        ],
        expect=[("max_waiting", 12), ("last_stats.deferred", 4), ("last_stats.prefix_hit_pct", 12.5)],
    ),
    message(
        "vllm.stats.v1_engines_aggregated", E, "after 0.11 (absent at 0.11.0)-≥0.33 (data parallel: the API server's aggregate of N engines)",
        "vllm/v1/metrics/loggers.py:373 @ v0.33.0 (log_prefix)",
        r"\d+ Engines Aggregated: Avg prompt throughput", "engines aggregated: ",
        facts=("engines aggregated", "running and waiting over all engines"), causes=("QUEUEING",),
        examples=[
            ("(APIServer pid=66) INFO 09-02 08:46:23 [v1/metrics/loggers.py:271] 1 Engines Aggregated: Avg prompt "
             "throughput: 0.0 tokens/s, Avg generation throughput: 11.5 tokens/s, Running: 0 reqs, Waiting: 0 reqs, "
             "GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%",
             "rendered from vllm/v1/metrics/loggers.py:373 @ v0.33.0"),
        ],
        expect=[("stats_lines", 1), ("last_stats.engines_aggregated", 1)],
    ),
    # -- V0 preemption (PREEMPTION, SWAP) -----------------------------------------------------------
    message(
        "vllm.preempt.v0_by_mode", E, "≤0.4.3-0.10.2 (V0 scheduler; every 50th preemption is logged)",
        "vllm/core/scheduler.py:1078 @ v0.4.3, :1556 @ v0.6.6.post1, :1769 @ v0.8.5, :1776 @ v0.10.2",
        r"is preempted by (?:PreemptionMode\.)?(?:RECOMPUTE|SWAP) mode because there is not enough KV cache space",
        "is preempted by",
        facts=("preemption mode (RECOMPUTE: prompt recomputed; SWAP: KV blocks copied to CPU)",
               "cumulative preemptions"),
        causes=("PREEMPTION", "SWAP", "KV_CAPACITY"),
        examples=[
            ("WARNING 08-20 10:18:39 scheduler.py:1141] Sequence group 147 is preempted by PreemptionMode.RECOMPUTE "
             "mode " + _PREEMPT_TAIL + "total_num_cumulative_preemption=1", P6102),
        ],
        expect=[("preemption_warnings", 1), ("preemption_modes", (("RECOMPUTE", 1),)), ("max_cumulative", 1)],
    ),
    message(
        "vllm.preempt.v0_swap", E, "≤0.4.3-0.10.2 (V0 scheduler, best_of/n > 1 or --preemption-mode swap)",
        "vllm/core/scheduler.py:1078 @ v0.4.3, :1556 @ v0.6.6.post1",
        r"is preempted by (?:PreemptionMode\.)?SWAP mode", "preemptionmode.swap",
        facts=("preemption by swapping to CPU",), causes=("SWAP", "PREEMPTION"),
        examples=[
            ("WARNING 10-28 11:16:41 scheduler.py:1483] Sequence group chat-7e630abf1a8b4c8a88775b1e98a54cf2 is "
             "preempted by PreemptionMode.SWAP mode " + _PREEMPT_TAIL + "total_num_cumulative_preemption=51",
             "rendered from vllm/core/scheduler.py:1556 @ v0.6.6.post1"),
        ],
        expect=[("preemption_modes", (("SWAP", 1),)), ("max_cumulative", 51)],
    ),
    # -- KV capacity at start-up (KV_CAPACITY) -----------------------------------------------------
    message(
        "vllm.kv.v0_gpu_cpu_blocks", E, "≤0.4.3-0.6.6 ('# GPU blocks: N, # CPU blocks: M')",
        "vllm/executor/gpu_executor.py:83 @ v0.4.3, :121 @ v0.5.5, :76 @ v0.6.6.post1; "
        "vllm/executor/distributed_gpu_executor.py:56 @ v0.4.3",
        r"# GPU blocks: \d+, # CPU blocks: \d+", "# gpu blocks:",
        facts=("GPU KV blocks", "CPU swap blocks"), causes=("KV_CAPACITY", "SWAP"),
        examples=[
            ("INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 229, # CPU blocks: 512",
             FX + "kv_v0_dropped_hash_10517.log"),
            ("2024-06-28T06:11:52.685300953Z (LLMRayActor pid=20770) INFO 06-28 06:11:45 "
             "distributed_gpu_executor.py:45] # GPU blocks: 378, # CPU blocks: 1638",
             FX + "kv_v0_ray_prefix_openrlhf_336.log"),
        ],
        expect=[("kv_capacity.gpu_blocks", True), ("kv_capacity.cpu_blocks", True), ("startups", 1)],
    ),
    message(
        "vllm.kv.v0_device_blocks", E, "0.7.3-0.11.0 ('# cuda blocks', '# xpu blocks': the device's name)",
        "vllm/executor/executor_base.py:111 @ v0.7.3, :112 @ v0.8.5, :114 @ v0.10.2, :116 @ v0.11.0",
        r"# \w+ blocks: \d+, # CPU blocks: \d+", " blocks: ",
        facts=("KV blocks on the device", "CPU swap blocks"), causes=("KV_CAPACITY", "SWAP"),
        examples=[("INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191, # CPU blocks: 512", P550)],
        expect=[("kv_capacity.gpu_blocks", 7191), ("kv_capacity.cpu_blocks", 512)],
    ),
    message(
        "vllm.kv.v1_gpu_blocks", E, "0.6.6-0.7.3 (V1 preview: '# GPU blocks: N' alone)",
        "vllm/v1/executor/uniproc_executor.py:64 @ v0.6.6.post1; vllm/v1/core/kv_cache_utils.py:522 @ v0.7.3",
        r"# GPU blocks: \d+(?!, # CPU)", "# gpu blocks:",
        facts=("GPU KV blocks",), causes=("KV_CAPACITY",),
        examples=[("INFO 02-20 00:01:02 kv_cache_utils.py:522] # GPU blocks: 127626", FX + "kv_v1_blocks_13596.log")],
        expect=[("kv_capacity.gpu_blocks", 127626)],
    ),
    message(
        "vllm.kv.v1_cache_size_tokens", E, "0.8.5 (absent at 0.7.3)-≥0.33 ('GPU KV cache size: N tokens'; after 0.11: '<device> KV cache size')",
        "vllm/v1/core/kv_cache_utils.py:634 @ v0.8.5, :864 @ v0.10.2, :1087 @ v0.11.0",
        r"KV cache size: \d[\d,]* tokens", "kv cache size: ",
        facts=("KV cache capacity in tokens",), causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [kv_cache_utils.py:864] GPU KV cache size: "
             "42,656 tokens", FX + "kv_v1_fp8_25350.log"),
            ("GPU KV cache size: 178,880 tokens", I21348),
            ("(EngineCore pid=1328566) INFO 04-15 09:35:17 [kv_cache_utils.py:1319] GPU KV cache size: 37,392 tokens",
             I39734),
        ],
        expect=[("kv_capacity.kv_tokens", True)],
    ),
    message(
        "vllm.kv.v1_size_and_concurrency", E, "after 0.19.1 (two lines there, vllm#39734; seen at 0.32, 0.33)-≥0.33 (one line: '<device> KV cache size: N tokens, Maximum "
        "concurrency for M tokens per request: X.XXx')",
        "vllm/v1/core/kv_cache_utils.py:1148 @ v0.33.0",
        r"KV cache size: \d[\d,]* tokens, Maximum concurrency for \d[\d,]* tokens per request: [\d.]+x",
        "kv cache size: ",
        facts=("KV cache capacity in tokens", "max_model_len", "requests of full length that fit at once"),
        causes=("KV_CAPACITY",),
        examples=[("(EngineCore pid=26103) INFO 12-01 08:07:49 [kv_cache_utils.py:2327] CPU KV cache size: 2,176 "
                   "tokens, Maximum concurrency for 1,024 tokens per request: 2.12x", REAL32)],
        expect=[("kv_capacity.kv_tokens", 2176), ("kv_capacity.tokens_per_request", 1024),
                ("kv_capacity.max_concurrency", 2.12)],
    ),
    message(
        "vllm.kv.max_concurrency", E, "0.6.6 (absent at 0.5.5)-0.19.1 (vllm#39734) (a line of its own after the size line; joined to it by 0.32)",
        "vllm/executor/gpu_executor.py:80 @ v0.6.6.post1; vllm/executor/executor_base.py:117 @ v0.8.5; "
        "vllm/v1/core/kv_cache_utils.py:637 @ v0.8.5, :1091 @ v0.11.0",
        r"Maximum concurrency for \d[\d,]* tokens per request: [\d.]+x", "maximum concurrency for ",
        facts=("max_model_len", "requests of full length that fit in the KV cache at once"),
        causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [kv_cache_utils.py:868] Maximum concurrency for "
             "32,768 tokens per request: 1.30x", FX + "kv_v1_fp8_25350.log"),
            ("INFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x",
             FX + "kv_v1_blocks_12569.log"),
            ("(EngineCore pid=1328566) INFO 04-15 09:35:17 [kv_cache_utils.py:1324] Maximum concurrency for 262,144 "
             "tokens per request: 1.53x", I39734),
        ],
        expect=[("kv_capacity.max_concurrency", True), ("kv_capacity.tokens_per_request", True)],
    ),
    message(
        "vllm.kv.available_memory", E, "0.9.2 (absent at 0.8.5)-≥0.33 ('%.2f GiB'; '%s GiB' at 0.33)",
        "vllm/v1/worker/gpu_worker.py:232 @ v0.9.2, :298 @ v0.11.0, :773 @ v0.33.0",
        r"Available KV cache memory: [\d.]+ ?GiB", "available kv cache memory",
        facts=("memory left for the KV cache",), causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV cache memory: "
             "6.51 GiB", FX + "kv_v1_fp8_25350.log"),
            ("Available KV cache memory: 8.11 GiB", I21348),
        ],
        expect=[("kv_capacity.available_gib", True)],
    ),
    message(
        "vllm.kv.v0_max_seq_len_exceeds_cache", E, "≤0.4.3-0.10.2 (V0 worker; also the CPU/HPU/OpenVINO workers)",
        "vllm/worker/worker.py:376 @ v0.4.3, :499 @ v0.6.6.post1, :566 @ v0.8.5, :666 @ v0.10.2",
        r"max seq len \(\d+\) is larger than the maximum number of tokens that can be stored in KV cache \(\d+\)",
        "max seq len",
        facts=("max_model_len", "tokens the KV cache holds"), causes=("KV_CAPACITY",),
        examples=[
            ("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
             "stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
             "initializing the engine.", FX + "max_seq_len_v0_qwen_295.log"),
        ],
        expect=[("max_seq_len_error.max_seq_len", 32768), ("max_seq_len_error.kv_tokens", 7344)],
    ),
    message(
        "vllm.kv.v1_models_max_seq_len", E, "0.7.3-0.11.0 ('models's', V1 engine core)",
        "vllm/v1/core/kv_cache_utils.py:466 @ v0.7.3, :546 @ v0.8.5, :709 @ v0.10.2, :717 @ v0.11.0",
        r"models's max seq len \(\d+\),\s*\(?[\d.]+ GiB KV cache is needed, which is larger than the available KV "
        r"cache memory \([\d.]+ GiB\)",
        "max seq len",
        facts=("max_model_len", "KV memory one request needs", "KV memory available", "the length that fits"),
        causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's max seq len "
             "(262144), (24.0 GiB KV cache is needed, which is larger than the available KV cache memory (3.18 GiB). "
             "Based on the available memory, the estimated maximum model length is 34736. Try increasing "
             "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
             FX + "max_seq_len_v1_34076.log"),
        ],
        expect=[("max_seq_len_error.max_seq_len", 262144), ("max_seq_len_error.available_gib", 3.18),
                ("max_seq_len_error.estimated_max_len", 34736)],
    ),
    message(
        "vllm.kv.v1_model_max_seq_len", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 ('model's'; the check moved to kv_cache_planning.py by 0.33)",
        "vllm/v1/core/kv_cache_planning.py:78 @ v0.33.0; vllm/v1/core/kv_cache_utils.py:1030 @ v0.32.0 "
        "(the recording's traceback)",
        r"model's max seq len \(\d+\),\s*\(?[\d.]+ GiB KV cache is needed", "max seq len",
        facts=("max_model_len", "KV memory one request needs", "KV memory available", "the length that fits"),
        causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore pid=31792) ERROR 12-01 08:08:44 [core.py:1510] ValueError: To serve at least one request "
             "with the model's max seq len (1024), (0.0 GiB KV cache is needed, which is larger than the available "
             "KV cache memory (0.0 GiB). Based on the available memory, the estimated maximum model length is 896. "
             "Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or "
             "decreasing `max_model_len` when initializing the engine.",
             FX + "real_0.32_cpu/startup_kv_too_small.log"),
        ],
        expect=[("max_seq_len_error.max_seq_len", 1024), ("max_seq_len_error.estimated_max_len", 896)],
    ),
    message(
        "vllm.kv.no_available_memory", E, "≤0.4.3-≥0.33 (V0 worker, then V1 kv_cache_utils / kv_cache_planning)",
        "vllm/worker/worker.py:370 @ v0.4.3, :493 @ v0.6.6.post1; vllm/v1/core/kv_cache_utils.py:527 @ v0.8.5, "
        ":699 @ v0.11.0; vllm/v1/core/kv_cache_planning.py:58 @ v0.33.0",
        r"No available memory for the cache blocks", "no available memory for the cache blocks",
        facts=("no memory left for any KV block (weights and activations fill the budget)",),
        causes=("KV_CAPACITY",),
        examples=[
            ("vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. "
             "Try increasing `gpu_memory_utilization` when initializing the engine.", I10439),
        ],
        expect=[("no_kv_memory", True)],
    ),
    message(
        "vllm.kv.memory_profiling_budget", E, "0.6.6-0.10.2 (V0 worker's profiling summary, several lines)",
        "vllm/worker/worker.py:229 @ v0.6.6.post1, :275 @ v0.8.5, :278 @ v0.10.2",
        r"total_gpu_memory \([\d.]+ ?GiB\) x gpu_memory_utilization \([\d.]+\)", "x gpu_memory_utilization (",
        facts=("GPU memory", "gpu_memory_utilization in effect"), causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED"),
        examples=[
            ("INFO 03-21 20:15:45 [worker.py:267] the current vLLM instance can use total_gpu_memory (79.19GiB) x "
             "gpu_memory_utilization (0.90) = 71.27GiB", P550),
            ("(VllmWorkerProcess pid=2607784) INFO 01-14 12:36:52 worker.py:240] the current vLLM instance can use "
             "total_gpu_memory (23.55GiB) x gpu_memory_utilization (0.90) = 21.19GiB", I11550),
        ],
        expect=[("settings.gpu_memory_utilization", 0.9)],
    ),
    message(
        "vllm.kv.memory_profiling_results_064", E, "0.6.4 (0.6.4.post1 read; 0.6.6 prints 'Memory profiling takes')",
        "vllm/worker/worker.py:233 @ v0.6.4.post1",
        r"Memory profiling results: total_gpu_memory=[\d.]+GiB .*kv_cache_size=[\d.]+GiB gpu_memory_utilization=[\d.]+",
        "memory profiling results: ",
        facts=("memory left for the KV cache", "gpu_memory_utilization in effect"), causes=("KV_CAPACITY",),
        examples=[("Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
                   "peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB "
                   "kv_cache_size=3.81GiB gpu_memory_utilization=0.90", I10517)],
        expect=[("kv_capacity.available_gib", 3.81), ("settings.gpu_memory_utilization", 0.9)],
    ),
    message(
        "vllm.kv.memory_profiling_kv_rest", E, "0.6.6-0.10.2 (V0 worker's profiling summary)",
        "vllm/worker/worker.py:238 @ v0.6.6.post1, :284 @ v0.8.5, :287 @ v0.10.2",
        r"the rest of the memory reserved for KV Cache is [\d.]+ ?GiB", "reserved for kv cache is",
        facts=("memory left for the KV cache",), causes=("KV_CAPACITY",),
        examples=[
            ("INFO 03-21 20:15:45 [worker.py:267] model weights take 12.55GiB; non_torch_memory takes 0.16GiB; "
             "PyTorch activation peak memory takes 2.38GiB; the rest of the memory reserved for KV Cache is 56.18GiB.",
             P550),
        ],
        note="Not read: the line has no cheap mark of its own (its 'KV Cache' is capitalised); "
             "'Available KV cache memory' (0.9+) and the block counts that follow carry the capacity.",
    ),
    # -- effective limits printed at start-up (CONFIG_NOT_APPLIED, QUEUEING, PREFILL) --------------
    message(
        "vllm.config.non_default_args", E, "0.9.2 (absent at 0.8.5)-≥0.33 (the API server's parsed command line, V1)",
        "vllm/entrypoints/openai/cli_args.py:325 @ v0.9.2; vllm/entrypoints/utils.py:233 @ v0.11.0; "
        "vllm/entrypoints/common/startup.py:96 @ v0.33.0",
        r"non-default args: \{", "non-default args: {",
        facts=("max_model_len", "max_num_seqs", "max_num_batched_tokens", "gpu_memory_utilization",
               "every other argument set"),
        causes=("CONFIG_NOT_APPLIED", "QUEUEING", "KV_CAPACITY"),
        examples=[
            ("(APIServer pid=25400) INFO 12-01 08:07:32 [api_utils.py:286] non-default args: {'model_tag': "
             "'/srv/vllm-test/tiny-llama', 'host': '127.0.0.1', 'port': 8011, 'model': '/srv/vllm-test/tiny-llama', "
             "'dtype': 'float32', 'max_model_len': 1024, 'enforce_eager': True, 'served_model_name': ['tiny'], "
             "'kv_cache_memory_bytes': 2228224, 'max_num_batched_tokens': 1024, 'max_num_seqs': 16}", REAL32),
        ],
        expect=[("settings.max_model_len", 1024), ("settings.max_num_seqs", 16),
                ("settings.max_num_batched_tokens", 1024)],
    ),
    message(
        "vllm.config.engine_with_config_v0", E, "≤0.4.3-0.10.2 ('Initializing an LLM engine (vX) with config:'; "
        "'a V0 LLM engine' from 0.8)",
        "vllm/engine/llm_engine.py:162 @ v0.4.3, :235 @ v0.6.6.post1, :241 @ v0.8.5, :222 @ v0.10.2",
        r"Initializing an? (?:V0 )?LLM engine \(v[\w.+]+\) with config: ", "llm engine (v",
        facts=("max_seq_len (max_model_len)", "tensor_parallel_size", "enable_prefix_caching", "quantization"),
        causes=("CONFIG_NOT_APPLIED",),
        examples=[
            ("INFO 06-10 12:00:01 llm_engine.py:161] Initializing an LLM engine (v0.4.3) with config: "
             "model='meta-llama/Llama-2-7b-hf', speculative_config=None, tokenizer='meta-llama/Llama-2-7b-hf', "
             "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, "
             "tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, "
             "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
             "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
             "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig("
             "guided_decoding_backend='outlines'), seed=0, served_model_name=meta-llama/Llama-2-7b-hf)",
             "rendered from vllm/engine/llm_engine.py:162 @ v0.4.3"),
            ("INFO 02-20 18:36:00 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: "
             "model='facebook/opt-125m', speculative_config=None, tokenizer='facebook/opt-125m', "
             "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
             "tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, "
             "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1",
             KUBEAI418),
        ],
        expect=[("settings.max_model_len", True), ("settings.tensor_parallel_size", 1)],
    ),
    message(
        "vllm.config.engine_with_config_v1", E, "0.6.6-≥0.33 ('Initializing a V1 LLM engine (vX) with config:')",
        "vllm/v1/engine/core.py:49 @ v0.6.6.post1, :58 @ v0.8.5, :77 @ v0.11.0, :140 @ v0.33.0",
        r"Initializing a V1 LLM engine \(v[\w.+]+\) with config: ", "llm engine (v",
        facts=("max_seq_len (max_model_len)", "tensor_parallel_size", "enable_prefix_caching", "quantization"),
        causes=("CONFIG_NOT_APPLIED",),
        examples=[
            ("(EngineCore pid=26103) INFO 12-01 08:07:40 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with "
             "config: model='/srv/vllm-test/tiny-llama', speculative_config=None, tokenizer='/srv/vllm-test/tiny-llama', "
             "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, "
             "trust_remote_code=False, dtype=torch.float32, max_seq_len=1024, download_dir=None, load_format=auto, "
             "tensor_parallel_size=1, pipeline_parallel_size=1", REAL32),
        ],
        expect=[("settings.max_model_len", 1024), ("settings.tensor_parallel_size", 1)],
    ),
    message(
        "vllm.config.chunked_prefill", E, "0.5.5-≥0.33 ('Chunked prefill is enabled with max_num_batched_tokens=N.'; "
        "0.4.x: 'Chunked prefill is enabled (EXPERIMENTAL).')",
        "vllm/config.py:912 @ v0.5.5, :1459 @ v0.6.6.post1, :2004 @ v0.8.5; vllm/config/scheduler.py:223 @ v0.10.2, "
        ":311 @ v0.33.0",
        r"Chunked prefill is enabled with max_num_batched_tokens=\d+", "chunked prefill is enabled with",
        facts=("chunked prefill on", "max_num_batched_tokens in effect"), causes=("PREFILL", "CONFIG_NOT_APPLIED"),
        examples=[("(APIServer pid=25400) INFO 12-01 08:07:32 [scheduler.py:307] Chunked prefill is enabled with "
                   "max_num_batched_tokens=1024.", REAL32),
                  ("INFO 06-17 00:26:46 [config.py:2195] Chunked prefill is enabled with max_num_batched_tokens=8192.",
                   LLMC1560)],
        expect=[("settings.max_num_batched_tokens", True), ("settings.enable_chunked_prefill", True)],
    ),
    message(
        "vllm.config.using_max_model_len", E, "0.9.2 (absent at 0.8.5)-≥0.33 (the max_model_len in effect, derived or given)",
        "vllm/config.py:1472 @ v0.9.2; vllm/config/model.py:1510 @ v0.11.0, :2170 @ v0.33.0",
        r"Using max model len \d+", "using max model len",
        facts=("max_model_len in effect",), causes=("CONFIG_NOT_APPLIED", "CONTEXT_TRUNCATION"),
        examples=[("(APIServer pid=25400) INFO 12-01 08:07:32 [model.py:2152] Using max model len 1024", REAL32),
                  ("(APIServer pid=1328494) INFO 04-15 09:33:52 [model.py:1685] Using max model len 262144", I39734)],
        expect=[("settings.max_model_len", True)],
    ),
    message(
        "vllm.config.user_max_model_len_too_big", E, "≤0.4.3-≥0.33 (an error; a warning instead with "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 from 0.5.5, absent at 0.4.3)",
        "vllm/config.py:1251 @ v0.4.3, :2392 @ v0.6.6.post1, :3096 @ v0.8.5; vllm/config/model.py:1895 @ v0.11.0, "
        ":2664 @ v0.33.0",
        r"User-specified max_model_len \(\d+\) is greater than the derived max_model_len", "user-specified max_model_len",
        facts=("max_model_len asked for", "the model's own context length"), causes=("CONFIG_NOT_APPLIED",),
        examples=[
            ("ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len "
             "(None=8192 in model's config.json). This may lead to incorrect model outputs or CUDA errors. "
             "Make sure the value is correct and within the model context size.", I3676),
            ("ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len (4096) is greater than "
             "the derived max_model_len (seq_length=2048 or model_max_length=None in model's config.json). This may "
             "lead to incorrect model outputs or CUDA errors. Make sure the value is correct and within the model "
             "context size.", X1715),
        ],
        expect=[("max_model_len_over_model", True)],
    ),
    message(
        "vllm.config.swap_space_too_large", E, "≤0.4.3-0.11.0 (V0 swap space; gone with --swap-space)",
        "vllm/config.py:427 @ v0.4.3, :1051 @ v0.6.6.post1, :1443 @ v0.8.5; vllm/config/cache.py:220 @ v0.11.0",
        r"(?:Possibly too|Too) large swap space\. [\d.]+ GiB out of the [\d.]+ GiB total CPU memory is allocated for "
        r"the swap space",
        "large swap space.",
        facts=("CPU swap space", "CPU memory"), causes=("SWAP",),
        examples=[("WARNING 02-20 18:36:00 config.py:1148] Possibly too large swap space. 4.00 GiB out of the 7.75 GiB "
                   "total CPU memory is allocated for the swap space.", KUBEAI418),
                  ("ValueError: Too large swap space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the "
                   "swap space.", ITTS99)],
        note="A warning above 40 % of the CPU memory, an error ('Too large swap space') above 70 % (config.py @ "
             "v0.4.3): the CPU swap blocks V0 preempts into by SWAP.",
    ),
    # -- CUDA graphs and weights (capacity at start-up) -------------------------------------------
    message(
        "vllm.startup.graph_capture", E, "≤0.4.3-≥0.33 ('Graph capturing finished in N secs', with ', took X GiB' "
        "from 0.6.6, absent at 0.5.5)",
        "vllm/worker/model_runner.py:924 @ v0.4.3, :1535 @ v0.6.6.post1; vllm/v1/worker/gpu_model_runner.py:1686 "
        "@ v0.8.5, :6517 @ v0.33.0",
        r"Graph capturing finished in [\d.]+ secs?", "graph capturing finished in",
        facts=("memory the CUDA graphs took from the KV budget",), causes=("KV_CAPACITY",),
        examples=[("INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took 0.21 GiB",
                   P11349)],
    ),
    message(
        "vllm.startup.weights_memory", E, "≤0.4.3-0.7.3 ('Loading model weights took X GB'); 0.8.5-≥0.33 "
        "('Model loading took X GiB ...')",
        "vllm/worker/model_runner.py:146 @ v0.4.3; vllm/v1/worker/gpu_model_runner.py:1347 @ v0.8.5, :5089 @ v0.33.0",
        r"(?:Loading model weights|Model loading) took [\d.]+ ?Gi?B", " took ",
        facts=("memory the weights take",), causes=("KV_CAPACITY",),
        examples=[("INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB",
                   FX + "kv_v1_blocks_12569.log")],
    ),
    # -- requests refused for their length (CONTEXT_TRUNCATION) -------------------------------------
    message(
        "vllm.context.v0_prompt_exceeds_limit", E, "≤0.4.3-0.10.2 (V0 scheduler: the request is ignored, a warning)",
        "vllm/core/scheduler.py:664 @ v0.4.3, :945 @ v0.6.6.post1, :1107 @ v0.8.5, :1103 @ v0.10.2",
        r"Input prompt \(\d+ tokens\) is too long and exceeds limit of \d+", "exceeds limit of",
        facts=("prompt tokens", "the prompt limit (max_model_len, or max_num_batched_tokens without chunking)"),
        causes=("CONTEXT_TRUNCATION",),
        examples=[("scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000",
                   "tests/fixtures/realcases/case111_vllm_v0_prompt_exceeds_limit_max_model_len_1000"
                   "/vllm.log"),
                  ("WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit "
                   "of 2048", I13209)],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", True)],
    ),
    message(
        "vllm.context.v0_lookahead_capacity", E, "0.6.6 (absent at 0.5.5)-0.10.2 (V0 scheduler: the prompt can never fit the KV cache)",
        "vllm/core/scheduler.py:965 @ v0.6.6.post1, :1130 @ v0.8.5, :1127 @ v0.10.2",
        r"Input prompt \(\d+ tokens\) \+ lookahead slots \(\d+\) is too long and exceeds the capacity of block_manager",
        "exceeds the capacity of block_manager",
        facts=("prompt tokens larger than the whole KV cache",), causes=("KV_CAPACITY", "CONTEXT_TRUNCATION"),
        examples=[("WARNING 12-20 10:00:00 scheduler.py:965] Input prompt (40000 tokens) + lookahead slots (0) is too "
                   "long and exceeds the capacity of block_manager",
                   "rendered from vllm/core/scheduler.py:965 @ v0.6.6.post1")],
        expect=[("prompts_too_long", 1), ("prompts_over_kv_capacity", 1)],
    ),
    message(
        "vllm.context.v0_prompt_total_length", E, "0.6.6-0.7.3 (absent at 0.5.5, 0.8.5) (the engine's own check, raised)",
        "vllm/engine/llm_engine.py:1961 @ v0.6.6.post1, :1960 @ v0.7.3; vllm/v1/engine/processor.py:173 "
        "@ v0.6.6.post1",
        r"The prompt \(total length \d+\) is too long to fit into the model \(context length \d+\)",
        "to fit into the model",
        facts=("prompt tokens", "max_model_len"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: The prompt (total length 25938) is too long to fit into the model (context length "
                   "4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus "
                   "multimodal tokens.", I12165)],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (25938, 4096))],
    ),
    message(
        "vllm.context.v1_prompt_longer_than_max", E, "0.8.5-≥0.33 ('The decoder prompt (length N) is longer than the "
        "maximum model length of M.')",
        "vllm/v1/engine/processor.py:382 @ v0.8.5, :537 @ v0.11.0; vllm/v1/engine/input_processor.py:590 @ v0.33.0",
        r"prompt \(length \d+\) is longer than the maximum model length of \d+", "maximum model length of",
        facts=("prompt tokens", "max_model_len"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: [address=0.0.0.0:37591, pid=324770] The decoder prompt (length 17772) is longer than "
                   "the maximum model length of 16384.", X3785)],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (17772, 16384))],
    ),
    message(
        "vllm.context.v1_prompt_length_of", E, "0.7.3 (V1 processor; 0.8.5 says 'The decoder prompt (length N)')",
        "vllm/v1/engine/processor.py:252 @ v0.7.3",
        r"Prompt length of \d+ is longer than the maximum model length of \d+", "maximum model length of",
        facts=("prompt tokens", "max_model_len"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.", LF7723)],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (5016, 4096))],
    ),
    message(
        "vllm.context.api_you_requested", E, "≤0.4.3-0.9.2 (the embedding/score form to 0.11.0) (the OpenAI server's check: 'However, you requested N "
        "tokens')",
        "vllm/entrypoints/openai/serving_engine.py:168 @ v0.4.3, :286 @ v0.6.6.post1, :231 @ v0.8.5, :541 @ v0.9.2",
        r"maximum context length is \d+ tokens\. However, you requested \d+ tokens", "maximum context length is",
        facts=("max_model_len", "tokens requested (prompt + max_tokens)"), causes=("CONTEXT_TRUNCATION",),
        examples=[("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum "
                   "context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the "
                   "completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', "
                   "'param': None, 'code': 400}", X304)],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (6616, 6048))],
    ),
    message(
        "vllm.context.api_request_has", E, "0.10.2-0.11.0 ('However, your request has N input tokens')",
        "vllm/entrypoints/renderer.py:386 @ v0.11.0; vllm/entrypoints/openai/serving_engine.py:676 @ v0.11.0",
        r"maximum context length is \d+ tokens\. However, your request has \d+ input tokens", "maximum context length is",
        facts=("max_model_len", "prompt tokens"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: This model's maximum context length is 8192 tokens. However, your request has 9500 "
                   "input tokens. Please reduce the length of the input messages.",
                   "rendered from vllm/entrypoints/renderer.py:386 @ v0.11.0")],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (9500, 8192))],
    ),
    message(
        "vllm.context.api_prompt_contains", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 ('However, your prompt contains [at least] N input tokens')",
        "vllm/renderers/params.py:544 @ v0.33.0",
        r"maximum context length is \d+ tokens\. However, your prompt contains (?:at least )?\d+ input tokens",
        "maximum context length is",
        facts=("max_model_len", "prompt tokens"), causes=("CONTEXT_TRUNCATION",),
        examples=[("{\"error\":{\"message\":\"This model's maximum context length is 1024 tokens. However, your prompt "
                   "contains 1500 input tokens, which exceeds this limit even without any output tokens. Please reduce "
                   "the length of the input prompt. (parameter=input_tokens, value=1500)\",\"type\":\"BadRequestError\","
                   "\"param\":\"input_tokens\",\"code\":400}", FX + "real_0.32_cpu/errors.txt")],
        expect=[("prompts_too_long", 1), ("prompt_too_long_max", (1500, 1024))],
    ),
    message(
        "vllm.context.api_prompt_characters", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 (a character pre-check before tokenizing)",
        "vllm/renderers/params.py:405 @ v0.33.0",
        r"maximum context length is \d+ tokens\. However, your prompt contains \d+ characters", "maximum context length is",
        facts=("max_model_len", "prompt characters"), causes=("CONTEXT_TRUNCATION",),
        examples=[("{\"error\":{\"message\":\"This model's maximum context length is 1024 tokens. However, your prompt "
                   "contains 53689 characters (more than 13312 characters, which is the upper bound for 1024 input "
                   "tokens). Please reduce the length of the input prompt. (parameter=input_text, value=53689)\","
                   "\"type\":\"BadRequestError\"}", FX + "real_0.32_cpu/errors.txt")],
        expect=[("prompts_too_long", 1), ("output_too_long", 0)],
    ),
    message(
        "vllm.context.api_max_tokens_too_large", E, "0.10.2 (absent at 0.9.2)-0.11.0 (the prompt fits, the output does not)",
        "vllm/entrypoints/openai/serving_engine.py:684 @ v0.10.2, v0.11.0",
        r"'max_tokens' or 'max_completion_tokens' is too large: \d+\. This model's maximum context length is \d+ tokens "
        r"and your request has \d+ input tokens",
        "maximum context length is",
        facts=("max_tokens", "max_model_len", "prompt tokens"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: 'max_tokens' or 'max_completion_tokens' is too large: 6048. This model's maximum "
                   "context length is 8192 tokens and your request has 2200 input tokens (6048 > 8192 - 2200).",
                   "rendered from vllm/entrypoints/openai/serving_engine.py:684 @ v0.11.0")],
        expect=[("prompts_too_long", 1), ("output_too_long", 1)],
    ),
    message(
        "vllm.context.api_max_tokens_gt_max_model_len", E, "after 0.11 (absent at 0.11.0; seen at 0.32, 0.33)-≥0.33 ('max_tokens=N cannot be greater than "
        "max_model_len=M'; 'max_completion_tokens=' on the chat endpoint)",
        "vllm/renderers/params.py:279 @ v0.33.0",
        r"(?:max_tokens|max_completion_tokens)=\d+ cannot be greater than max_model_len=\d+",
        "cannot be greater than max_model_len",
        facts=("max_tokens", "max_model_len"), causes=("CONTEXT_TRUNCATION",),
        examples=[
            ("{\"error\":{\"message\":\"max_tokens=2000 cannot be greater than max_model_len=1024. Please request fewer "
             "output tokens. (parameter=max_tokens, value=2000)\",\"type\":\"BadRequestError\",\"param\":\"max_tokens\","
             "\"code\":400}", FX + "real_0.32_cpu/errors.txt"),
            ("{\"error\":{\"message\":\"max_completion_tokens=40000 cannot be greater than max_model_len=32768. Please "
             "request fewer output tokens.\",\"type\":\"BadRequestError\",\"param\":\"max_completion_tokens\","
             "\"code\":400}", "rendered from vllm/renderers/params.py:279 @ v0.33.0"),
        ],
        expect=[("prompts_too_long", 1), ("output_too_long", 1)],
    ),
    message(
        "vllm.context.max_tokens_negative", E, "≤0.4.3-≥0.33 (the sampling check; negative only where a default "
        "max_tokens was computed as max_model_len minus the prompt)",
        "vllm/sampling_params.py:227 @ v0.4.3, :380 @ v0.6.6.post1, :693 @ v0.33.0",
        r"max_tokens must be at least 1, got -\d+", "max_tokens must be at least 1, got -",
        facts=("a prompt longer than max_model_len by the number after the minus sign, where max_tokens was left "
               "to default",), causes=("CONTEXT_TRUNCATION",),
        examples=[("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'max_tokens must be at "
                   "least 1, got -344.', 'type': 'BadRequestError', 'param': None, 'code': 400}", I4667)],
        note="Not read as a context refusal: a client may send max_tokens=-1 itself; which vLLM computed the "
             "default this way is not established from the source read.",
    ),
    # -- queue refusals (QUEUE_FULL) -----------------------------------------------------------------
    message(
        "vllm.stats.v1_kv_fetch", E, "after 0.11 (absent at 0.11.0)-≥0.33: a KV connector's fetches, three counts in one part",
        "vllm/v1/metrics/loggers.py:306 @ v0.33.0",
        r"Waiting: \d+ reqs, (?:Deferred: \d+ reqs, )?KV fetch: \d+ waiting to start, \d+ in progress, \d+ completed "
        r"waiting",
        "kv fetch: ",
        facts=("waiting requests", "requests waiting for KV from a connector (LMCache, NIXL)"),
        causes=("QUEUEING", "KV_CAPACITY"),
        examples=[("(APIServer pid=7) INFO 05-02 10:00:10 [loggers.py:341] Engine 000: Avg prompt throughput: 0.0 "
                   "tokens/s, Avg generation throughput: 120.0 tokens/s, Running: 8 reqs, Waiting: 20 reqs, KV fetch: "
                   "4 waiting to start, 2 in progress, 1 completed waiting, Preemptions: 3, GPU KV cache usage: 88.0%, "
                   "Prefix cache hit rate: 40.0%", "rendered from vllm/v1/metrics/loggers.py:306 @ v0.33.0")],
        expect=[("max_waiting", 20), ("v1_preemptions", 3), ("last_stats.kv_usage_pct", 88.0)],
        note="Before this entry the whole line was skipped: its counts after 'KV fetch: ' broke the key: value run.",
    ),
    message(
        "vllm.stats.v1_iteration_details", E, "after 0.11 (absent at 0.11.0)-≥0.33 (--enable-logging-iteration-details)",
        "vllm/v1/metrics/loggers.py:199 @ v0.33.0",
        r"Iteration\(\d+\): \d+ context requests, \d+ context tokens, \d+ generation requests",
        "context requests, ",
        facts=("prefill (context) and decode requests per step", "KV cache usage"), causes=("PREFILL",),
        examples=[("(EngineCore pid=90) INFO 05-02 10:00:10 [loggers.py:199] Iteration(1200): 2 context requests, 8192 "
                   "context tokens, 30 generation requests, 30 generation tokens, iteration elapsed time: 412.50 ms, "
                   "GPU KV cache usage: 71.0%", "rendered from vllm/v1/metrics/loggers.py:199 @ v0.33.0")],
        note="Not a stats record (no Running/Waiting): the scanner counts none; a per-step view of prefill.",
    ),
    message(
        "vllm.kv.gpu_memory_short", E, "0.9.2 (absent at 0.8.5)-0.11.0 (V1 worker, at device init)",
        "vllm/v1/worker/gpu_worker.py:146 @ v0.9.2, :181 @ v0.10.2, :188 @ v0.11.0",
        r"Free memory on device \([\d.]+/[\d.]+ GiB\) on startup is less than desired GPU memory utilization "
        r"\([\d.]+, [\d.]+ GiB\)",
        "esired gpu memory utilization",
        facts=("free GPU memory at start-up", "gpu_memory_utilization", "memory it asks for"),
        causes=("KV_CAPACITY",),
        examples=[
            ("(EngineCore_0 pid=1810465) ERROR 09-03 11:03:37 [core.py:712] ValueError: Free memory on device "
             "(7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, 125.75 GiB). Decrease "
             "GPU memory utilization or reduce GPU memory used by other processes.",
             FX + "startup_gpu_memory_short_23192.log"),
            ("[multiproc_executor.py:492] ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than "
             "desired GPU memory utilization (0.95, 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory "
             "used by other processes.", I20305),
        ],
        expect=[("gpu_memory_short.free_gib", True), ("gpu_memory_short.requested_gib", True),
                ("settings.gpu_memory_utilization", True)],
    ),
    message(
        "vllm.kv.gpu_memory_short_device", E, "after 0.11 (absent at 0.11.0)-≥0.33 (the check moved to v1/worker/utils.py; the device named)",
        "vllm/v1/worker/utils.py:763 @ v0.33.0",
        r"Free memory on device \S+ \([\d.]+/[\d.]+ GiB\) on startup is less than desired GPU memory utilization",
        "esired gpu memory utilization",
        facts=("free GPU memory at start-up", "gpu_memory_utilization", "memory it asks for"),
        causes=("KV_CAPACITY",),
        examples=[("(EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:0 (19.77/22.05 GiB) on startup is "
                   "less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce "
                   "GPU memory used by other processes.", "rendered from vllm/v1/worker/utils.py:763 @ v0.33.0")],
        expect=[("gpu_memory_short.free_gib", 19.77), ("gpu_memory_short.total_gib", 22.05),
                ("settings.gpu_memory_utilization", 0.9)],
    ),
    message(
        "vllm.kv.desired_utilization", E, "0.10.2 (absent at 0.9.2)-≥0.33 (V1 worker, the memory summary after profiling)",
        "vllm/v1/worker/gpu_worker.py:376 @ v0.10.2, :372 @ v0.11.0, :1045 @ v0.33.0",
        r"Free memory on device .*on startup\. Desired GPU memory utilization is \([\d.]+, [\d.]+ GiB\)",
        "esired gpu memory utilization",
        facts=("free GPU memory at start-up", "gpu_memory_utilization in effect", "weights, activation, CUDA graph memory"),
        causes=("KV_CAPACITY",),
        examples=[("(EngineCore_DP0 pid=90) INFO 05-02 10:00:03 [gpu_worker.py:372] Free memory on device (78.5/79.19 "
                   "GiB) on startup. Desired GPU memory utilization is (0.85, 67.31 GiB). Actual usage is 14.96 GiB for "
                   "weight, 1.26 GiB for peak activation, 0.18 GiB for non-torch memory, and 0.51 GiB for CUDAGraph "
                   "memory. Replace gpu_memory_utilization config with `--kv-cache-memory=53364932608` to fit into "
                   "requested memory, or `--kv-cache-memory=66327293952` to fully utilize gpu memory. Current kv cache "
                   "memory in use is 53364932608 bytes.", "rendered from vllm/v1/worker/gpu_worker.py:372 @ v0.11.0")],
        expect=[("settings.gpu_memory_utilization", 0.85)],
    ),
    message(
        "vllm.kv.cudagraph_memory_profiling", E, "0.21 (as the message itself says; not read there)-≥0.33 (CUDA graph memory counted against the KV budget)",
        "vllm/v1/worker/gpu_worker.py:786 @ v0.33.0",
        r"CUDA graph memory profiling is enabled .*The current --gpu-memory-utilization=[\d.]+ is equivalent to "
        r"--gpu-memory-utilization=[\d.]+",
        "cuda graph memory profiling is enabled",
        facts=("gpu_memory_utilization", "the share CUDA graphs take", "a smaller KV cache than before 0.21"),
        causes=("KV_CAPACITY",),
        examples=[("(EngineCore pid=90) INFO 05-02 10:00:03 [gpu_worker.py:786] CUDA graph memory profiling is enabled "
                   "(default since v0.21.0). The current --gpu-memory-utilization=0.9000 is equivalent to "
                   "--gpu-memory-utilization=0.8870 without CUDA graph memory profiling. To maintain the same effective "
                   "KV cache size as before, increase --gpu-memory-utilization to 0.9130. To disable, set "
                   "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.", "rendered from vllm/v1/worker/gpu_worker.py:786 @ v0.33.0")],
        note="Not read: no cheap mark; the KV size lines after it carry the capacity.",
    ),
    message(
        "vllm.kv.memory_profiling_summary_v1", E, "0.9.2 (absent at 0.8.5)-≥0.33 (MemoryProfilingResult, one line)",
        "vllm/utils/__init__.py:2396 @ v0.9.2; vllm/utils/mem_utils.py:218 @ v0.33.0",
        r"Memory profiling takes [\d.]+ seconds\. Total non KV cache memory: [\d.]+ ?GiB", "memory profiling takes",
        facts=("memory outside the KV cache (weights, activations, non-torch)",), causes=("KV_CAPACITY",),
        examples=[("(EngineCore pid=90) DEBUG 05-02 10:00:03 [gpu_worker.py:771] Memory profiling takes 4.12 seconds. "
                   "Total non KV cache memory: 16.41GiB; torch peak memory increase: 1.26GiB; total consumed (from "
                   "mem_get_info): 15.15GiB; weights memory: 14.96GiB.", "rendered from vllm/utils/mem_utils.py:218 @ v0.33.0")],
    ),
    message(
        "vllm.kv.num_gpu_blocks_override", E, "≤0.4.3-≥0.33 (--num-gpu-blocks-override)",
        "vllm/v1/core/kv_cache_utils.py:627 @ v0.8.5; vllm/v1/core/kv_cache_planning.py:1526 @ v0.33.0",
        r"Overriding num_gpu_blocks=\d+ with num_gpu_blocks_override=\d+", "num_gpu_blocks_override=",
        facts=("KV blocks profiled", "KV blocks forced"), causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED"),
        examples=[("INFO 05-02 10:00:03 [kv_cache_utils.py:627] Overriding num_gpu_blocks=7191 with "
                   "num_gpu_blocks_override=512", "rendered from vllm/v1/core/kv_cache_utils.py:627 @ v0.8.5")],
    ),
    message(
        "vllm.config.batched_tokens_below_max_len", E, "≤0.4.3-≥0.33 (without chunked prefill; a start-up refusal)",
        "vllm/config.py:693 @ v0.4.3, :2027 @ v0.8.5; vllm/config/scheduler.py:239 @ v0.11.0, :324 @ v0.33.0",
        r"max_num_batched_tokens \(\d+\) is smaller than max_model_len \(\d+\)", "is smaller than max_model_len",
        facts=("max_num_batched_tokens", "max_model_len"), causes=("CONFIG_NOT_APPLIED", "CONTEXT_TRUNCATION"),
        examples=[("ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (32768). This effectively "
                   "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
                   "sequences. Please increase max_num_batched_tokens or decrease max_model_len.",
                   "rendered from vllm/config.py:2027 @ v0.8.5")],
    ),
    message(
        "vllm.config.chunked_prefill_experimental", E, "≤0.4.3 (gone at 0.5.5) ('Chunked prefill is enabled (EXPERIMENTAL).')",
        "vllm/config.py:676 @ v0.4.3",
        r"Chunked prefill is enabled \(EXPERIMENTAL\)", "chunked prefill is enabled (",
        facts=("chunked prefill on",), causes=("PREFILL",),
        examples=[("INFO 06-10 12:00:01 config.py:676] Chunked prefill is enabled (EXPERIMENTAL).",
                   "rendered from vllm/config.py:676 @ v0.4.3")],
    ),
    message(
        "vllm.swap.no_cpu_swap_space", E, "≤0.4.3-0.10.2 (V0 scheduler: a swapped request could not be kept)",
        "vllm/core/scheduler.py:1131 @ v0.4.3, :1826 @ v0.8.5",
        r"Aborted due to the lack of CPU swap space", "lack of cpu swap space",
        facts=("CPU swap space exhausted",), causes=("SWAP",),
        examples=[("RuntimeError: Aborted due to the lack of CPU swap space. Please increase the swap space to avoid "
                   "this error.", RLLM62)],
    ),
    message(
        "vllm.startup.platform_detected", E, "0.7.3 (absent at 0.6.6)-≥0.33 ('cpu' means the engine computes on the CPU)",
        "vllm/platforms/__init__.py:239 @ v0.8.5, :216 @ v0.11.0, :287 @ v0.33.0",
        r"Automatically detected platform \w+\.", "automatically detected platform",
        facts=("the platform vLLM runs on (cuda, rocm, cpu, xpu, tpu)",), causes=("CPU_SPILL",),
        examples=[("INFO 07-17 00:07:05 [__init__.py:244] Automatically detected platform cuda.", KVC29),
                  ("INFO 05-02 10:00:01 [__init__.py:239] Automatically detected platform cpu.",
                   "rendered from vllm/platforms/__init__.py:239 @ v0.8.5")],
        note="Read by knowledge/containers/no_gpu.py (the cpu platform), not by the log scanner.",
    ),
    message(
        "vllm.startup.no_platform", E, "0.7.3-0.11.0 (info/warning; debug from 0.33)",
        "vllm/platforms/__init__.py:244 @ v0.8.5, :221 @ v0.11.0, :291 @ v0.33.0",
        r"No platform detected, vLLM is running on UnspecifiedPlatform", "no platform detected",
        facts=("no GPU platform found",), causes=("CPU_SPILL",),
        examples=[("INFO 05-02 10:00:01 [__init__.py:244] No platform detected, vLLM is running on UnspecifiedPlatform",
                   "rendered from vllm/platforms/__init__.py:244 @ v0.8.5")],
        note="Read by knowledge/containers/no_gpu.py, not by the log scanner.",
    ),
    message(
        "vllm.startup.cpu_kvcache_space_default", E, "≤0.4.3-0.11.0 (CPU backend; '(GB)' or '(GiB)' by version; gone at 0.33)",
        "vllm/executor/cpu_executor.py:143 @ v0.4.3; vllm/platforms/cpu.py:72 @ v0.6.6.post1, :118 @ v0.11.0",
        r"Environment variable VLLM_CPU_KVCACHE_SPACE \(Gi?B\) for CPU backend is not set, using 4 by default",
        "vllm_cpu_kvcache_space",
        facts=("CPU backend", "KV cache of 4 GiB by default"), causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[("WARNING 02-20 18:36:00 _logger.py:72] Environment variable VLLM_CPU_KVCACHE_SPACE (GB) for CPU "
                   "backend is not set, using 4 by default.", KUBEAI418),
                  ("WARNING 05-02 10:00:01 [cpu.py:118] Environment variable VLLM_CPU_KVCACHE_SPACE (GiB) for CPU "
                   "backend is not set, using 4 by default.", "rendered from vllm/platforms/cpu.py:118 @ v0.11.0")],
    ),
    message(
        "vllm.startup.cudagraph_capture_advice", E, "≤0.4.3-0.10.2 (V0 model runner, before capturing)",
        "vllm/worker/model_runner.py:854 @ v0.4.3, :1450 @ v0.8.5, :1355 @ v0.10.2",
        r"Capturing (?:the model for CUDA graphs|cudagraphs for decoding)\. This may lead to unexpected consequences",
        "this may lead to unexpected consequences",
        facts=("CUDA graphs on (memory taken from the KV budget)",), causes=("KV_CAPACITY",),
        examples=[("INFO 12-19 22:58:27 model_runner.py:1415] Capturing cudagraphs for decoding. This may lead to "
                   "unexpected consequences if the model is not static. To run the model in eager mode, set "
                   "'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during "
                   "cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can "
                   "also reduce the `max_num_seqs` as needed to decrease memory usage.", P11349)],
    ),
    message(
        "vllm.queue.busy_client_body", E, "between 0.11 and 0.33 (absent at 0.11.0)-≥0.33 (the 503 body a client receives)",
        "vllm/exceptions.py:171 @ v0.33.0",
        r"The engine is currently busy and cannot accept new requests", "cannot accept new requests",
        facts=("requests refused because the request queue is full",), causes=("QUEUE_FULL",),
        examples=[("{\"error\":{\"message\":\"The engine is currently busy and cannot accept new requests. Please try "
                   "again later or on a different instance.\",\"type\":\"ServiceUnavailableError\",\"param\":null,"
                   "\"code\":503}", "rendered from vllm/exceptions.py:171 @ v0.33.0")],
        note="Counted where the text is what clients received (client_errors.txt); in a server log only the logged "
             "QueueOverflowError counts, so `summarize` (a server log) has no expect here.",
    ),
    message(
        "vllm.queue.overflow_error", E, "between 0.11 and 0.33 (absent at 0.11.0)-≥0.33 (--max-num-queued-reqs: a 503 to the client, the exception logged)",
        "vllm/exceptions.py:171 @ v0.33.0; raised at vllm/v1/engine/async_llm.py:369 @ v0.33.0",
        r"QueueOverflowError", "queueoverflowerror",
        facts=("requests refused because the request queue is full",), causes=("QUEUE_FULL",),
        examples=[("(APIServer pid=7) ERROR 05-02 10:00:10 [serving.py:412] vllm.exceptions.QueueOverflowError: The "
                   "engine is currently busy and cannot accept new requests. Please try again later or on a different "
                   "instance.", "rendered from vllm/exceptions.py:171 @ v0.33.0")],
        expect=[("queue_overflows", 1)],
    ),
)


def summarize(lines):
    from llmdoctor.knowledge.vllm.log import scan_vllm_lines

    return scan_vllm_lines(lines)
