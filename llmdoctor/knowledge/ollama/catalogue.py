"""Ollama's messages that carry a fact a cause needs, from Ollama's own source
(ollama/ollama at the tags named; line numbers move in every release, the format string
is what is matched). The table format: knowledge/messages.py.

Read at v0.1.20, v0.1.32, v0.1.33, v0.1.45, v0.2.8, v0.3.14, v0.4.7, v0.5.7, v0.6.8, v0.9.6,
v0.11.11, v0.12.11, v0.17.6, v0.24.0, v0.30.0 and v0.32.15 (`git grep` of slog calls, Errorf
and errors.New in server/, llm/, runner/, llama/runner/, discover/, gpu/, ml/, envconfig/, and
LOG_* in llm/ext_server/), with v0.1.0, v0.1.10, v0.1.17, v0.1.34-v0.1.41 and v0.3.0/v0.3.4 where a
wording began or changed. Example lines: real ones from the fixtures or public reports first. "a-b" versions are the first and last of those tags that print the
wording; a wording may be older or newer by a release or two. The llama.cpp lines Ollama's runner
prints (llm_load_tensors, load_tensors, llama_context, ggml_cuda_init ...) are the llamacpp table's.

slog's text handler quotes a value only when it must (`msg=offload`, `msg="offload to cuda"`),
and keys that hold a space (`"loaded layers"=0`): the patterns take both."""
from __future__ import annotations

from llmdoctor.knowledge.messages import message

E = "ollama"
_R = "rendered from "

# sha256 of a blob, shortened in rendered lines
_BLOB = "/root/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa"

MESSAGES = (
    # -- version and configuration --------------------------------------------------------
    message(
        "ollama.server.listening", E, "v0.1.20-v0.32.15 (log.Printf before v0.1.2x, slog after)",
        "server/routes.go:930 @ v0.1.20; server/routes.go:1143 @ v0.1.32; server/routes.go:2008 @ v0.32.15",
        r"Listening on \S+ \(version [^)\s]+\)", "listening on",
        facts=("server version (it decides every default: OLLAMA_NUM_PARALLEL, context, keep-alive)", "listen address"),
        causes=("QUEUEING", "CONTEXT_TRUNCATION"),
        examples=[('time=2024-03-18T03:00:29.515Z level=INFO source=routes.go:1110 msg="Listening on :11434 (version 0.1.29)"',
                   "tests/fixtures/k8s/logs_ollama_no_gpu_libraries.txt"),
                  ('time=2024-09-30T15:58:28.509Z level=INFO source=routes.go:1200 msg="Listening on [::]:11434 (version 0.3.12)"',
                   "tests/fixtures/containers/logs_ollama_0.3.12.txt"),
                  ("2024/01/10 09:00:00 routes.go:930: Listening on 127.0.0.1:11434 (version 0.1.20)",
                   _R + "server/routes.go:930 @ v0.1.20")],
        expect=[("version", True)],
    ),
    message(
        "ollama.server.config", E, "v0.1.34-v0.32.15 (envconfig.AsMap to v0.1.38, Values after)",
        "server/routes.go:989 @ v0.1.34; server/routes.go:1060 @ v0.1.45; server/routes.go:1158 @ v0.3.14; "
        "server/routes.go:1951 @ v0.32.15",
        r'server config"?\s+env="?map\[', "server config",
        facts=("every OLLAMA_* value after parsing",), causes=("CONFIG_NOT_APPLIED", "QUEUEING", "MODEL_UNLOAD"),
        examples=[('2024/06/25 13:58:52 routes.go:1060: INFO server config env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: '
                   'HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: OLLAMA_DEBUG:false OLLAMA_FLASH_ATTENTION:false '
                   'OLLAMA_HOST:http://0.0.0.0:11434 OLLAMA_INTEL_GPU:false OLLAMA_KEEP_ALIVE: OLLAMA_LLM_LIBRARY: '
                   'OLLAMA_MAX_LOADED_MODELS:1 OLLAMA_MAX_QUEUE:512 OLLAMA_MAX_VRAM:0 OLLAMA_MODELS:/root/.ollama/models '
                   'OLLAMA_NOHISTORY:false OLLAMA_NOPRUNE:false OLLAMA_NUM_PARALLEL:1 OLLAMA_ORIGINS:[http://localhost '
                   'https://localhost http://localhost:* https://localhost:* http://127.0.0.1 https://127.0.0.1 '
                   'http://127.0.0.1:* https://127.0.0.1:* http://0.0.0.0 https://0.0.0.0 http://0.0.0.0:* '
                   'https://0.0.0.0:* app://* file://* tauri://*] OLLAMA_RUNNERS_DIR: OLLAMA_SCHED_SPREAD:false '
                   'OLLAMA_TMPDIR: ROCR_VISIBLE_DEVICES:]"', "tests/fixtures/k8s/logs_ollama_server_config_operator.txt"),
                  ('time=2026-08-01T07:00:00.000Z level=INFO source=routes.go:1951 msg="server config" '
                   'env="map[OLLAMA_CONTEXT_LENGTH:0 OLLAMA_KEEP_ALIVE:5m0s OLLAMA_MAX_LOADED_MODELS:0 '
                   'OLLAMA_MAX_QUEUE:512 OLLAMA_NUM_PARALLEL:1]"', _R + "server/routes.go:1951 @ v0.32.15")],
        expect=[("server_config", True)],
    ),
    message(
        "ollama.envconfig.invalid_value", E, "v0.3.x-v0.32.15",
        "envconfig/config.go:188, :213 @ v0.3.14; envconfig/config.go:190, :215 @ v0.5.7; envconfig/config.go:263, :292 @ v0.32.15",
        r"invalid environment variable, using default", "invalid environment variable",
        facts=("an OLLAMA_* value Ollama could not parse and replaced by its default",), causes=("CONFIG_NOT_APPLIED",),
        examples=[("ollama  | 2025/01/16 04:29:39 config.go:215: WARN invalid environment variable, using default "
                   "key=OLLAMA_GPU_OVERHEAD value=8G default=0",
                   "tests/fixtures/realcases/case136_ollama_compose_gpu_overhead_8G_rejected/journal.log")],
        expect=[("invalid_env.count", 1)],
    ),
    message(
        "ollama.llm.settings_ignored", E, "v0.5.x-v0.24.0",
        "llm/server.go:234 @ v0.5.7; llm/server.go:203, :208, :227, :232, :254, :257 @ v0.17.6",
        r"quantized kv cache requested but flash attention disabled|flash attention enabled but not supported by"
        r"|OLLAMA_FLASH_ATTENTION must be enabled to use a quantized OLLAMA_KV_CACHE_TYPE|unsupported OLLAMA_KV_CACHE_TYPE"
        r"|kv cache type not supported by model",
        ("quantized kv cache requested", "flash attention enabled but not supported", "must be enabled to use a quantized",
         "unsupported ollama_kv_cache_type", "kv cache type not supported"),
        facts=("a flash-attention or KV-cache-type setting Ollama did not apply (type=\"\": none was asked for)",),
        causes=("CONFIG_NOT_APPLIED",),
        examples=[('time=2025-01-20T10:00:00.000Z level=WARN source=server.go:234 msg="quantized kv cache requested but '
                   'flash attention disabled" type=q8_0', _R + "llm/server.go:234 @ v0.5.7"),
                  ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:203 msg="flash attention enabled but not '
                   'supported by gpu"', _R + "llm/server.go:203 @ v0.17.6"),
                  ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:227 msg="OLLAMA_FLASH_ATTENTION must be '
                   'enabled to use a quantized OLLAMA_KV_CACHE_TYPE" type=q4_0', _R + "llm/server.go:227 @ v0.17.6"),
                  ('time=2025-02-18T02:21:25.646Z level=WARN source=server.go:190 msg="kv cache type not supported by model" '
                   'type=""', "https://github.com/ollama/ollama/issues/9181")],
        expect=[("settings_ignored.count", 1)],
    ),

    # -- scheduler: loads ----------------------------------------------------------------
    message(
        "ollama.sched.loading_first_model", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:162 @ v0.1.33; server/sched.go:224 @ v0.5.7; server/sched.go:299 @ v0.32.15",
        r'loading first model"?\s+model=', "loading first model",
        facts=("a model load begins",), causes=("MODEL_UNLOAD",),
        examples=[('time=2024-08-04T06:18:50.451 level=DEBUG source=sched.go:219 msg="loading first model" model=C:\\Users\\'
                   '<username>\\.ollama\\models\\blobs\\sha256-ff1d1fc78170d787ee1201778e2dd65ea211654ca5fb7d69b5a2e7b123a50373',
                   "https://github.com/ollama/ollama/issues/6148"),
                  (f'time=2025-01-16T10:00:00.000Z level=DEBUG source=sched.go:224 msg="loading first model" model={_BLOB}',
                   _R + "server/sched.go:224 @ v0.5.7")],
        expect=[("load_count", 1), ("last_load.model", True)],
    ),
    message(
        "ollama.sched.new_model_will_fit", E, "v0.1.33-v0.9.6 (INFO from v0.3.x; gone at v0.12.11)",
        "server/sched.go:508, :519 @ v0.1.33; server/sched.go:714, :730 @ v0.3.14; server/sched.go:788 @ v0.9.6",
        r"new model will fit in available (?:VRAM|memory)", "new model will fit",
        facts=("a model load begins", "GPU chosen", "parallel", "memory required"), causes=("MODEL_UNLOAD", "QUEUEING"),
        examples=[('time=2025-02-07T09:17:02.238+08:00 level=INFO source=sched.go:714 msg="new model will fit in available '
                   'VRAM in single GPU, loading" model=C:\\Users\\MyUserName\\.ollama\\models\\blobs\\sha256-6150cb382311b69f0'
                   '9cc0f9a1b69fc029cbd742b66bb8ec531aa5ecf5c613e93 gpu=GPU-4e6d6c87-524c-3720-e9a4-e2010f88f2c4 parallel=4 '
                   'available=24594382848 required="21.5 GiB"',
                   "tests/fixtures/realcases/case120_ollama_windows_second_client_use_mlock_forces_reload/journal.log"),
                  (f'time=2024-10-17T10:00:00.000Z level=INFO source=sched.go:730 msg="new model will fit in available VRAM, '
                   f'loading" model={_BLOB} library=cuda parallel=4 required="9.6 GiB"', _R + "server/sched.go:730 @ v0.3.14")],
        expect=[("load_count", 1), ("last_load.model", True)],
    ),
    message(
        "ollama.llm.loading_model", E, "v0.11.x-v0.24.0",
        "llm/server.go:497, :757 @ v0.17.6",
        r'msg="loading model"\s+"model layers"=\d+', "loading model",
        facts=("a model load begins", "layers in the model", "layers requested (num_gpu)"), causes=("MODEL_UNLOAD",),
        examples=[('Nov 24 13:55:06 llm ollama[7189]: time=2025-11-24T13:55:06.999Z level=INFO source=server.go:702 '
                   'msg="loading model" "model layers"=63 requested=-1',
                   "tests/fixtures/realcases/case133_ollama_cpu_only_evicts_model_despite_free_ram/journal.log")],
        expect=[("load_count", 1)],
    ),
    message(
        "ollama.llm.loading_model_via_llama_server", E, "v0.30.0-v0.32.15",
        "llm/llama_server.go:1048 @ v0.32.15",
        r'loading model via llama-server"?\s+model=', "loading model via llama-server",
        facts=("a model load begins",), causes=("MODEL_UNLOAD",),
        examples=[(f'time=2026-08-01T07:02:27.000Z level=INFO source=llama_server.go:1048 msg="loading model via llama-server" '
                   f'model={_BLOB}', _R + "llm/llama_server.go:1048 @ v0.32.15")],
        expect=[("load_count", 1), ("last_load.model", "sha256-6a0746a1ec1a")],
    ),
    message(
        "ollama.llm.starting_llama_server", E, "v0.1.32-v0.11.4",
        "llm/server.go:264 @ v0.1.32; llm/server.go:388 @ v0.3.14; llm/server.go:438 @ v0.9.6",
        r'starting llama server"?\s+cmd=', "starting llama server",
        facts=("runner command: context (--ctx-size = num_ctx x parallel), --parallel, --n-gpu-layers, model"),
        causes=("MODEL_UNLOAD", "QUEUEING", "CONTEXT_TRUNCATION", "CPU_SPILL"),
        examples=[('Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.187+01:00 level=INFO source=server.go:438 '
                   'msg="starting llama server" cmd="/usr/local/bin/ollama runner --ollama-engine --model '
                   '/usr/share/ollama/.ollama/models/blobs/sha256-e8ad13eff07a78d89926e9e8b882317d082ef5bf9768ad7b50fcdbbcd63748de'
                   ' --ctx-size 2048 --batch-size 512 --n-gpu-layers 49 --threads 6 --parallel 1 --port 39041"',
                   "tests/fixtures/ollama/log_v011_runner_journal.log"),
                  ('time=2024-04-16T10:00:00.000Z level=INFO source=server.go:264 msg="starting llama server" '
                   'cmd="/tmp/ollama2476510653/runners/cuda_v11/ollama_llama_server --model ' + _BLOB +
                   ' --ctx-size 8192 --batch-size 512 --embedding --log-disable --n-gpu-layers 33 --parallel 4 --port 38267"',
                   _R + "llm/server.go:264 @ v0.1.32")],
        expect=[("load_count", 1), ("last_load.ctx_size", True), ("last_load.parallel", True)],
    ),
    message(
        "ollama.llm.starting_runner", E, "v0.11.5-v0.24.0",
        "llm/server.go:392 @ v0.12.11; llm/server.go:430 @ v0.17.6; llm/server.go:433 @ v0.24.0",
        r'starting runner"?\s+cmd=', "starting runner",
        facts=("runner command: context, parallel, GPU layers, model"), causes=("MODEL_UNLOAD", "QUEUEING", "CPU_SPILL"),
        examples=[('Aug 19 08:01:10 localai ollama[2211]: time=2025-08-19T08:01:10.412Z level=INFO source=server.go:398 '
                   'msg="starting runner" cmd="/home/localai/bin/ollama runner --ollama-engine --model '
                   '/home/localai/.ollama/models/blobs/sha256-b112e727c6f18875636c56a779790a590d705aec9e1c0eb5a97d51fc2a778583'
                   ' --ctx-size 40960 --batch-size 512 --n-gpu-layers 17 --threads 20 --parallel 5 --tensor-split 9,8 '
                   '--port 40517"', "tests/fixtures/evidence/ollama-reload-churn/journal.log")],
        expect=[("load_count", 1), ("last_load.ctx_size", 40960), ("last_load.parallel", 5)],
    ),
    message(
        "ollama.llm.starting_llama_server_child", E, "v0.30.0-v0.32.15",
        "llm/llama_server.go:433 @ v0.32.15",
        r'starting llama-server"?\s+cmd=', "starting llama-server",
        facts=("llama-server command: -c/--ctx-size, -np/--parallel, -ngl, model"),
        causes=("MODEL_UNLOAD", "QUEUEING", "CPU_SPILL", "KV_CAPACITY"),
        examples=[('time=2026-08-01T07:02:27.012Z level=INFO source=llama_server.go:433 msg="starting llama-server" '
                   'cmd="/usr/lib/ollama/llama-server --model ' + _BLOB + ' --ctx-size 32768 --parallel 1 --n-gpu-layers 999 '
                   '--host 127.0.0.1 --port 45271"', _R + "llm/llama_server.go:433 @ v0.32.15")],
        expect=[("load_count", 1), ("last_load.ctx_size", 32768), ("last_load.parallel", 1)],
    ),
    message(
        "ollama.runner.load_request", E, "v0.11.x-v0.24.0 (the Go runners' load handshake)",
        "runner/llamarunner/runner.go:893, runner/ollamarunner/runner.go:1271 @ v0.12.11 (`slog.Info(\"load\", \"request\", req)`)",
        r"msg=load request=\"\{[^}]*Parallel:\d+[^}]*KvSize:\d+", "load request",
        facts=("parallel slots", "KV size (context x parallel)", "GPU layers"), causes=("QUEUEING", "KV_CAPACITY"),
        examples=[('Dec 03 14:48:11 veritas ollama[1359]: time=2025-12-03T14:48:11.943-08:00 level=INFO source=runner.go:1271 '
                   'msg=load request="{Operation:commit LoraPath:[] Parallel:1 BatchSize:512 FlashAttention:true '
                   'KvSize:16000 KvCacheType: NumThreads:8 GPULayers:[] MultiUserCache:false ProjectorPath: MainGPU:0 '
                   'UseMmap:false}"', "tests/fixtures/ollama/log_go_engine_cpu_only.log")],
        expect=[("last_load.parallel", 1), ("last_load.ctx_size", 16000)],
    ),
    message(
        "ollama.llm.runner_started", E, "v0.1.32-v0.32.15 (DEBUG, %f, at v0.1.32; llama-server from v0.30.0)",
        "llm/server.go:431 @ v0.1.32; llm/server.go:626 @ v0.3.14; llm/server.go:1388 @ v0.17.6; "
        "llm/llama_server.go:1362 @ v0.32.15",
        r"(?:llama runner|llama-server) started in [\d.]+ seconds", "started in",
        facts=("model load time",), causes=("MODEL_UNLOAD",),
        examples=[('time=2025-04-22T11:21:46.411Z level=INFO source=server.go:619 msg="llama runner started in 0.25 seconds"',
                   "tests/fixtures/ollama/log_load_time_truncation.log"),
                  ('time=2026-08-01T07:02:33.347Z level=INFO source=llama_server.go:1274 msg="llama-server started in 6.43 seconds"',
                   "tests/fixtures/ollama/log_v030_loaded.log"),
                  ('time=2024-04-16T10:00:00.000Z level=DEBUG source=server.go:431 msg="llama runner started in 12.504311 seconds"',
                   _R + "llm/server.go:431 @ v0.1.32")],
        expect=[("load_times.count", 1), ("max_load_seconds", True)],
    ),
    message(
        "ollama.llm.load_timed_out", E, "v0.1.32-v0.32.15 (`- progress %0.2f` from v0.1.3x; llama-server from v0.30.0)",
        "llm/server.go:406 @ v0.1.32; llm/server.go:595, :606 @ v0.3.14; llm/server.go:1358 @ v0.17.6; "
        "llm/llama_server.go:1302, :1336 @ v0.32.15",
        r"timed out waiting for (?:llama runner|llama-server) to start", "timed out waiting for",
        facts=("a model load stalled past OLLAMA_LOAD_TIMEOUT (`: context canceled` is the client leaving: load_aborted)",),
        causes=("MODEL_UNLOAD",),
        examples=[("ollama._types.ResponseError: timed out waiting for llama runner to start - progress 0.00 -",
                   "https://github.com/ollama/ollama/issues/8470"),
                  ("Error: timed out waiting for llama runner to start - progress 0.00 -",
                   "https://github.com/ollama/ollama/issues/4131"),
                  ('time=2026-08-01T07:05:00.000Z level=ERROR source=sched.go:734 msg="error loading llama server" '
                   'error="timed out waiting for llama-server to start - llm server loading model"',
                   _R + "llm/llama_server.go:1336 @ v0.32.15")],
        expect=[("load_timeouts.count", 1)],
    ),
    message(
        "ollama.llm.load_aborted_by_client", E, "v0.3.x-v0.32.15 (`llama-server finished loading` from v0.30.0)",
        "llm/server.go:594 @ v0.5.7; llm/server.go:1357 @ v0.17.6; llm/llama_server.go:1301 @ v0.32.15",
        r"client connection closed before (?:server|llama-server) finished loading, aborting load",
        "client connection closed before",
        facts=("the client gave up while its model loaded; the load is thrown away",), causes=("MODEL_UNLOAD",),
        examples=[('time=2024-10-29T03:24:29.283Z level=WARN source=server.go:594 msg="client connection closed before '
                   'server finished loading, aborting load"', "tests/fixtures/evidence/ollama-load-aborted/journal.log"),
                  ('time=2026-08-01T07:03:00.000Z level=WARN source=llama_server.go:1301 msg="client connection closed '
                   'before llama-server finished loading, aborting load"', _R + "llm/llama_server.go:1301 @ v0.32.15")],
        expect=[("load_aborted.count", 1)],
    ),

    message(
        "ollama.llm.waiting_for_runner", E,
        "v0.1.32-v0.24.0 (`llama runner`), v0.30.0-v0.32.15 (`llama-server`); `waiting for server to become available` "
        "v0.1.4x-v0.32.15",
        "llm/server.go:389 @ v0.1.32; llm/server.go:1350, :1384 @ v0.17.6; llm/llama_server.go:1295, :1350 @ v0.32.15",
        r"waiting for (?:llama runner|llama-server) to start responding|waiting for (?:server|llama-server) to become "
        r"available",
        ("to start responding", "to become available"),
        facts=("a model load in progress (the request waits for it)",), causes=("MODEL_UNLOAD",),
        examples=[('time=2024-10-29T03:24:27.778Z level=INFO source=server.go:621 msg="waiting for server to become available" '
                   'status="llm server loading model"', "tests/fixtures/evidence/ollama-load-aborted/journal.log"),
                  ('time=2026-08-01T07:02:33.394Z level=INFO source=llama_server.go:1207 msg="waiting for llama-server to start '
                   'responding"', "tests/fixtures/ollama/log_v030_loaded.log")],
    ),
    message(
        "ollama.llm.model_load_progress", E, "v0.1.4x-v0.24.0 (DEBUG)",
        "llm/server.go:600 @ v0.5.7; llm/server.go:1394 @ v0.17.6",
        r"model load progress \d\.\d\d", "model load progress",
        facts=("how fast a model loads (a slow disk, a model spilling to swap)",), causes=("MODEL_UNLOAD", "SWAP"),
        examples=[('time=2025-05-01T16:40:14.182+02:00 level=DEBUG source=server.go:625 msg="model load progress 0.18"',
                   "https://github.com/ollama/ollama/issues/10517")],
    ),
    message(
        "ollama.sched.load_failed", E,
        "v0.1.33-v0.32.15 (`error loading llama server`), v0.4.x-v0.17.x (`NewLlamaServer failed`), v0.12.x-v0.32.15 "
        "(`Load failed`), v0.30.0-v0.32.15 (`failed to create server`)",
        "server/sched.go:428, :455 @ v0.5.7; server/sched.go:471, :516, :571 @ v0.17.6; server/sched.go:591, :641, :734 @ v0.32.15",
        r'msg="(?:Load failed|NewLlamaServer failed|error loading llama server|failed to create server)"',
        ('msg="load failed"', 'msg="newllamaserver failed"', 'msg="error loading llama server"', 'msg="failed to create server"'),
        facts=("a model load failed, and why (error=)",), causes=("MODEL_UNLOAD", "KV_CAPACITY"),
        examples=[('time=2024-10-29T03:24:29.283Z level=ERROR source=sched.go:455 msg="error loading llama server" '
                   'error="timed out waiting for llama runner to start: context canceled"',
                   "tests/fixtures/evidence/ollama-load-aborted/journal.log"),
                  ('time=2026-03-01T10:00:00.000Z level=INFO source=sched.go:516 msg="Load failed" model=' + _BLOB +
                   ' error="model requires more system memory (12.0 GiB) than is available (6.1 GiB)"',
                   _R + "server/sched.go:516 @ v0.17.6")],
        expect=[("load_failures.count", 1)],
    ),
    message(
        "ollama.sched.loaded_runners", E, "v0.1.33-v0.32.15",
        "server/sched.go:449 @ v0.5.7; server/sched.go:565 @ v0.17.6; server/sched.go:728 @ v0.32.15",
        r'msg="loaded runners"\s+count=\d+', "loaded runners",
        facts=("models loaded after a load (compare OLLAMA_MAX_LOADED_MODELS)",), causes=("MODEL_UNLOAD",),
        examples=[('Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.187+01:00 level=INFO source=sched.go:481 '
                   'msg="loaded runners" count=1', "tests/fixtures/ollama/log_v011_runner_journal.log"),
                  ('time=2025-09-11T01:28:20.391Z level=INFO source=sched.go:473 msg="loaded runners" count=1',
                   "https://github.com/ollama/ollama/issues/12247"),
                  ('time=2024-08-06T12:30:29.628Z level=INFO source=sched.go:445 msg="loaded runners" count=2',
                   _R + "server/sched.go:449 @ v0.3.14")],
        expect=[("loaded_runners", True)],
    ),
    message(
        "ollama.old.starting_llama_runner", E, "v0.1.0-v0.1.17 (log.Print)",
        "llm/llama.go:310 @ v0.1.0; llm/llama.go:436 @ v0.1.17",
        r"llama\.go:\d+: starting llama runner\b", "starting llama runner",
        facts=("a model load begins",), causes=("MODEL_UNLOAD",),
        examples=[("2023/10/08 06:05:44 llama.go:313: starting llama runner", "https://github.com/ollama/ollama/issues/734")],
        expect=[("load_count", 1)],
    ),
    message(
        "ollama.old.vram_layers", E, "v0.1.0-v0.1.17 (log.Printf; `MiB` at v0.1.0, `MB` after)",
        "llm/llama.go:238 @ v0.1.0; llm/llama.go:291 @ v0.1.10; llm/llama.go:300 @ v0.1.17",
        r"\d+ Mi?B VRAM available, loading up to \d+ GPU layers", "vram available, loading up to",
        facts=("free VRAM and the GPU layers planned",), causes=("CPU_SPILL",),
        examples=[("2023/10/08 06:05:44 llama.go:239: 6144 MiB VRAM available, loading up to 54 GPU layers",
                   "https://github.com/ollama/ollama/issues/734")],
    ),
    message(
        "ollama.ext_server.slot_data", E, "v0.1.2x-v0.3.14 (the C++ ext_server runner's JSON log)",
        "llm/ext_server/server.cpp:1506 @ v0.1.32",
        r'"msg":"slot data","n_idle_slots":\d+,"n_processing_slots":\d+', '"msg":"slot data"',
        facts=("runner slots idle and busy when a task arrived",), causes=("QUEUEING",),
        examples=[('{"function":"process_single_task","level":"INFO","line":1513,"msg":"slot data","n_idle_slots":1,'
                   '"n_processing_slots":0,"task_id":22,"tid":"9888","timestamp":1714737092}',
                   "tests/fixtures/realcases/case121_ollama_win_embed_burst_500_queue_of_10/journal.log")],
    ),

    # -- scheduler: unloads, evictions, keep-alive ------------------------------------------
    message(
        "ollama.sched.max_runners", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:138 @ v0.1.33; server/sched.go:155 @ v0.5.7; server/sched.go:266 @ v0.32.15",
        r"max runners achieved, unloading one to make room", "max runners achieved",
        facts=("OLLAMA_MAX_LOADED_MODELS reached: a loaded model is unloaded for another",), causes=("MODEL_UNLOAD",),
        examples=[('time=2025-01-16T10:00:00.000Z level=DEBUG source=sched.go:155 msg="max runners achieved, unloading one '
                   'to make room" runner_count=1', _R + "server/sched.go:155 @ v0.5.7")],
        expect=[("evictions.count", 1)],
    ),
    message(
        "ollama.sched.expire_to_make_room", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:283 @ v0.5.7 (`resetting model to expire immediately to make room`)",
        r"resetting model to expire immediately to make room", "resetting model to expire",
        facts=("a loaded model is unloaded for another",), causes=("MODEL_UNLOAD",),
        examples=[('time=2024-11-20T21:26:53.535-05:00 level=DEBUG source=sched.go:283 msg="resetting model to expire '
                   'immediately to make room" modelPath=C:\\Users\\me\\.ollama\\models\\blobs\\sha256-d7e4b00a7d7a8d03d4eed9b0f3'
                   'f61a427e9f0fc5dea6aeb414e41dee23dc8ecc refCount=0', "tests/fixtures/evidence/ollama-model-evicted/journal.log")],
        expect=[("evictions.count", 1)],
    ),
    message(
        "ollama.llm.evicting_to_make_space", E, "v0.11.5-v0.24.0 (`more gpu memory` from v0.13.1)",
        "llm/server.go:974, :979 @ v0.12.11; llm/server.go:1029, :1034 @ v0.17.6",
        r"model requires more (?:gpu |system )?memory than is currently available, evicting a model to make space",
        "evicting a model to make space",
        facts=("the new model does not fit beside the loaded ones: one is unloaded",), causes=("MODEL_UNLOAD",),
        examples=[('Nov 24 13:55:06 llm ollama[7189]: time=2025-11-24T13:55:06.999Z level=INFO source=server.go:974 '
                   'msg="model requires more memory than is currently available, evicting a model to make space" '
                   '"loaded layers"=0', "tests/fixtures/realcases/case133_ollama_cpu_only_evicts_model_despite_free_ram/journal.log"),
                  ('time=2026-03-01T10:00:00.000Z level=INFO source=server.go:1029 msg="model requires more gpu memory than is '
                   'currently available, evicting a model to make space" "loaded layers"=12', _R + "llm/server.go:1029 @ v0.17.6"),
                  ('time=2026-03-01T10:00:00.000Z level=INFO source=server.go:1034 msg="model requires more system memory than '
                   'is currently available, evicting a model to make space" required=8589934592 free=4294967296',
                   _R + "llm/server.go:1034 @ v0.17.6")],
        expect=[("evictions.count", 1)],
    ),
    message(
        "ollama.sched.predicted_to_exceed", E, "v0.30.0-v0.32.15",
        "server/sched.go:551 @ v0.32.15",
        r"llama-server model predicted to exceed available memory, evicting", "predicted to exceed available memory",
        facts=("the new model's predicted memory exceeds what is free: a loaded model is unloaded",), causes=("MODEL_UNLOAD",),
        examples=[('time=2026-08-01T07:10:00.000Z level=INFO source=sched.go:551 msg="llama-server model predicted to exceed '
                   'available memory, evicting" predicted="21.4 GiB" predicted_num_ctx=32768 num_batch=512 available="14.2 GiB" '
                   'gpu_free="14.2 GiB" system_free="52.0 GiB" system_limited=false', _R + "server/sched.go:551 @ v0.32.15")],
        expect=[("evictions.count", 1)],
    ),
    message(
        "ollama.sched.evict_all_for_retry", E, "v0.30.0-v0.32.15",
        "server/sched.go:667, :1605 @ v0.32.15",
        r"evicting all other (?:loaded )?models", "evicting all other",
        facts=("a load failed for memory: every other model is unloaded and the load retried",), causes=("MODEL_UNLOAD",),
        examples=[('time=2026-08-01T07:11:00.000Z level=INFO source=sched.go:1605 msg="evicting all other loaded models for OOM '
                   'retry" count=2', _R + "server/sched.go:1605 @ v0.32.15"),
                  (f'time=2026-08-01T07:11:00.000Z level=WARN source=sched.go:667 msg="llama-server load failed; evicting all '
                   f'other models and retrying once" model={_BLOB} error="llama-server reported out-of-memory during startup"',
                   _R + "server/sched.go:667 @ v0.32.15")],
        expect=[("evictions.count", 1)],
    ),
    message(
        "ollama.sched.timer_expired", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:248 @ v0.1.33; server/sched.go:341 @ v0.3.14; server/sched.go:345 @ v0.9.6; "
        "server/sched.go:396 @ v0.32.15",
        r"timer expired, expiring to unload", "timer expired",
        facts=("keep-alive ran out: the model is unloaded",), causes=("MODEL_UNLOAD",),
        examples=[(f'time=2024-10-17T10:05:00.000Z level=DEBUG source=sched.go:341 msg="timer expired, expiring to unload" '
                   f'modelPath={_BLOB}', _R + "server/sched.go:341 @ v0.3.14")],
        expect=[("expiries.count", 1)],
    ),
    message(
        "ollama.sched.zero_duration_idle", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:239 @ v0.1.33; server/sched.go:332 @ v0.3.14; server/sched.go:387 @ v0.32.15",
        r"runner with zero duration has gone idle, expiring to unload", "zero duration has gone idle",
        facts=("keep_alive 0: the model is unloaded after each request",), causes=("MODEL_UNLOAD",),
        examples=[(f'time=2024-10-17T10:05:00.000Z level=DEBUG source=sched.go:332 msg="runner with zero duration has gone '
                   f'idle, expiring to unload" modelPath={_BLOB}', _R + "server/sched.go:332 @ v0.3.14")],
        expect=[("expiries.count", 1), ("keep_alive_zero.count", 1)],
    ),
    message(
        "ollama.sched.idle_adding_timer", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:246 @ v0.1.33; server/sched.go:339 @ v0.3.14; server/sched.go:394 @ v0.32.15",
        r"runner with non-zero duration has gone idle, adding timer", "non-zero duration has gone idle",
        facts=("keep-alive in force (duration=)",), causes=("MODEL_UNLOAD",),
        examples=[('time=2024-10-08T20:16:00.487Z level=DEBUG source=sched.go:339 msg="runner with non-zero duration has gone '
                   'idle, adding timer" modelPath=/root/.ollama/models/blobs/sha256-819c2adf5ce6df2b6bd2ae4ca90d2a69f060afeb43'
                   '8d0c171db57daa02e39c3d duration=1m0s', "https://github.com/ollama/ollama/issues/7130")],
        expect=[("keep_alive_timers.count", 1)],
    ),
    message(
        "ollama.sched.reloading", E, "v0.9.x-v0.32.15 (DEBUG)",
        "server/sched.go:151 @ v0.9.6; server/sched.go:161 @ v0.12.11; server/sched.go:187 @ v0.24.0",
        r"msg=reloading\s+runner\.", "msg=reloading",
        facts=("a loaded model is reloaded because a request asked for other options (num_ctx, num_gpu ...)",),
        causes=("MODEL_UNLOAD",),
        examples=[(f'time=2025-11-13T10:00:00.000Z level=DEBUG source=sched.go:161 msg=reloading '
                   f'runner.name=registry.ollama.ai/library/qwen3:8b runner.size="6.2 GiB" runner.vram="6.2 GiB" '
                   f'runner.parallel=1 runner.pid=12345 runner.model={_BLOB} runner.num_ctx=4096',
                   _R + "server/sched.go:161 @ v0.12.11")],
        expect=[("option_reloads.count", 1)],
    ),
    message(
        "ollama.sched.evaluating_already_loaded", E, "v0.1.33-v0.9.6 (DEBUG)",
        "server/sched.go:575 @ v0.3.14",
        r'msg="evaluating already loaded"', "evaluating already loaded",
        facts=("a request for a loaded model: whether it can reuse it (what follows says if it was expired)",),
        causes=("MODEL_UNLOAD",),
        examples=[('time=2024-11-20T21:26:53.535-05:00 level=DEBUG source=sched.go:575 msg="evaluating already loaded" '
                   'model=C:\\Users\\me\\.ollama\\models\\blobs\\sha256-d7e4b00a7d7a8d03d4eed9b0f3f61a427e9f0fc5dea6aeb414e41dee23dc8ecc',
                   "tests/fixtures/evidence/ollama-model-evicted/journal.log")],
    ),
    message(
        "ollama.sched.waiting_for_unload", E, "v0.1.33-v0.32.15 (DEBUG)",
        "server/sched.go:203 @ v0.1.33; server/sched.go:296 @ v0.3.14; server/sched.go:350 @ v0.32.15",
        r"waiting for pending requests to complete and unload to occur", "waiting for pending requests to complete",
        facts=("a load waits until the model it replaces finishes its requests and unloads",),
        causes=("MODEL_UNLOAD", "QUEUEING"),
        examples=[(f'time=2024-10-17T10:00:00.000Z level=DEBUG source=sched.go:296 msg="waiting for pending requests to '
                   f'complete and unload to occur" modelPath={_BLOB}', _R + "server/sched.go:296 @ v0.3.14")],
        expect=[("unload_waits.count", 1)],
    ),
    message(
        "ollama.sched.pending_cancelled", E, "v0.1.3x-v0.32.15 (DEBUG)",
        "server/sched.go:129 @ v0.3.14; server/sched.go:238 @ v0.32.15",
        r"pending request cancelled or timed out, skipping scheduling", "pending request cancelled or timed out",
        facts=("a queued request's client gave up before it was scheduled",), causes=("QUEUEING",),
        examples=[('time=2024-10-17T10:00:00.000Z level=DEBUG source=sched.go:129 msg="pending request cancelled or timed '
                   'out, skipping scheduling"', _R + "server/sched.go:129 @ v0.3.14")],
        expect=[("queue_abandoned.count", 1)],
    ),
    message(
        "ollama.sched.vram_not_recovered", E, "v0.1.35-v0.32.15 (WARN; DEBUG from v0.12)",
        "server/sched.go:646 @ v0.3.14; server/sched.go:646 @ v0.5.7; server/sched.go:655 @ v0.6.8; "
        "server/sched.go:718 @ v0.12.11; server/sched.go:1492 @ v0.32.15",
        r"gpu VRAM usage didn't recover within timeout", "vram usage didn't recover",
        facts=("an unloaded model's VRAM was not free 5 s later: the next load may spill or wait",
               "a runner was unloaded (the wait runs only on an unload): time= minus seconds= is when it began, "
               "and the line repeats every 250 ms until the memory shows free"),
        causes=("MODEL_UNLOAD", "CPU_SPILL"),
        examples=[('level=WARN source=sched.go:646 msg="gpu VRAM usage didn\'t recover within timeout"',
                   "https://github.com/ollama/ollama/issues/9160"),
                  ('time=2025-06-18T00:53:55.896+08:00 level=WARN source=sched.go:647 msg="gpu VRAM usage didn\'t recover within '
                   'timeout" seconds=5.26432203 model=/root/.ollama/models/blobs/sha256-aabd4debf0c8f08881923f2c25fc0fdeed24435'
                   '271c2b3e92c4af36704040dbc', "https://github.com/eleiton/ollama-intel-arc/issues/17"),
                  ('2025-05-14 23:59:04 time=2025-05-14T15:59:04.759Z level=WARN source=sched.go:655 msg="gpu VRAM usage '
                   'didn\'t recover within timeout" seconds=5.113076142 model=/root/.ollama/models/blobs/sha256-aabd4debf0c8f0'
                   '8881923f2c25fc0fdeed24435271c2b3e92c4af36704040dbc',
                   "tests/fixtures/realcases_extra8/x815_ollama_068_ragflow_018_reloads_model_vram_recover_docker_desktop/"
                   "journal.log")],
        expect=[("vram_not_recovered.count", 1)],
    ),

    # -- scheduler: parallelism and the queue ---------------------------------------------
    message(
        "ollama.sched.parallel_unsupported", E,
        "v0.4.x-v0.5.x (`mllama doesn't support parallel requests yet`), v0.6-v0.9.6 (`mllama does not currently ...`), "
        "v0.10-v0.32.15 (`model architecture does not currently ...`)",
        "server/sched.go:137 @ v0.5.7; server/sched.go:140 @ v0.9.6; server/sched.go:404 @ v0.12.11; "
        "server/sched.go:509 @ v0.32.15",
        r"(?:mllama|model architecture) (?:doesn't|does not currently) support parallel requests", "support parallel requests",
        facts=("parallel forced to 1 for this architecture: requests queue",), causes=("QUEUEING",),
        examples=[('time=2026-03-05T06:40:37.818-05:00 level=WARN source=sched.go:450 msg="model architecture does not currently '
                   'support parallel requests" architecture=qwen35moe',
                   "tests/fixtures/realcases_extra3/x301_ollama_mac_qwen35moe_num_parallel_2_forced_to_1/journal.log"),
                  ("time=2025-01-16T10:00:00.000Z level=WARN source=sched.go:137 msg=\"mllama doesn't support parallel requests yet\"",
                   _R + "server/sched.go:137 @ v0.5.7"),
                  ('time=2025-07-07T10:00:00.000Z level=WARN source=sched.go:140 msg="mllama does not currently support parallel '
                   'requests"', _R + "server/sched.go:140 @ v0.9.6")],
        expect=[("forced_single_slot.count", 1)],
    ),
    message(
        "ollama.sched.default_concurrency_disabled", E, "v0.3.x-v0.9.6 (gone at v0.12.11)",
        "server/sched.go:185 @ v0.3.14; server/sched.go:189 @ v0.9.6",
        r"unable to accurately report free memory - disabling default concurrency", "disabling default concurrency",
        facts=("a GPU cannot report free memory: the automatic parallel default falls to 1",), causes=("QUEUEING",),
        examples=[('time=2024-10-17T10:00:00.000Z level=INFO source=sched.go:185 msg="one or more GPUs detected that are unable '
                   'to accurately report free memory - disabling default concurrency"', _R + "server/sched.go:185 @ v0.3.14")],
        expect=[("default_concurrency_off.count", 1)],
    ),
    message(
        "ollama.sched.max_queue", E, "v0.1.33-v0.32.15 (an error value, answered with 503)",
        "server/sched.go:98 @ v0.1.33; server/sched.go:61 @ v0.3.14; server/sched.go:88 @ v0.32.15",
        r"server busy, please try again\.\s+maximum pending requests exceeded", "maximum pending requests exceeded",
        facts=("OLLAMA_MAX_QUEUE reached: requests refused",), causes=("QUEUE_FULL",),
        examples=[("2026-05-29 09:06:58.664 ERROR (MainThread) [custom_components.llmvision.providers] Provider Ollama failed: "
                   "server busy, please try again.  maximum pending requests exceeded",
                   "tests/fixtures/ollama/client_error_two_spaces.txt")],
        expect=[("max_pending.count", 1)],
    ),
    message(
        "ollama.llm.no_slots", E,
        "v0.1.33-v0.24.0 (`llm busy - no slots available`, a status text); v0.3.x-v0.32.15 (`no slots available after "
        "%d retries`, an error to the client)",
        "llm/server.go:352 @ v0.1.33; llm/server.go:480, :561 @ v0.3.14; llm/llama_server.go:1263 @ v0.32.15",
        r"llm busy - no slots available|no slots available after \d+ retries",
        ("llm busy - no slots available", "no slots available after"),
        facts=("every runner slot busy: the request was refused",), causes=("QUEUE_FULL", "QUEUEING"),
        examples=[('`\\"error\\":\\"unexpected server status: llm busy - no slots available\\"}`',
                   "tests/fixtures/ollama/client_error_v0133.txt"),
                  ('{"error":"no slots available after 10 retries"}', _R + "llm/server.go:561 @ v0.3.14")],
        expect=[("busy.count", 1)],
    ),
    message(
        "ollama.gin.access", E, "v0.1.x-v0.32.15 (gin's default logger: gin v1.9.1 at v0.1.32, v1.10.0 at v0.32.15)",
        "server/routes.go:1060 @ v0.1.32 and server/routes.go:1869 @ v0.32.15 (gin.Default())",
        r"\[GIN\] \d{4}/\d\d/\d\d - \d\d:\d\d:\d\d \|\s*\d{3}\s*\|", "[gin]",
        facts=("request end time, status, duration, path"), causes=("QUEUEING", "QUEUE_FULL", "MODEL_UNLOAD"),
        examples=[('[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     "/api/generate"',
                   "tests/fixtures/ollama/log_gin_503.log")],
        expect=[("status_503.count", 1)],
    ),
    message(
        "ollama.gin.access_ok", E, "v0.1.x-v0.32.15",
        "server/routes.go:1060 @ v0.1.32 and server/routes.go:1869 @ v0.32.15 (gin.Default())",
        r"\[GIN\] \d{4}/\d\d/\d\d - \d\d:\d\d:\d\d \|\s*[23]\d\d\s*\|[^|]+\|[^|]+\|\s*POST\s+\"/(?:api|v1)/", "[gin]",
        facts=("an inference request's duration",), causes=("QUEUEING", "PREFILL"),
        examples=[('[GIN] 2025/01/12 - 00:52:46 | 200 | 19.293643585s |      10.0.0.123 | POST     "/api/chat"',
                   "tests/fixtures/realcases/case109_ollama_500_at_client_timeout_model_never_stops/journal.log")],
        expect=[("requests.requests", 1), ("status_counts", {200: 1})],
    ),
    message(
        "ollama.llm.client_closed_request", E, "v0.1.3x-v0.32.15 (completion, embedding; chat from v0.30.0)",
        "llm/server.go:1568, :1712 @ v0.17.6; llm/llama_server.go:1538, :1895 @ v0.32.15",
        r"aborting (?:completion|embedding|chat) request due to client closing the connection",
        "due to client closing the connection",
        facts=("a client gave up on a request in flight (its timeout)",), causes=("QUEUEING", "PREFILL"),
        examples=[('Jul 15 21:59:10 slablab ollama[1369]: time=2025-07-15T21:59:10.290-07:00 level=INFO source=server.go:899 '
                   'msg="aborting embedding request due to client closing the connection"',
                   "tests/fixtures/realcases/case132_ollama_embed_10s_client_timeout_serial_queue/journal.log"),
                  ('time=2026-03-01T10:00:00.000Z level=INFO source=server.go:1568 msg="aborting completion request due to client '
                   'closing the connection"', _R + "llm/server.go:1568 @ v0.17.6")],
        expect=[("client_aborts.count", 1)],
    ),

    message(
        "ollama.runner.cache_slot", E, "v0.3.13-v0.24.0 (DEBUG; the Go runners' prompt cache)",
        "llama/runner/cache.go:104, :165 @ v0.5.7; runner/ollamarunner/cache.go:151, :212 @ v0.17.6",
        r"(?:loading|evicting) cache slot", ("loading cache slot", "evicting cache slot"),
        facts=("a prompt's reuse of a cached prefix (used= of prompt=), a slot's cache evicted for another",),
        causes=("PREFILL",),
        examples=[('time=2025-06-25T15:47:25.991+08:00 level=DEBUG source=cache.go:104 msg="loading cache slot" id=0 cache=0 '
                   'prompt=47 used=0 remaining=47', "tests/fixtures/ollama/log_debug_history_truncation.log")],
        expect=[("cache_slot_loads.count", 1)],
    ),

    # -- memory fit and offload -------------------------------------------------------------
    message(
        "ollama.sched.gpu_memory", E,
        "v0.3.x-v0.32.15 (`updated VRAM based on existing loaded models`), v0.11.x-v0.32.15 (`gpu memory`)",
        "server/sched.go:507 @ v0.3.14; llm/server.go:686 @ v0.11.11; server/sched.go:496, :684 @ v0.17.6; "
        "server/sched.go:620, :1332 @ v0.32.15",
        r'msg="gpu memory"\s+id=|updated VRAM based on existing loaded models', ('msg="gpu memory"', "updated vram based on"),
        facts=("free VRAM per GPU when a model loads (what other models and processes left)",),
        causes=("CPU_SPILL", "MODEL_UNLOAD"),
        examples=[('Sep 17 10:59:12 freebear ollama[1373]: time=2025-09-17T10:59:12.406+02:00 level=INFO source=server.go:686 '
                   'msg="gpu memory" id=GPU-c780ce2e-fd07-cc30-a3df-c3cd23cf8953 available="10.1 GiB" free="10.5 GiB" '
                   'minimum="457.0 MiB" overhead="0 B"', "https://github.com/ollama/ollama/issues/12305"),
                  ('time=2025-01-16T10:00:00.000Z level=INFO source=sched.go:507 msg="updated VRAM based on existing loaded '
                   'models" gpu=GPU-4e6d6c87-524c-3720-e9a4-e2010f88f2c4 library=cuda total="23.6 GiB" available="9.8 GiB"',
                   _R + "server/sched.go:507 @ v0.5.7")],
        expect=[("gpu_memory.count", 1)],
    ),
    message(
        "ollama.sched.predicted_exceeds_vram", E, "v0.1.4x-v0.32.15",
        "server/sched.go:499 @ v0.5.7; server/sched.go:676 @ v0.17.6; server/sched.go:1324 @ v0.32.15",
        r"predicted usage exceeds VRAM", "predicted usage exceeds vram",
        facts=("the loaded models are predicted to need more VRAM than the GPU has",), causes=("CPU_SPILL", "MODEL_UNLOAD"),
        examples=[('time=2025-01-16T10:00:00.000Z level=WARN source=sched.go:499 msg="predicted usage exceeds VRAM" '
                   'gpu=GPU-4e6d6c87-524c-3720-e9a4-e2010f88f2c4 totalMemory=25769803776 predicted=27917287424',
                   _R + "server/sched.go:499 @ v0.5.7")],
        expect=[("vram_overcommit.count", 1)],
    ),
    message(
        "ollama.sched.mmap_off_memory_pressure", E, "v0.30.0-v0.32.15",
        "server/sched.go:1215 @ v0.32.15",
        r"disabling mmap for llama-server load due to host memory pressure", "due to host memory pressure",
        facts=("host memory is short: the model is read into RAM, not mapped",), causes=("SWAP",),
        examples=[('time=2026-08-01T07:00:00.000Z level=INFO source=sched.go:1215 msg="disabling mmap for llama-server load '
                   'due to host memory pressure" model=qwen3:32b', _R + "server/sched.go:1215 @ v0.32.15")],
        expect=[("host_memory_pressure.count", 1)],
    ),
    message(
        "ollama.sched.system_memory", E, "v0.11.x-v0.32.15",
        "llm/server.go:135 @ v0.11.x; server/sched.go:489 @ v0.17.6; server/sched.go:613 @ v0.32.15",
        r'msg="system memory" total="[^"]+" free="[^"]+"', "system memory",
        facts=("host memory total and free at load time",), causes=("SWAP", "CPU_SPILL"),
        examples=[('Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.145+01:00 level=INFO source=server.go:135 '
                   'msg="system memory" total="30.9 GiB" free="25.4 GiB" free_swap="2.0 GiB"',
                   "tests/fixtures/ollama/log_v011_runner_journal.log")],
        expect=[("system_memory", True), ("system_free_bytes", True)],
    ),
    message(
        "ollama.llm.too_large_for_system", E, "v0.3.x-v0.24.0 / v0.12.11-v0.32.15",
        "llm/server.go:137 @ v0.3.14; llm/server.go:1044 @ v0.17.6; server/sched.go:462 @ v0.12.11; server/sched.go:632 @ v0.32.15",
        r"model request too large for system|model is too large for system memory",
        ("model request too large for system", "too large for system memory"),
        facts=("the model needs more host memory than is free",), causes=("SWAP", "CPU_SPILL"),
        examples=[('time=2024-10-17T10:00:00.000Z level=WARN source=server.go:137 msg="model request too large for system" '
                   'requested="42.0 GiB" available=34359738368 total="31.2 GiB" free="28.4 GiB" swap="2.0 GiB"',
                   _R + "llm/server.go:137 @ v0.3.14"),
                  ('time=2026-08-01T07:00:00.000Z level=INFO source=sched.go:632 msg="model is too large for system memory" '
                   'requireFull=true', _R + "server/sched.go:632 @ v0.32.15")],
        expect=[("too_large.count", 1)],
    ),
    message(
        "ollama.llm.no_layer_fits", E, "v0.1.33-v0.12.x (DEBUG)",
        "llm/memory.go:103 @ v0.1.33; llm/memory.go:170, :312 @ v0.3.14; llm/memory.go:173, :317 @ v0.4.7; "
        "llm/memory.go:269, :411 and llm/server.go:969 @ v0.11.11; llm/server.go:1002 @ v0.12.11 "
        "(then llm/server.go:122 @ v0.3.14, :156 @ v0.9.6: `estimate.Layers == 0` loads on the CPU)",
        r"gpu has too little memory to allocate any layers|insufficient VRAM to load any model layers",
        ("gpu has too little memory", "insufficient vram to load any"),
        facts=("a GPU was evaluated and not one layer fits on it (graph, minimum and two layers exceed its free memory)",),
        causes=("CPU_SPILL",),
        examples=[('10月 14 12:47:30 gpu ollama[24746]: time=2024-10-14T12:47:30.995+08:00 level=DEBUG source=memory.go:170 '
                   'msg="gpu has too little memory to allocate any layers" id=GPU-ac079011-c45b-de29-f2e2-71b2e5d2d7f4 '
                   'library=cuda variant=v12 compute=8.0 driver=12.2 name="NVIDIA A30" total="23.5 GiB" available="23.3 GiB" '
                   'minimum_memory=479199232 layer_size="484.5 MiB" gpu_zer_overhead="0 B" partial_offload="24.6 GiB" '
                   'full_offload="24.2 GiB"', "https://github.com/ollama/ollama/issues/7208"),
                  ('time=2024-11-05T18:36:56.141Z level=DEBUG source=memory.go:317 msg="insufficient VRAM to load any model '
                   'layers"', "https://github.com/ollama/ollama/issues/7509")],
        expect=[("no_layer_fits.count", 1)],
    ),
    message(
        "ollama.llm.offload_to_gpu", E, "v0.1.2x-v0.1.32",
        "llm/server.go:128 @ v0.1.32",
        r'msg="offload to gpu"\s+reallayers=\d+\s+layers=\d+', "offload to gpu",
        facts=("layers planned on GPU / layers", "memory required and available"), causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[('time=2024-04-16T10:00:00.000Z level=INFO source=server.go:128 msg="offload to gpu" reallayers=27 layers=33 '
                   'required="7.8 GiB" used="5.9 GiB" available="6.0 GiB" kv="1.0 GiB" fulloffload="560.0 MiB" '
                   'partialoffload="585.0 MiB"', _R + "llm/server.go:128 @ v0.1.32")],
        expect=[("estimator", True), ("estimate_layers", (27, 33))],
    ),
    message(
        "ollama.llm.offload_to_library", E, "v0.1.33-v0.5.x",
        "llm/memory.go:327 @ v0.3.14 (`\"offload to \"+library`, keys layers.*, memory.*)",
        r'msg="offload to (?!gpu")\w+"\s+layers\.requested=', "offload to ",
        facts=("layers planned on GPU / layers", "memory required (full, partial, kv) and available"),
        causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[('time=2025-02-07T09:17:02.253+08:00 level=INFO source=memory.go:356 msg="offload to cuda" '
                   'layers.requested=-1 layers.model=65 layers.offload=65 layers.split="" memory.available="[22.9 GiB]" '
                   'memory.gpu_overhead="0 B" memory.required.full="21.5 GiB" memory.required.partial="21.5 GiB" '
                   'memory.required.kv="2.0 GiB" memory.required.allocations="[21.5 GiB]"',
                   "tests/fixtures/realcases/case120_ollama_windows_second_client_use_mlock_forces_reload/journal.log")],
        expect=[("estimator", True), ("estimate_layers", (65, 65))],
    ),
    message(
        "ollama.llm.offload", E, "v0.6.x-v0.11.x",
        "llm/server.go:139 @ v0.6.8 (`slog.Info(\"offload\", \"\", estimate)`)",
        r"msg=offload\s+library=\S+\s+layers\.requested=", "msg=offload",
        facts=("layers planned on GPU / layers", "memory required (full, partial, kv) and available"),
        causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[('Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.146+01:00 level=INFO source=server.go:175 '
                   'msg=offload library=cuda layers.requested=49 layers.model=49 layers.offload=48 layers.split="" '
                   'memory.available="[10.9 GiB]" memory.gpu_overhead="0 B" memory.required.full="11.0 GiB" '
                   'memory.required.partial="8.5 GiB" memory.required.kv="608.0 MiB" memory.required.allocations="[8.5 GiB]"'
                   ' memory.weights.total="6.8 GiB" memory.weights.repeating="6.0 GiB" memory.weights.nonrepeating="787.5 MiB"'
                   ' memory.graph.full="519.5 MiB" memory.graph.partial="1.3 GiB" projector.weights="795.9 MiB" '
                   'projector.graph="1.0 GiB"', "tests/fixtures/ollama/log_v011_runner_journal.log")],
        expect=[("estimator", True), ("estimate_layers", (48, 49))],
    ),
    message(
        "ollama.ggml.offloaded_layers", E, "v0.5.12-v0.24.0 (the Go engine, ollamarunner)",
        "ml/backend/ggml/ggml.go:498 @ v0.11.11",
        r'msg="offloaded \d+/\d+ layers to GPU"', 'msg="offloaded',
        facts=("layers on GPU / layers",), causes=("CPU_SPILL",),
        examples=[('time=2026-04-17T02:54:25.606Z level=INFO source=ggml.go:494 msg="offloaded 42/43 layers to GPU"',
                   "tests/fixtures/realcases_extra3/x303_ollama_gemma4_output_layer_on_cpu_42of43_split/journal.log"),
                  ('Dec 03 14:48:11 veritas ollama[1359]: time=2025-12-03T14:48:11.944-08:00 level=INFO source=ggml.go:494 '
                   'msg="offloaded 0/25 layers to GPU"', "tests/fixtures/ollama/log_go_engine_cpu_only.log")],
        expect=[("last_load.offloaded", True)],
    ),
    message(
        "ollama.ggml.output_layer_on_cpu", E, "v0.5.12-v0.24.0 (the Go engine)",
        "ml/backend/ggml/ggml.go:487 @ v0.11.11 (`offloading output layer to CPU`)",
        r'msg="offloading output layer to CPU"', "offloading output layer to cpu",
        facts=("the output layer runs on the CPU",), causes=("CPU_SPILL",),
        examples=[('time=2026-04-17T02:54:25.606Z level=INFO source=ggml.go:486 msg="offloading output layer to CPU"',
                   "tests/fixtures/realcases_extra3/x303_ollama_gemma4_output_layer_on_cpu_42of43_split/journal.log")],
        expect=[("last_load.output_on_cpu", True)],
    ),
    message(
        "ollama.ml.device_memory", E, "v0.12.x-v0.32.15 (ml/device.go; ggml.go's `model weights buffer=` before)",
        "ml/device.go:240 @ v0.12.11; ml/device.go:241, :246 @ v0.32.15",
        r'msg="(?:model weights|kv cache|compute graph)" device=\S+ size="[^"]+"', ("model weights", "kv cache", "compute graph"),
        facts=("weights, KV cache and graph per device (CPU = spilled)",), causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[('Dec 03 14:48:11 veritas ollama[1359]: time=2025-12-03T14:48:11.944-08:00 level=INFO source=device.go:245 '
                   'msg="model weights" device=CPU size="12.8 GiB"', "tests/fixtures/ollama/log_go_engine_cpu_only.log")],
        expect=[("last_load.host_weights_bytes", True)],
    ),
    message(
        "ollama.llm.layout_did_not_fit", E, "v0.12.x-v0.24.0 (the new memory fitting)",
        "llm/server.go:818, :824 @ v0.12.11; llm/server.go:873, :879, :894 @ v0.17.6",
        r"memory layout cannot be allocated|model layout did not fit, applying backoff|failed to commit memory for model",
        ("memory layout cannot be allocated", "model layout did not fit", "failed to commit memory"),
        facts=("the model's layout did not fit the free memory: fewer layers on GPU",), causes=("CPU_SPILL", "KV_CAPACITY"),
        examples=[('time=2026-03-01T10:00:00.000Z level=INFO source=server.go:879 msg="model layout did not fit, applying '
                   'backoff" backoff=0.10', _R + "llm/server.go:879 @ v0.17.6"),
                  ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:873 msg="memory layout cannot be allocated" '
                   'memory="{InputWeights:541065216 CPU:{Name:CPU} GPUs:[]}"', _R + "llm/server.go:873 @ v0.17.6")],
        expect=[("layout_misfits.count", 1)],
    ),
    message(
        "ollama.sched.reduce_auto_context", E, "v0.30.0-v0.32.15",
        "server/sched.go:652 @ v0.32.15",
        r"llama-server load failed; reducing automatic context and retrying once", "reducing automatic context",
        facts=("the load ran out of memory: the automatic context was cut",), causes=("KV_CAPACITY", "CONTEXT_TRUNCATION"),
        examples=[(f'time=2026-08-01T07:12:00.000Z level=WARN source=sched.go:652 msg="llama-server load failed; reducing '
                   f'automatic context and retrying once" model={_BLOB} old_num_ctx=262144 effective_num_ctx=262144 '
                   f'new_num_ctx=65536 old_num_batch=512 new_num_batch=512', _R + "server/sched.go:652 @ v0.32.15")],
        expect=[("oom.count", 1)],
    ),
    message(
        "ollama.sched.runtime_oom", E, "v0.30.0-v0.32.15",
        "server/sched.go:1648 @ v0.32.15",
        r"runtime OOM detected; expiring loaded models", "runtime oom detected",
        facts=("out of memory while serving: loaded models unloaded",), causes=("MODEL_UNLOAD", "KV_CAPACITY"),
        examples=[('time=2026-08-01T07:15:00.000Z level=WARN source=sched.go:1648 msg="runtime OOM detected; expiring loaded '
                   'models to clear memory before next request" model=qwen3:32b error="CUDA error: out of memory"',
                   _R + "server/sched.go:1648 @ v0.32.15")],
        expect=[("oom.count", 1)],
    ),
    message(
        "ollama.llm.startup_oom", E, "v0.30.0-v0.32.15",
        "llm/llama_server.go:1372, :1375 @ v0.32.15",
        r"llama-server reported out-of-memory during startup", "reported out-of-memory",
        facts=("the model did not fit at load",), causes=("KV_CAPACITY", "CPU_SPILL"),
        examples=[('time=2026-08-01T07:12:00.000Z level=INFO source=sched.go:641 msg="Load failed" model=' + _BLOB +
                   ' error="llama-server reported out-of-memory during startup: cudaMalloc failed: out of memory"',
                   _R + "llm/llama_server.go:1372 @ v0.32.15")],
        expect=[("oom.count", 1)],
    ),
    message(
        "ollama.llm.runner_terminated", E, "v0.1.3x-v0.24.0 (`llama-server process has terminated` from v0.30.0)",
        "llm/server.go:398 @ v0.1.32; llm/server.go:597 @ v0.3.14; llm/server.go:1360 @ v0.17.6; "
        "llm/llama_server.go:1306 @ v0.32.15",
        r"(?:llama runner|llama-server) process (?:has terminated|no longer running)",
        ("process has terminated", "process no longer running"),
        facts=("the runner died while loading (its last error line follows)",), causes=("KV_CAPACITY", "CPU_SPILL"),
        examples=[('time=2024-10-17T10:00:00.000Z level=ERROR source=sched.go:455 msg="error loading llama server" '
                   'error="llama runner process has terminated: cudaMalloc failed: out of memory"',
                   _R + "llm/server.go:597 @ v0.3.14"),
                  ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:1270 msg="llama runner process no longer running" '
                   'sys=137 string="signal: killed"', _R + "llm/server.go:1270 @ v0.17.6")],
        expect=[("runner_died.count", 1)],
    ),

    # -- context limits and truncation ------------------------------------------------------
    message(
        "ollama.server.vram_default_context", E, "v0.15.5-v0.32.15",
        "server/routes.go:1769 @ v0.17.6",
        r'vram-based default context"?\s+total_vram="?[^"=]+"?\s+default_num_ctx=\d+', "vram-based default context",
        facts=("default num_ctx chosen from VRAM (4096 / 32768 / 262144)",), causes=("CONTEXT_TRUNCATION", "KV_CAPACITY"),
        examples=[('time=2026-03-01T10:00:00.000Z level=INFO source=routes.go:1769 msg="vram-based default context" '
                   'total_vram="23.6 GiB" default_num_ctx=32768', _R + "server/routes.go:1769 @ v0.17.6")],
        expect=[("vram_default_ctx", 32768)],
    ),
    message(
        "ollama.server.low_vram_mode", E, "v0.11.5-v0.15.4 (replaced by the VRAM-based default context)",
        "server/routes.go:1426 @ v0.11.11; server/routes.go:1638 @ v0.12.11",
        r'entering low vram mode"?\s+"total vram"=', "entering low vram mode",
        facts=("total VRAM under 20 GiB: the smaller default context",), causes=("CONTEXT_TRUNCATION",),
        examples=[('time=2025-09-10T22:02:49.002+02:00 level=INFO source=routes.go:1425 msg="entering low vram mode" '
                   '"total vram"="15.6 GiB" threshold="20.0 GiB"', "https://github.com/ollama/ollama/issues/12243"),
                  ('time=2025-11-01T15:21:35.202-04:00 level=INFO source=routes.go:1618 msg="entering low vram mode" '
                   '"total vram"="0 B" threshold="20.0 GiB"', "https://github.com/ollama/ollama/issues/12903")],
        expect=[("low_vram.count", 1)],
    ),
    message(
        "ollama.llm.context_too_large_for_model", E,
        "v0.1.x-v0.9.2 (`requested context length is greater than model max context length`), v0.9.3-v0.32.15",
        "llm/server.go:51 @ v0.1.32; llm/server.go:167 @ v0.12.11; llm/server.go:114 @ v0.32.15",
        r"requested context (?:size too large for model|length is greater than model max context length)",
        ("requested context size too large", "requested context length is greater"),
        facts=("num_ctx above the model's training context: cut to it",), causes=("CONTEXT_TRUNCATION",),
        examples=[('Jun 29 00:03:19 trixie ollama[3307952]: time=2026-06-29T00:03:19.987Z level=WARN source=server.go:114 '
                   'msg="requested context size too large for model" num_ctx=8192 n_ctx_train=2048',
                   "https://github.com/open-webui/open-webui/issues/26457"),
                  ('time=2026-03-01T10:00:00.000Z level=WARN source=server.go:168 msg="requested context size too large for '
                   'model" num_ctx=262144 n_ctx_train=131072', _R + "llm/server.go:168 @ v0.17.6"),
                  ('time=2024-04-16T10:00:00.000Z level=WARN source=server.go:51 msg="requested context length is greater '
                   'than model max context length" requested=32768 model=8192', _R + "llm/server.go:51 @ v0.1.32")],
        expect=[("ctx_clamped.count", 1)],
    ),
    message(
        "ollama.runner.truncating_input_prompt", E, "v0.3.13-v0.24.0 (Go runners), v0.30.0-v0.32.15 (llm/llama_server.go)",
        "llama/runner/runner.go:121 @ v0.3.14 (`numKeep`); llama/runner/runner.go:129 @ v0.5.7; "
        "runner/llamarunner/runner.go:152, runner/ollamarunner/runner.go:186 @ v0.12.11; llm/llama_server.go:317 @ v0.32.15",
        r'truncating input prompt"?\s+limit=\d+\s+prompt=\d+', "truncating input prompt",
        facts=("context limit (num_ctx)", "prompt tokens", "tokens kept"), causes=("CONTEXT_TRUNCATION",),
        examples=[('time=2025-03-01T17:27:56.756-08:00 level=WARN source=runner.go:130 msg="truncating input prompt" '
                   'limit=2048 prompt=91541 keep=5 new=2048', "https://github.com/ollama/ollama/issues/9452"),
                  ('Jun 10 21:22:18 ollama-host ollama[159]: time=2025-06-10T21:22:18.314Z level=WARN source=runner.go:128 '
                   'msg="truncating input prompt" limit=512 prompt=617 keep=4 new=512',
                   "tests/fixtures/ollama/log_truncation_long_request.log"),
                  ('time=2024-10-17T10:00:00.000Z level=WARN source=runner.go:121 msg="truncating input prompt" limit=2048 '
                   'prompt=91541 numKeep=5', _R + "llama/runner/runner.go:121 @ v0.3.14")],
        expect=[("truncations.count", 1), ("truncation_max_prompt", True)],
    ),
    message(
        "ollama.server.truncating_messages", E, "v0.1.3x-v0.24.0 (DEBUG; `truncating native chat messages` at v0.32.15)",
        "server/prompt.go:51 @ v0.3.14; server/prompt.go:62 @ v0.9.6; server/routes.go:3087 @ v0.32.15",
        r"truncating (?:input|native chat) messages", "truncating input messages",
        facts=("chat history dropped to fit num_ctx",), causes=("CONTEXT_TRUNCATION",),
        examples=[('time=2025-06-25T15:47:25.990+08:00 level=DEBUG source=prompt.go:62 msg="truncating input messages which '
                   'exceed context length" truncated=2', "tests/fixtures/ollama/log_debug_history_truncation.log")],
        expect=[("history_truncations.count", 1)],
    ),
    message(
        "ollama.runner.context_shift", E, "v0.3.13-v0.24.0 (DEBUG; Go runners)",
        "llama/runner/runner.go:267 @ v0.3.14; runner/ollamarunner/cache.go:240 @ v0.9.6",
        r"context limit hit - shifting", "context limit hit",
        facts=("the generation reached num_ctx: older tokens discarded",), causes=("CONTEXT_TRUNCATION",),
        examples=[('time=2025-06-25T15:47:26.313+08:00 level=DEBUG source=cache.go:240 msg="context limit hit - shifting" id=0 '
                   'limit=50 input=50 keep=4 discard=23', "tests/fixtures/ollama/log_debug_history_truncation.log")],
        expect=[("cpp.shift_count", 1)],
    ),
    message(
        "ollama.runner.input_too_long", E,
        "v0.12.x-v0.24.0 (`the input length exceeds the context length`); v0.30.0-v0.32.15 (`the prompt is longer ...`)",
        "runner/llamarunner/runner.go:120, runner/ollamarunner/runner.go:129 @ v0.12.11; llm/llama_server.go:298 @ v0.32.15",
        r"the input length exceeds the context length|the prompt is longer than the context length",
        ("input length exceeds the context length", "prompt is longer than the context length"),
        facts=("a prompt over num_ctx refused (truncate=false)",), causes=("CONTEXT_TRUNCATION",),
        examples=[('{"error":"the input length exceeds the context length"}',
                   _R + "runner/ollamarunner/runner.go:129 @ v0.12.11"),
                  ('{"error":"the prompt is longer than the context length currently available to the model; shorten the '
                   'prompt, adjust the context length in settings, or use a model with a larger context window"}',
                   _R + "llm/llama_server.go:298 @ v0.32.15")],
        expect=[("context_errors.count", 1)],
    ),

    # -- GPU discovery ----------------------------------------------------------------------
    message(
        "ollama.discover.inference_compute", E, "v0.3.x-v0.32.15",
        "discover/types.go:123 @ v0.3.14; discover/types.go:42, :60 @ v0.12.11; discover/types.go:32, :50 @ v0.32.15",
        r'msg="inference compute"\s+id=\S+', "inference compute",
        facts=("each compute device found (library, name, total and free memory)",), causes=("CPU_SPILL",),
        examples=[('time=2025-02-09T21:59:37.882Z level=INFO source=types.go:130 msg="inference compute" '
                   'id=GPU-6c0b6f95-4b1d-5897-6fba-93f9d27eaa47 library=cuda variant=v12 compute=6.1 driver=12.4 '
                   'name="NVIDIA GeForce GTX 1050 Ti" total="3.9 GiB" available="3.9 GiB"',
                   "tests/fixtures/ollama/log_inventory_cuda.log"),
                  ('time=2026-06-30T15:57:39.302+08:00 level=INFO source=types.go:50 msg="inference compute" id=cpu library=cpu '
                   'compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type="" total="15.8 GiB" '
                   'available="6.1 GiB"', "tests/fixtures/ollama/log_inventory_cpu_only.log")],
        expect=[("startups", True)],
    ),
    message(
        "ollama.discover.no_compatible_gpus", E, "v0.1.3x-v0.11.11 (gone at v0.12.11)",
        "discover/gpu.go:384 @ v0.3.14; discover/gpu.go:392 @ v0.5.7",
        r"no compatible GPUs were discovered", "no compatible gpus were discovered",
        facts=("no GPU usable: the CPU runs the model",), causes=("CPU_SPILL",),
        examples=[('time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"',
                   "tests/fixtures/containers/logs_ollama_no_compatible_gpus.txt")],
        expect=[("no_gpu.count", 1)],
    ),
    message(
        "ollama.gpu.no_nvidia_devices", E, "v0.1.3x-v0.11.x",
        "discover/gpu.go:605 @ v0.3.14 (`no nvidia devices detected by library %s`)",
        r"no nvidia devices detected", "no nvidia devices detected",
        facts=("the CUDA library found no device",), causes=("CPU_SPILL",),
        examples=[('time=2024-09-17T15:04:08.215Z level=INFO source=gpu.go:560 msg="no nvidia devices detected" '
                   'library=/usr/lib/x86_64-linux-gnu/libcuda.so.550.107.02',
                   "tests/fixtures/containers/logs_ollama_no_nvidia_devices.txt")],
        expect=[("no_gpu.count", 1)],
    ),
    message(
        "ollama.gpu.cuda_init_failure", E, "v0.1.2x-v0.11.x (cudart), v0.1.4x-v0.11.x (nvcuda)",
        "gpu/gpu_info_cudart.c:69 @ v0.1.32; discover/gpu_info_cudart.c:65, discover/gpu_info_nvcuda.c:67 @ v0.3.14",
        r"(?:cudart|cuda driver library) init failure: \d+", "init failure:",
        facts=("the CUDA runtime/driver failed to start (999: the driver lost the GPU, e.g. after suspend)",),
        causes=("CPU_SPILL",),
        examples=[('time=2024-09-05T09:20:35.624+08:00 level=DEBUG source=gpu.go:533 msg="Unable to load cudart" '
                   'library=/tmp/ollama786265597/runners/cuda_v11/libcudart.so.11.0 error="cudart init failure: 999"',
                   "tests/fixtures/ollama/log_gpu_init_999.log"),
                  ('time=2024-10-17T10:00:00.000Z level=WARN source=gpu.go:607 msg="unknown error initializing cuda driver '
                   'library /usr/lib64/libcuda.so.1: cuda driver library init failure: 999. see '
                   'https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"',
                   _R + "discover/gpu.go:607 @ v0.3.14")],
        expect=[("gpu_init_failures.count", 1)],
    ),
    message(
        "ollama.gpu.driver_mismatch", E, "v0.3.x-v0.11.x",
        "discover/gpu.go:601 @ v0.3.14 (CUDA_ERROR_INSUFFICIENT_DRIVER, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)",
        r"version mismatch between driver and cuda driver library", "version mismatch between driver",
        facts=("the loaded NVIDIA kernel driver and its user library differ (an upgrade without reboot): CPU",),
        causes=("CPU_SPILL",),
        examples=[('time=2024-10-17T10:00:00.000Z level=WARN source=gpu.go:602 msg="version mismatch between driver and cuda '
                   'driver library - reboot or upgrade may be required: library /usr/lib/x86_64-linux-gnu/libcuda.so.560.35.03"',
                   _R + "discover/gpu.go:601 @ v0.3.14")],
        expect=[("gpu_rejected.count", 1)],
    ),
    message(
        "ollama.gpu.cuda_too_old", E, "v0.1.2x-v0.9.6",
        "gpu/gpu.go:186, :206 @ v0.1.32; discover/gpu.go:312 @ v0.3.14; discover/gpu.go:303 @ v0.9.6",
        r"CUDA GPU is too old\. (?:Falling back to CPU mode\. )?Compute Capability detected", "cuda gpu is too old",
        facts=("the GPU's compute capability is below what the build supports: CPU",), causes=("CPU_SPILL",),
        examples=[('time=2024-10-17T10:00:00.000Z level=INFO source=gpu.go:312 msg="[0] CUDA GPU is too old. Compute '
                   'Capability detected: 3.0"', _R + "discover/gpu.go:312 @ v0.3.14")],
        expect=[("gpu_rejected.count", 1)],
    ),
    message(
        "ollama.discover.amdgpu_unsupported", E,
        "v0.1.2x-v0.1.3x (`amdgpu [N] gfxX is not supported by DIR`), v0.2.x-v0.3.4 (`amdgpu is not supported` "
        "supported_types=), v0.3.5-v0.11.x (`amdgpu is not supported (supported types:[...])`)",
        "gpu/amd_linux.go:84, :116 @ v0.1.32; gpu/amd_linux.go:340, gpu/amd_windows.go:97 @ v0.3.4; "
        "discover/amd_linux.go:305, :372 @ v0.3.14",
        r"amdgpu (?:\[\d+\] )?(?:too old|\S+ is not supported|is not supported)",
        ("amdgpu too old", "amdgpu [", "amdgpu is not supported"),
        facts=("an AMD GPU the ROCm library does not support: CPU",), causes=("CPU_SPILL",),
        examples=[('time=2025-07-29T13:31:47.016+02:00 level=WARN source=amd_windows.go:138 msg="amdgpu is not supported '
                   '(supported types:[])" gpu_type=gfx1100 gpu=0 library=C:\\Users\\krdb\\AppData\\Local\\Programs\\Ollama\\lib\\'
                   'ollama\\rocm', "https://github.com/ByronLeeeee/Ollama-For-AMD-Installer/issues/12"),
                  ('time=2024-08-09T00:25:59.172+08:00 level=WARN source=amd_windows.go:97 msg="amdgpu is not supported" gpu=0 '
                   'gpu_type=gfx1031 library=C:\\Users\\Administrator\\AppData\\Local\\Programs\\Ollama\\rocm '
                   'supported_types=[gfx1103]', "https://github.com/likelovewant/ollama-for-amd/issues/14"),
                  ('time=2024-04-16T10:00:00.000Z level=WARN source=amd_linux.go:116 msg="amdgpu [0] gfx1031 is not supported '
                   'by /tmp/ollama123/rocm [gfx1030 gfx1100]"', _R + "gpu/amd_linux.go:116 @ v0.1.32")],
        expect=[("gpu_rejected.count", 1)],
    ),
    message(
        "ollama.discover.no_rocm_library", E, "v0.1.2x-v0.9.6",
        "gpu/amd_linux.go:367 @ v0.1.32; discover/amd_linux.go:440, discover/amd_windows.go:174 @ v0.3.14",
        r"amdgpu detected, but no compatible rocm library found", "no compatible rocm library found",
        facts=("an AMD GPU but no ROCm runner: CPU",), causes=("CPU_SPILL",),
        examples=[('time=2024-10-17T10:00:00.000Z level=WARN source=amd_windows.go:174 msg="amdgpu detected, but no compatible '
                   'rocm library found.  Please install ROCm"', _R + "discover/amd_windows.go:174 @ v0.3.14")],
        expect=[("gpu_rejected.count", 1)],
    ),
    message(
        "ollama.discover.nvidia_driver_too_old", E, "v0.30.0-v0.32.15",
        "discover/cuda_compat.go:65, :70 @ v0.32.15",
        r'msg="NVIDIA driver too old"', "nvidia driver too old",
        facts=("the NVIDIA driver is older than the bundled CUDA needs: CPU",), causes=("CPU_SPILL",),
        examples=[('time=2026-08-01T07:00:00.000Z level=WARN source=cuda_compat.go:65 msg="NVIDIA driver too old" '
                   'device="NVIDIA GeForce RTX 3090" compute=8.6 driver=535 required_driver="550 or newer"',
                   _R + "discover/cuda_compat.go:65 @ v0.32.15")],
        expect=[("gpu_rejected.count", 1)],
    ),
    message(
        "ollama.discover.discovery_failed", E, "v0.12.x-v0.24.0; v0.30.0-v0.32.15 (`llama-server GPU discovery`)",
        "discover/runner.go:445 @ v0.12.11; discover/runner.go:462 @ v0.24.0; discover/runner.go:522 @ v0.32.15",
        r"failure during (?:llama-server )?GPU discovery", "gpu discovery",
        facts=("a GPU library failed its discovery run: its devices are not used",), causes=("CPU_SPILL",),
        examples=[('time=2025-12-03T03:17:28.308Z level=INFO source=runner.go:463 msg="failure during GPU discovery" '
                   'OLLAMA_LIBRARY_PATH="[/usr/lib/ollama /usr/lib/ollama/cuda_v12]" extra_envs=map[GGML_CUDA_INIT:1] '
                   'error="failed to finish discovery before timeout"', "https://github.com/ollama/ollama/issues/13308")],
        expect=[("no_gpu.count", 1)],
    ),
    message(
        "ollama.discover.rocm_no_devices", E, "v0.1.2x-v0.9.6 (Windows HIP)",
        "gpu/amd_hip_windows.go:97, :101 @ v0.1.32; discover/amd_hip_windows.go:103, :107 @ v0.3.14",
        r"AMD ROCm reports no devices found|failed call to hipGetDeviceCount",
        ("amd rocm reports no devices found", "failed call to hipgetdevicecount"),
        facts=("the HIP runtime found no AMD device, or failed",), causes=("CPU_SPILL",),
        examples=[('time=2024-10-17T10:00:00.000Z level=INFO source=amd_hip_windows.go:103 msg="AMD ROCm reports no devices '
                   'found"', _R + "discover/amd_hip_windows.go:103 @ v0.3.14"),
                  ('time=2024-10-17T10:00:00.000Z level=WARN source=amd_hip_windows.go:107 msg="failed call to '
                   'hipGetDeviceCount" status=100 error="no ROCm-capable device is detected"',
                   _R + "discover/amd_hip_windows.go:107 @ v0.3.14")],
        expect=[("no_gpu.count", 1)],
    ),
    message(
        "ollama.discover.native_probe_failed", E, "v0.30.0-v0.32.15 (the error inside the discovery failure line)",
        "discover/native_probe_linux.go:286, :304; discover/native_probe_windows.go:176, :194, :268 @ v0.32.15",
        r"(?:cuInit|cuDeviceGetCount|hipGetDeviceCount) failed: -?\d+",
        ("cuinit failed", "cudevicegetcount failed", "hipgetdevicecount failed"),
        facts=("the CUDA/HIP driver call that failed, with its code (999: the driver lost the GPU)",), causes=("CPU_SPILL",),
        examples=[('time=2026-08-01T07:00:00.000Z level=INFO source=runner.go:522 msg="failure during llama-server GPU '
                   'discovery" OLLAMA_LIBRARY_PATH="[/usr/lib/ollama /usr/lib/ollama/cuda_v12]" extra_envs=map[] '
                   'error="cuInit failed: 999" detail=""', _R + "discover/native_probe_linux.go:286 @ v0.32.15")],
        expect=[("gpu_init_failures.count", 1)],
    ),
    message(
        "ollama.discover.vulkan_disabled", E, "v0.12.x-v0.24.0",
        "discover/runner.go:98 @ v0.12.11; discover/runner.go:106 @ v0.24.0",
        r"experimental Vulkan support disabled\.\s+To enable, set OLLAMA_VULKAN=1", "experimental vulkan support disabled",
        facts=("Ollama's Vulkan runner is off unless OLLAMA_VULKAN=1 (a GPU only Vulkan drives stays unused)",),
        causes=("CPU_SPILL", "CONFIG_NOT_APPLIED"),
        examples=[('time=2025-11-13T10:00:00.000Z level=INFO source=runner.go:98 msg="experimental Vulkan support disabled.  '
                   'To enable, set OLLAMA_VULKAN=1"', _R + "discover/runner.go:98 @ v0.12.11")],
        expect=[("vulkan_off.count", 1)],
    ),
    message(
        "ollama.payload.dynamic_libraries", E, "v0.1.2x-v0.5.x (`Dynamic LLM libraries [..]` to v0.3.x, `runners=` after)",
        "llm/payload.go:41 @ v0.1.32; runners/common.go:49 @ v0.3.14; server/routes.go:1267 @ v0.5.7",
        r'Dynamic LLM libraries(?:"?\s+runners="?)?\s*\[', "dynamic llm libraries",
        facts=("the runner builds shipped (no cuda_*/rocm_*: no GPU runner)",), causes=("CPU_SPILL",),
        examples=[('time=2024-09-17T15:04:08.212Z level=INFO source=payload.go:44 msg="Dynamic LLM libraries [cpu cpu_avx '
                   'cpu_avx2 cuda_v11 cuda_v12 rocm_v60102]"', "tests/fixtures/containers/logs_ollama_no_nvidia_devices.txt"),
                  ('time=2025-01-16T10:00:00.000Z level=INFO source=routes.go:1267 msg="Dynamic LLM libraries" '
                   'runners="[cpu cpu_avx cpu_avx2 cuda_v11 cuda_v12 rocm_avx]"', _R + "server/routes.go:1267 @ v0.5.7")],
        expect=[("runner_libraries", True)],
    ),
    message(
        "ollama.llm.compatible_gpu_libraries", E, "v0.5.x-v0.9.6 (DEBUG; gone at v0.12.11)",
        "llm/server.go:291 @ v0.9.6",
        r'compatible gpu libraries"?\s+compatible=\[', "compatible gpu libraries",
        facts=("GPU runner libraries found (empty: none installed)",), causes=("CPU_SPILL",),
        examples=[('time=2025-03-18T11:15:57.784+09:00 level=DEBUG source=server.go:259 msg="compatible gpu libraries" '
                   'compatible=[]', "tests/fixtures/realcases/case144_ollama_offline_install_no_runners_compatible_empty/journal.log")],
        expect=[("gpu_libraries_empty.count", 1)],
    ),
    message(
        "ollama.ggml.system_info", E, "v0.6.x-v0.24.0 (the runner's `msg=system` line)",
        "ml/backend/ggml/ggml/src/ggml.go:103 @ v0.6.8; ml/backend/ggml/ggml/src/ggml.go:104 @ v0.24.0",
        r"msg=system\s+\S+=", "msg=system",
        facts=("the backends the runner loaded (CPU only: no GPU backend)",), causes=("CPU_SPILL",),
        examples=[('time=2025-05-21T17:49:23.905+08:00 level=INFO source=ggml.go:104 msg=system CPU.0.LLAMAFILE=1 '
                   'compiler=cgo(gcc)', "tests/fixtures/realcases/case134_ollama_mixed_install_no_backends_cpu_only/journal.log"),
                  ('time=2025-08-20T11:52:12.286+02:00 level=INFO source=ggml.go:104 msg=system CPU.0.SSE3=1 CPU.0.SSSE3=1 '
                   'CPU.0.AVX=1 CPU.0.AVX2=1 CPU.0.F16C=1 CPU.0.FMA=1 CPU.0.BMI2=1 CPU.0.LLAMAFILE=1 CPU.1.LLAMAFILE=1 '
                   'CUDA.0.ARCHS=500,600,610,700,750,800,860,870,890,900,1200 CUDA.0.USE_GRAPHS=1 '
                   'CUDA.0.PEER_MAX_BATCH_SIZE=128 compiler=cgo(gcc)', "https://github.com/ollama/ollama/issues/11983")],
        expect=[("runner_backends", True)],
    ),
    # -- the CLI's own output (pasted next to the logs, or alone) ---------------------------
    message(
        "ollama.cmd.ps_processor", E, "v0.1.38-v0.32.15 (`ollama ps`; CONTEXT column from v0.10)",
        "cmd/cmd.go:538 @ v0.1.38; cmd/cmd.go:576 @ v0.9.6; cmd/cmd.go:1150 @ v0.32.15",
        r"\b\d+%/\d+%\s+CPU/GPU\b", "cpu/gpu",
        facts=("a loaded model split between system memory and the GPU (PROCESSOR column; read by knowledge/ollama/ps.py)",),
        causes=("CPU_SPILL",),
        examples=[("0.7.0: gemma3:27b-it-qat    29eb0b9aeda3    25 GB    11%/89% CPU/GPU    4 minutes from now",
                   "https://github.com/ollama/ollama/issues/10746"),
                  ("     33%/67%   CPU/GPU", "https://github.com/ollama/ollama/issues/10357")],
        note="`ollama ps` output, not a log line: it names Ollama in a paste that holds nothing else",
    ),
    message(
        "ollama.cmd.verbose_eval_rate", E, "v0.1.20-v0.32.15 (`ollama run --verbose`, printed after each answer)",
        "api/types.go:255 @ v0.1.20; api/types.go:553 @ v0.9.6; api/types.go:987 @ v0.32.15",
        r"\b(?:prompt )?eval rate:\s+\**[\d.]+ tokens/s", "eval rate:",
        facts=("tokens per second of one answer, prompt and generation apart (a drop after an upgrade or a "
               "load: compare with `ollama ps`'s PROCESSOR)",),
        causes=("CPU_SPILL", "PREFILL"),
        examples=[("eval rate:            **13.08 tokens/s**", "https://github.com/ollama/ollama/issues/10746"),
                  ("eval rate:            36.02 tokens/s", _R + "api/types.go:553 @ v0.9.6")],
        note="`ollama run --verbose` output, not a log line: it names Ollama in a paste that holds nothing else",
    ),
    message(
        "ollama.api.answer_metrics", E, "v0.1.0-v0.33.0-rc2 (every /api/generate, /api/chat and /api/embed answer)",
        "api/types.go:106-108 @ v0.1.32 (Metrics); api/types.go:198-200 @ v0.3.14; api/types.go:364-366 @ v0.12.0; "
        "api/types.go:558-560 @ v0.33.0-rc2",
        r'"prompt_eval_(?:count|duration)"\s*:\s*\d+', ("prompt_eval_count", "prompt_eval_duration"),
        facts=("an answer's prompt tokens and the time to evaluate them, its load wait and total (read by "
               "knowledge/ollama/response.py: the prompt rate, a cut prompt, a reload)",),
        causes=("PREFILL", "CONTEXT_TRUNCATION", "MODEL_UNLOAD"),
        examples=[('{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":9987503333,'
                   '"load_duration":28999667,"prompt_eval_count":1026,"prompt_eval_duration":1896469000,"eval_count":238,'
                   '"eval_duration":8059779000}', "https://github.com/ollama/ollama/issues/6026"),
                  ('{"model":"gemma2:9b-instruct-q4_0","created_at":"2024-07-22T10:06:43.685128983Z","response":"",'
                   '"done":true,"done_reason":"stop","total_duration":3305842756,"load_duration":23975557,'
                   '"prompt_eval_count":18,"prompt_eval_duration":25726000,"eval_count":192,"eval_duration":3209729000}',
                   "https://github.com/ollama/ollama/issues/5843")],
        expect=[("answer_count", 1), ("answers", True)],
        note="an API answer, not a log line: pasted from a client, kept as http_response.txt or a *.json file",
    ),
    message(
        "ollama.cmd.verbose_summary", E, "v0.1.0-v0.33.0-rc2 (`ollama run --verbose`, after each answer)",
        "api/types.go:284-292 @ v0.1.32 (Metrics.Summary); api/types.go:695-703 @ v0.12.0; "
        "api/types.go:965-973 @ v0.33.0-rc2",
        r"\b(?:prompt eval|total|load) (?:count|duration):[ \t]+\**\d", ("prompt eval ", "total duration:", "load duration:"),
        facts=("one answer's durations and token counts as text (knowledge/ollama/response.py reads the block)",),
        causes=("PREFILL", "MODEL_UNLOAD"),
        examples=[("prompt eval duration: 19.747s", "https://github.com/taketwo/llm-ollama/issues/32"),
                  ("total duration:       5.088275983s", "https://github.com/ollama/ollama/issues/1806")],
        note="`ollama run --verbose` output, not a log line: a block of eight lines, one figure a line",
    ),
    message(
        "ollama.cmd.show_parameters", E, "v0.1.20-v0.32.15 (`/show parameters` in `ollama run`)",
        "cmd/interactive.go:348 @ v0.1.20; cmd/interactive.go:398 @ v0.9.6; cmd/interactive.go:438 @ v0.32.15",
        r"^\s*Model defined parameters:\s*$", "model defined parameters:",
        facts=("the model's own parameters (a Modelfile num_ctx beats OLLAMA_CONTEXT_LENGTH; read by "
               "knowledge/ollama/show.py)",),
        causes=("CONFIG_NOT_APPLIED",),
        examples=[("Model defined parameters:", "https://github.com/ollama/ollama/issues/10829")],
        note="`ollama run` output, not a log line: it names Ollama in a paste that holds nothing else",
    ),
)


def summarize(lines):
    from llmdoctor.knowledge.ollama.log import scan

    return scan(lines)
