"""llama.cpp's messages that carry a fact a cause needs, from llama.cpp's own source
(ggerganov/llama.cpp to b4747, and the b-tags after it as carried by the ochafik/llama.cpp
fork; the tags named are the ones read). Two engines share this table:

- "llama.cpp": what the library, ggml's backends and the argument parser print (loader,
  context, KV cache, devices). llama-server prints these, and so does Ollama's runner (its
  embedded server before 0.30, a llama-server child from 0.30), so a one-line paste of them
  names either engine;
- "llamacpp": llama-server's own lines, in each of its layouts: printf (to ~b2258), the
  2024 `LOG_INFO("msg", {k: v})` lines as JSON or as `INFO [ func] msg | k=v` text
  (b2259-b3760), and `slot func: id N | task M | ...` / `srv  func: ...` (b3761-).

Versions are build tags; "≤b1500" means the first tag read already prints it, "≥b9821"
the last one still does. Line numbers move in every build, the format string is what is
matched. The table format: knowledge/messages.py.
"""
from __future__ import annotations

from llmdoctor.knowledge.messages import message

E = "llamacpp"
L = "llama.cpp"  # the shared library lines (engine name of knowledge/messages.FAMILY)

R = "rendered from "
I4185 = "https://github.com/ggml-org/llama.cpp/issues/4185"
I9390 = "https://github.com/ggml-org/llama.cpp/issues/9390"
I9716 = "https://github.com/ggml-org/llama.cpp/issues/9716"
I14363 = "https://github.com/ggml-org/llama.cpp/pull/14363"
I17450 = "https://github.com/ggml-org/llama.cpp/issues/17450"
I21831 = "https://github.com/ggml-org/llama.cpp/issues/21831"
I22748 = "https://github.com/ggml-org/llama.cpp/issues/22748"
I29090 = "https://github.com/ggml-org/llama.cpp/issues/29090"
IK1619 = "https://github.com/ikawrakow/ik_llama.cpp/issues/1619"  # a fork, printing upstream's 2024 format strings
LF552 = "https://github.com/mozilla-ai/llamafile/pull/552"  # llamafile, printing the llama.cpp it vendors
SLOT_SPLIT = "tests/fixtures/evidence/llamacpp-slot-split/server.log"
PREFILL = "tests/fixtures/evidence/llamacpp-prefill/server.log"
# the whole line as posted (tests/fixtures/llamacpp/launch_slot_21760.log): the slot as JSON
LAUNCH_21760 = ('slot launch_slot_: id  0 | task -1 | launching slot : {"id":0,"n_ctx":39936,"speculative":false,"is_'
                 'processing":false,"id_task":0,"params":{"seed":4294967295,"temperature":0.75,"dynatemp_range":0.0,"d'
                 'ynatemp_exponent":1.0,"top_k":64,"top_p":0.9900000095367432,"min_p":0.05000000074505806,"top_n_sigma'
                 '":-1.0,"xtc_probability":0.0,"xtc_threshold":0.10000000149011612,"typical_p":1.0,"repeat_last_n":64,'
                 '"repeat_penalty":1.0,"presence_penalty":0.0,"frequency_penalty":0.0,"dry_multiplier":0.0,"dry_base":'
                 '1.75,"dry_allowed_length":2,"dry_penalty_last_n":39936,"dry_sequen')

MESSAGES = (
    # --- the library: offload, model buffers --------------------------------------------------
    message(
        "llama.cpp.load.offloaded_layers", L, "≤b1500-≥b9821",
        "llama.cpp:3113 @ b1500; llama.cpp:5844 @ b2700; src/llama.cpp:9190 @ b4000; src/llama-model.cpp:3527 @ b4739; "
        "src/llama-model.cpp:1593 @ b9821",
        r"offloaded\s+\d+/\d+\s+layers to GPU", "layers to gpu",
        facts=("layers on the GPU", "layers in the model"), causes=("CPU_SPILL",),
        examples=[("llm_load_tensors: offloaded 0/37 layers to GPU", I9716),
                  ("load_tensors: offloaded 0/29 layers to GPU", "https://github.com/ggml-org/llama.cpp/issues/12614")],
        expect=[("cpp.offloaded", True)],
        note="`llm_load_tensors:` to ~b4400, `load_tensors:` after (the prefix is __func__)",
    ),
    message(
        "llama.cpp.load.host_buffer", L, "≤b2700-≥b9821",
        "llama.cpp:5849 @ b2700 (`%10s buffer size`); src/llama.cpp:9195 @ b4000 and src/llama-model.cpp:3532 @ b4739 "
        "(`%12s model buffer size`)",
        r"\b(?:CPU(?:_\w+)?|\w+_Host|BLAS)\s+(?:model\s+)?buffer size\s*=\s*[\d.]+\s*MiB", "buffer size",
        facts=("model weights in host memory (MiB)",), causes=("CPU_SPILL",),
        examples=[("llm_load_tensors:        CPU buffer size =  3442.89 MiB", I9716),
                  ("load_tensors:   CPU_Mapped model buffer size = 14526.27 MiB",
                   "https://github.com/ggml-org/llama.cpp/issues/12614")],
        expect=[("cpp.host_buffer_mib", True)],
    ),
    message(
        "llama.cpp.load.gpu_buffer", L, "≤b2700-≥b9821",
        "llama.cpp:5849 @ b2700; src/llama.cpp:9195 @ b4000; src/llama-model.cpp:3532 @ b4739",
        r"\b(?:CUDA|ROCm|Vulkan|Metal|MTL|SYCL|MUSA|CANN)\d*\s+(?:model\s+)?buffer size\s*=\s*[\d.]+\s*MiB", "buffer size",
        facts=("model weights in GPU memory (MiB)",), causes=("CPU_SPILL",),
        examples=[("llm_load_tensors:      CUDA0 buffer size =  7317.71 MiB", LF552),
                  ("llm_load_tensors: CUDA0 model buffer size = 3627.97 MiB",
                   "tests/fixtures/ollama/log_llm_load_tensors_host.log")],
        expect=[("cpp.gpu_buffer_mib", True)],
    ),
    # --- ggml backends and devices ----------------------------------------------------------
    message(
        "llama.cpp.backend.loaded", L, "b4400-≥b9821 (not at b4000)",
        "ggml/src/ggml-backend-reg.cpp:258 @ b4739; ggml/src/ggml-backend-reg.cpp:252 @ b9821",
        r"load_backend: loaded \S+ backend from \S+", "load_backend: loaded",
        facts=("backend library loaded (CUDA, Vulkan, CPU...)",), causes=("CPU_SPILL",),
        examples=[("load_backend: loaded Vulkan backend from /app/libggml-vulkan.so",
                   "https://github.com/ggml-org/llama.cpp/issues/17761"),
                  ("load_backend: loaded CUDA backend from C:\\Apps\\llamacpp\\ggml-cuda.dll", I22748)],
        expect=[("cpp.backends", True)],
    ),
    message(
        "llama.cpp.backend.vulkan_no_devices", L, "≤b2700-≥b9821",
        "ggml-vulkan.cpp:1424 @ b2700 and ggml/src/ggml-vulkan/ggml-vulkan.cpp:2940 @ b4739 (`Error: No devices found.`, "
        "std::cerr); ggml/src/ggml-vulkan/ggml-vulkan.cpp:4668 @ b6710, :6825 @ b9821 (`No devices found.`)",
        r"ggml_vulkan: (?:Error: )?No devices found", "ggml_vulkan:",
        facts=("the Vulkan backend found no device",), causes=("CPU_SPILL",),
        examples=[("ggml_vulkan: No devices found.", "https://github.com/ggml-org/llama.cpp/issues/17761")],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.backend.vulkan_found", L, "≤b2700-≥b9821",
        "ggml-vulkan.cpp:1443 @ b2700; ggml/src/ggml-vulkan/ggml-vulkan.cpp:3028 @ b4739 (debug level from here), "
        ":6944 @ b9821",
        r"ggml_vulkan: Found \d+ Vulkan devices", "ggml_vulkan:",
        facts=("Vulkan devices found",), causes=("CPU_SPILL",),
        examples=[("ggml_vulkan: Found 1 Vulkan devices:", I9716)],
        expect=[("cpp.devices_found", True)],
    ),
    message(
        "llama.cpp.backend.cuda_found", L, "≤b1500-≥b9821",
        "ggml-cuda.cu:5829 @ b1500; ggml/src/ggml-cuda.cu:181 @ b3600; ggml/src/ggml-cuda/ggml-cuda.cu:219 @ b4739; "
        "ggml/src/ggml-cuda/ggml-cuda.cu:222 @ b9821 (adds `(Total VRAM: N MiB)`)",
        r"ggml_cuda_init: found \d+ \w+ devices", "ggml_cuda_init: found",
        facts=("CUDA/ROCm/MUSA devices found",), causes=("CPU_SPILL",),
        examples=[("ggml_cuda_init: found 1 CUDA devices (Total VRAM: 8150 MiB):", I22748),
                  ("ggml_cuda_init: found 1 CUDA devices:", LF552)],
        expect=[("cpp.devices_found", True)],
    ),
    message(
        "llama.cpp.backend.cuda_init_failed", L, "≤b2700-≥b9821",
        "ggml-cuda.cu:94 @ b2700; ggml/src/ggml-cuda/ggml-cuda.cu:202 @ b4739; ggml/src/ggml-cuda/ggml-cuda.cu:210 @ b9821",
        r"ggml_cuda_init: failed to initialize \w+: ", "ggml_cuda_init: failed",
        facts=("the CUDA/ROCm backend could not start, and why",), causes=("CPU_SPILL",),
        examples=[("ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected",
                   "https://github.com/ollama/ollama/issues/10421"),
                  ("ggml_cuda_init: failed to initialize CUDA: system has unsupported display driver / cuda driver "
                   "combination", "https://github.com/ggml-org/llama.cpp/issues/17542")],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.backend.cublas_no_devices", L, "b2400 (read there; gone by b2700)",
        "ggml-cuda.cu:8032 @ b2400",
        r"no (?:CUDA|ROCm|MUSA) devices found, \w+ will be disabled", "devices found,",
        facts=("the CUDA backend found no device",), causes=("CPU_SPILL",),
        examples=[("ggml_init_cublas: no CUDA devices found, CUDA will be disabled",
                   "https://github.com/ggml-org/llama.cpp/issues/6184")],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.args.no_usable_gpu", L, "b4400-≥b9821 (not at b4000)",
        "common/arg.cpp:1624 @ b4739; common/arg.cpp:1963 @ b7274; common/arg.cpp:2491 @ b9821",
        r"no usable GPU found, --gpu-layers(?:-draft)? option will be ignored", "no usable gpu found",
        facts=("--n-gpu-layers given, no GPU to put layers on",), causes=("CPU_SPILL",),
        examples=[("warning: no usable GPU found, --gpu-layers option will be ignored", I22748)],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.args.not_compiled_gpu", L, "≤b2700-b4000 (gone by b4400)",
        "common/common.cpp:918 @ b2700 (`--n-gpu-layers`); common/common.cpp:849 @ b3600 (`--gpu-layers`)",
        r"not compiled with GPU offload support, --(?:n-)?gpu-layers(?:-draft)? option will be ignored",
        "not compiled with gpu offload",
        facts=("a CPU-only build given --n-gpu-layers",), causes=("CPU_SPILL",),
        examples=[("warning: not compiled with GPU offload support, --gpu-layers option will be ignored",
                   "https://github.com/ggml-org/llama.cpp/issues/9153"),
                  ("warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored",
                   R + "common/common.cpp:918 @ b2700")],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.args.compiled_without_gpu", L, "≤b2700-≥b9821",
        "common/common.cpp:942, :970, :998 @ b2700 (`compiled without CUDA/SYCL[/Vulkan]`); common/arg.cpp:1480, :1507, "
        ":1517 @ b4000 and :2024 @ b7274 (`compiled without support for GPU offload`)",
        r"compiled without (?:CUDA|support for GPU offload)\S*\. Setting (?:the main GPU|the split mode|a tensor split) "
        r"has no effect", "compiled without",
        facts=("a CPU-only build given --main-gpu, --split-mode or --tensor-split",), causes=("CPU_SPILL",),
        examples=[("warning: llama.cpp was compiled without support for GPU offload. Setting the main GPU has no effect.",
                   R + "common/arg.cpp:2024 @ b7274"),
                  ("warning: llama.cpp was compiled without CUDA/SYCL/Vulkan. Setting a tensor split has no effect.",
                   R + "common/common.cpp:998 @ b2700")],
        expect=[("cpp.no_device", True)],
    ),
    message(
        "llama.cpp.backend.using_device", L, "b4000-≥b9821",
        "src/llama.cpp:19382 @ b4000; src/llama.cpp:9499 @ b4739; src/llama.cpp:270 @ b6710 (adds the PCI id); "
        "src/llama.cpp:269 @ b9821",
        r"using device (?:CUDA|ROCm|Vulkan|MTL|SYCL|Metal)\d* \(.*\) - \d+ MiB free", "using device",
        facts=("the GPU the model is loaded on, its free memory",), causes=("CPU_SPILL",),
        examples=[("llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4090) (0000:01:00.0) - "
                   "23725 MiB free", R + "src/llama.cpp:269 @ b9821"),
                  ("llama_load_model_from_file: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23306 MiB free",
                   R + "src/llama.cpp:19382 @ b4000")],
        expect=[("cpp.devices_found", True)],
    ),
    message(
        "llama.cpp.backend.metal_device", L, "≤b2700-≥b9821",
        "ggml-metal.m:274 @ b2700; ggml/src/ggml-metal/ggml-metal.m:493 @ b4739; "
        "ggml/src/ggml-metal/ggml-metal-context.m:91 @ b9821",
        r"ggml_metal_init: found device: ", "ggml_metal_init: found device",
        facts=("the Metal device",), causes=("CPU_SPILL",),
        examples=[("ggml_metal_init: found device: Apple M1 Pro", "https://github.com/argilla-io/distilabel/issues/593")],
        expect=[("cpp.devices_found", True)],
    ),
    # --- the context: size, per sequence, unified, training context ---------------------------
    message(
        "llama.cpp.context.n_ctx", L, "≤b1500-≥b9821",
        "llama.cpp:8168 @ b1500; src/llama.cpp:19513 @ b4000 (llama_new_context_with_model); src/llama.cpp:9659 @ b4739 "
        "(llama_init_from_model); src/llama-context.cpp:138 @ b7274, :246 @ b9821 (llama_context)",
        r"(?:llama_context|llama_new_context_with_model|llama_init_from_model):\s+n_ctx\s*=\s*\d+", "n_ctx",
        facts=("the context's total tokens (all slots)",), causes=("CONTEXT_TRUNCATION", "KV_CAPACITY"),
        examples=[("llama_context: n_ctx         = 4096", "https://github.com/ggml-org/llama.cpp/issues/12614"),
                  ("llama_new_context_with_model: n_ctx      = 512", LF552),
                  ("llama_init_from_model: n_ctx         = 8192", R + "src/llama.cpp:9659 @ b4739")],
        expect=[("n_ctx", True)],
    ),
    message(
        "llama.cpp.context.n_ctx_seq", L, "b4739-≥b9821",
        "src/llama.cpp:9660 @ b4739 and src/llama-context.cpp:129 @ b6068 (`n_ctx_per_seq`); src/llama-context.cpp:139 "
        "@ b7274, :247 @ b9821 (`n_ctx_seq`)",
        r"(?:llama_context|llama_new_context_with_model|llama_init_from_model):\s+n_ctx_(?:seq|per_seq)\s*=\s*\d+",
        ("n_ctx_seq", "n_ctx_per_seq"),
        facts=("the context of one sequence (one slot)",), causes=("CONTEXT_TRUNCATION",),
        examples=[("llama_context: n_ctx_seq     = 131072", I17450),
                  ("llama_new_context_with_model: n_ctx_per_seq = 2048",
                   "tests/fixtures/ollama/log_llm_load_tensors_journal.log"),
                  ("llama_init_from_model: n_ctx_per_seq = 4096", R + "src/llama.cpp:9660 @ b4739")],
        expect=[("n_ctx_seq", True)],
    ),
    message(
        "llama.cpp.context.n_seq_max", L, "b4739-≥b9821",
        "src/llama.cpp:9658 @ b4739; src/llama-context.cpp:127 @ b6068; src/llama-context.cpp:245 @ b9821",
        r"n_seq_max\s*=\s*\d+", "n_seq_max",
        facts=("sequences (slots) the context holds",), causes=("KV_CAPACITY",),
        examples=[("llama_context: n_seq_max     = 4", I17450)],
        expect=[("n_seq_max", 4)],
    ),
    message(
        "llama.cpp.context.kv_unified", L, "b6068-≥b9821 (not at b5546)",
        "src/llama-context.cpp:144 @ b7274; src/llama-context.cpp:252 @ b9821",
        r"kv_unified\s*=\s*'?(?:true|false)", "kv_unified",
        facts=("one KV pool shared by every slot",), causes=("KV_CAPACITY",),
        examples=[("llama_context: kv_unified    = true", I17450)],
        expect=[("kv_unified", True)],
    ),
    message(
        "llama.cpp.context.seq_below_train", L, "b4739-≥b9821",
        "src/llama.cpp:9668 @ b4739 and src/llama-context.cpp:139 @ b6068 (`n_ctx_per_seq`); src/llama-context.cpp:149 "
        "@ b7274, :259 @ b9821 (`n_ctx_seq`)",
        r"n_ctx_(?:seq|per_seq) \(\d+\) < n_ctx_train \(\d+\)", "n_ctx_train",
        facts=("per-sequence context", "the model's training context"), causes=("CONTEXT_TRUNCATION",),
        examples=[("llama_context: n_ctx_per_seq (2048) < n_ctx_train (32768) -- the full capacity of the model will "
                   "not be utilized", I14363),
                  ("llama_context: n_ctx_seq (16384) < n_ctx_train (131072) -- the full capacity of the model will not "
                   "be utilized", "https://github.com/Jeffser/Alpaca/issues/1202")],
        expect=[("ctx_warning", True), ("n_ctx_train", True), ("n_ctx_seq", True)],
    ),
    message(
        "llama.cpp.context.seq_above_train", L, "b6068-≥b9821",
        "src/llama-context.cpp:144 @ b6068 (`n_ctx_per_seq`); src/llama-context.cpp:154 @ b7274, :264 @ b9821",
        r"n_ctx_(?:seq|per_seq) \(\d+\) > n_ctx_train \(\d+\)", "n_ctx_train",
        facts=("per-sequence context", "the model's training context"), causes=("OTHER",),
        examples=[("0.00.019.562 W llama_context: n_ctx_seq (8192) > n_ctx_train (4096) -- possible training context "
                   "overflow", PREFILL)],
        expect=[("n_ctx_train", 4096)],
    ),
    message(
        "llama.cpp.fit.context_reduced", L, "b7482-≥b9821 (trace level from 2026-05; not at b7404)",
        "src/llama.cpp:301, :310 @ b8022 (llama_params_fit_impl, info); common/fit.cpp:346, :355 @ b9821 (trace)",
        r"context size reduced from \d+ to \d+", "context size reduced from",
        facts=("the model's context", "the context --fit chose to fit free memory"), causes=("CONTEXT_TRUNCATION",),
        examples=[("llama_params_fit_impl: context size reduced from 262144 to 40960 -> need 17920 MiB less memory in "
                   "total", R + "src/llama.cpp:301 @ b8022")],
        expect=[("fit_ctx", (262144, 40960))],
        note="only where no -c was given (or -c 0 before PR 19070 kept an explicit 0)",
    ),
    message(
        "llama.cpp.fit.failed", L, "b7482-≥b9821",
        "src/llama.cpp:751 @ b8022; common/fit.cpp:804 @ b9821",
        r"failed to fit params to free device memory", "failed to fit params",
        facts=("--fit could not make the model fit the free GPU memory: it loads as asked, and may not fit",),
        causes=("CPU_SPILL",),
        examples=[("llama_params_fit: failed to fit params to free device memory: n_gpu_layers already set by user to "
                   "99, abort", R + "src/llama.cpp:751 @ b8022")],
    ),
    message(
        "llama.cpp.build_info", L, "≤b2000-≥b9821 (`build = N (commit)` to ~b3400, `build: N (commit) with ...` after)",
        "common/common.h:30 @ b2000; common/common.cpp:401 @ b4747, :370 @ b6710",
        r"\bbuild(?::| =) \d+ \([0-9a-f]+\)", ("build: ", "build = "),
        facts=("the build number: which flags the server takes (-fa on|off|auto from b6325, a bare -fa before)",),
        causes=("OTHER",),
        examples=[("build: 5898 (cbc68be5) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu",
                   "a public ROCm log (code search)"),
                  ("0.00.000.173 I build: 4382 (86bf31cf) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for "
                   "x86_64-linux-gnu", "a public Vulkan CI log (code search)"),
                  ("main: build = 4796 (c2b6ef91)", "a public quantize log (code search)")],
        expect=[("build", True)],
    ),
    message(
        "llama.cpp.model.n_ctx_train", L, "≤b2700-≥b9821",
        "llama.cpp:4449 @ b2700 and src/llama.cpp:6863 @ b4000 (llm_load_print_meta); src/llama-model.cpp:3625 @ b4739, "
        ":1729 @ b9821 (print_info)",
        r"(?:print_info|llm_load_print_meta): n_ctx_train\s*=\s*\d+", "n_ctx_train",
        facts=("the model's training context",), causes=("CONTEXT_TRUNCATION",),
        examples=[("llm_load_print_meta: n_ctx_train      = 131072", "https://github.com/oobabooga/textgen/issues/6398"),
                  ("print_info: n_ctx_train           = 40960", R + "src/llama-model.cpp:1729 @ b9821")],
        expect=[("n_ctx_train", True)],
    ),
    # --- the KV cache ----------------------------------------------------------------------------
    message(
        "llama.cpp.kv.buffer", L, "≤b2700-≥b9821",
        "llama.cpp:2414 @ b2700 (llama_kv_cache_init); src/llama-kv-cache.cpp:113 @ b4739; "
        "src/llama-kv-cache-unified.cpp:176 @ b6068; src/llama-kv-cache.cpp:303 @ b9821",
        r"\S+ KV buffer size\s*=\s*[\d.]+ MiB", "kv buffer size",
        facts=("KV cache memory per backend (a CPU one: the cache in host memory)",), causes=("KV_CAPACITY", "CPU_SPILL"),
        examples=[("llama_kv_cache_init:      CUDA0 KV buffer size =   180.00 MiB", LF552),
                  ("llama_kv_cache:    Vulkan0 KV buffer size =  1792.00 MiB",
                   "https://github.com/Jeffser/Alpaca/issues/1202"),
                  ("init:        CPU KV buffer size =   224.00 MiB", "https://github.com/ggml-org/llama.cpp/issues/12614")],
        expect=[("kv_buffers_mib", True)],
    ),
    message(
        "llama.cpp.kv.self_size", L, "≤b2700-b5546 (gone by b6068)",
        "llama.cpp:15205 @ b2700; src/llama.cpp:9765 @ b4739; src/llama-context.cpp:212 @ b5002",
        r"KV self size\s*=\s*[\d.]+ MiB", "kv self size",
        facts=("the KV cache's total (MiB)",), causes=("KV_CAPACITY",),
        examples=[("llama_new_context_with_model: KV self size  =  180.00 MiB, K (f16):   90.00 MiB, V (f16):   90.00 MiB",
                   LF552),
                  ("llama_context: KV self size  =  224.00 MiB, K (f16):  112.00 MiB, V (f16):  112.00 MiB",
                   "https://github.com/ggml-org/llama.cpp/issues/12614")],
        expect=[("kv_size_mib", True)],
    ),
    message(
        "llama.cpp.kv.size", L, "b5465-≥b9821 (not at b5382)",
        "src/llama-kv-cache-unified.cpp:186 @ b6068 (`%2u/%2u seqs`); src/llama-kv-cache.cpp:192 @ b6710, :313 @ b9821",
        r"llama_kv_cache\w*: size =\s*[\d.]+ MiB \(\s*\d+ cells,\s*\d+ layers,\s*\d+/\s*\d+ seqs\)", "llama_kv_cache",
        facts=("the KV cache's total (MiB)", "cells (tokens)", "sequences"), causes=("KV_CAPACITY",),
        examples=[("llama_kv_cache: size = 2048.00 MiB ( 16384 cells,  32 layers,  1/1 seqs), K (f16): 1024.00 MiB, "
                   "V (f16): 1024.00 MiB", "https://github.com/Jeffser/Alpaca/issues/1202"),
                  ("llama_kv_cache: size = 7000.00 MiB (128000 cells,  28 layers,  1/1 seqs), K (f16): 3500.00 MiB, "
                   "V (f16): 3500.00 MiB", "https://github.com/ggml-org/llama.cpp/issues/15946"),
                  ("llama_kv_cache_unified: size = 1024.00 MiB (  8192 cells,  32 layers,  1/ 1 seqs), K (f16):  512.00 "
                   "MiB, V (f16):  512.00 MiB", R + "src/llama-kv-cache-unified.cpp:186 @ b6068")],
        expect=[("kv_size_mib", True), ("kv_size_line", True)],
    ),
    message(
        "llama.cpp.decode.no_memory_slot", L, "b6068-≥b9821 (not at b5546)",
        "src/llama-context.cpp:1033 @ b6068; src/llama-context.cpp:1070 @ b7274; src/llama-context.cpp:1798 @ b9821",
        r"failed to find a memory slot for batch of size \d+", "failed to find a memory slot",
        facts=("the KV pool had no room for the batch",), causes=("KV_CAPACITY",),
        examples=[("[37723] 52.17.402.129 W decode: failed to find a memory slot for batch of size 128", I29090)],
        expect=[("cpp.kv_full_count", 1)],
    ),
    # --- llama-server: slots --------------------------------------------------------------------
    message(
        "llamacpp.slots.initializing", E, "b2259-≥b9821",
        "examples/server/server.cpp:708 @ b2700 (JSON/text `initializing slots` with n_slots); examples/server/server.cpp:681 "
        "@ b4000 and tools/server/server-context.cpp:1307 @ b9821 (`initializing slots, n_slots = %d`)",
        r"initializing slots.*?n_slots\W{1,4}\d+", "initializing slots",
        facts=("slots (--parallel)",), causes=("QUEUEING", "KV_CAPACITY"),
        examples=[("srv          init: initializing slots, n_slots = 4", "https://github.com/ggml-org/llama.cpp/issues/17071"),
                  ('INFO [                    init] initializing slots | tid="128290850131968" timestamp=1728537638 '
                   "n_slots=1", "tests/fixtures/llamacpp/slots_init_text_2024.log")],
        expect=[("n_slots", True)],
    ),
    message(
        "llamacpp.slots.new_slot", E, "b2259-≥b9821",
        "examples/server/server.cpp:717 @ b2700 (JSON/text `new slot` with n_ctx_slot); examples/server/server.cpp:690 @ "
        "b4000 and tools/server/server.cpp:2294 @ b6710 (`new slot n_ctx_slot = %d`); tools/server/server-context.cpp:696 "
        "@ b7274, :1364 @ b9821 (`new slot, n_ctx = %d`)",
        r"new slot(?:,? n_ctx(?:_slot)? = \d+|.*?n_ctx_slot\W{1,4}\d+)", "new slot",
        facts=("each slot's context",), causes=("CONTEXT_TRUNCATION", "KV_CAPACITY"),
        examples=[("slot         init: id  0 | task -1 | new slot n_ctx_slot = 8192",
                   "https://github.com/ggml-org/llama.cpp/issues/10186"),
                  ("0.02.505.689 I slot   load_model: id  0 | task -1 | new slot, n_ctx = 1024",
                   "https://github.com/ggml-org/llama.cpp/issues/23652"),
                  ('INFO [                    init] new slot | tid="128290850131968" timestamp=1728537638 id_slot=0 '
                   "n_ctx_slot=2560", "tests/fixtures/llamacpp/slots_init_text_2024.log")],
        expect=[("slot_n_ctx", True)],
    ),
    message(
        "llamacpp.slots.max_context_2023", E, "≤b1500-~b2258",
        "examples/server/server.cpp:596 @ b1500 (after `Available slots:`)",
        r"-> Slot \d+ - max context: \d+", "max context:",
        facts=("each slot's context", "slots (one line each)"), causes=("CONTEXT_TRUNCATION", "QUEUEING"),
        examples=[(" -> Slot 0 - max context: 512", "https://github.com/ggml-org/llama.cpp/pull/5104")],
        expect=[("slot_n_ctx", 512), ("n_slots", 1)],
    ),
    message(
        "llamacpp.slots.auto_parallel", E, "b6925-≥b9821 (`setting ...` to b7404, `... is set to auto` from b7482)",
        "tools/server/server.cpp:81 @ b7274 (`setting n_parallel = 4 and kv_unified = true (add -kvu to disable this)`); "
        "tools/server/server.cpp:127 @ b9821 (`n_parallel is set to auto, using n_parallel = 4 and kv_unified = true`)",
        r"(?:setting|using) n_parallel = \d+ and kv_unified = true", "n_parallel",
        facts=("slots chosen by the server (no --parallel)", "one KV pool shared by the slots"),
        causes=("KV_CAPACITY", "CONTEXT_TRUNCATION"),
        examples=[("main: n_parallel is set to auto, using n_parallel = 4 and kv_unified = true", I22748),
                  ("main: setting n_parallel = 4 and kv_unified = true (add -kvu to disable this)",
                   R + "tools/server/server.cpp:81 @ b7274")],
        expect=[("auto_parallel", 4), ("kv_unified", True), ("n_slots", 4)],
    ),
    message(
        "llamacpp.slots.capped_to_train", E, "b7274-≥b9821",
        "tools/server/server-context.cpp:663 @ b7274; tools/server/server-context.cpp:1313 @ b9821",
        r"the slot context \(\d+\) exceeds the training context of the model \(\d+\)", "training context of the model",
        facts=("slot context asked", "slot context kept (the training context)"), causes=("CONTEXT_TRUNCATION",),
        examples=[("0.00.059.758 W srv    load_model: the slot context (8192) exceeds the training context of the model "
                   "(4096) - capping", PREFILL)],
        expect=[("slot_capped", (8192, 4096)), ("n_ctx_train", 4096)],
    ),
    message(
        "llama.cpp.slots.slot_data_2024", L, "b2259-b3760 (and Ollama's ext_server runner to v0.3.14)",
        "examples/server/server.cpp:1579 @ b2700, :1687 @ b3600 (JSON/text `slot data` with n_idle_slots, "
        "n_processing_slots; on a /health or /slots request)",
        r"slot data.*?n_idle_slots\W{1,3}\d+", "slot data",
        facts=("slots idle and busy at that moment",), causes=("QUEUEING",),
        examples=[('{"function":"process_single_task","level":"INFO","line":1513,"msg":"slot data","n_idle_slots":1,'
                   '"n_processing_slots":0,"task_id":22,"tid":"9888","timestamp":1714737092}', "https://github.com/ollama/ollama/issues/4124")],
        note="the parser reads n_slots from it (tests/engines/llamacpp/test_llamacpp_catalogue.py); no expect here: "
             "pasted behind kubectl's time stamp, knowledge/pasted.py cuts the JSON at its first `\":` as if a journald "
             "host and ident came before it",
    ),
    message(
        "llamacpp.slots.launching_slot", E, "b3761-≥b6068 (debug level)",
        "examples/server/server.cpp:2044 @ b4739; tools/server/server.cpp:2253 @ b6068",
        r'launching slot : \{"id":\d+,"n_ctx":\d+', "launching slot",
        facts=("the slot's context",), causes=("CONTEXT_TRUNCATION",),
        examples=[(LAUNCH_21760, "https://github.com/ggml-org/llama.cpp/pull/21760")],
        note="the parser reads n_ctx from it (tests/engines/llamacpp/test_llamacpp_catalogue.py); no expect here: "
             "hard-wrapped, the JSON goes to an indented continuation line that knowledge/pasted.py takes for a new "
             "record (`{\"` starts one) and does not join back",
    ),
    message(
        "llamacpp.slots.processing_task", E, "≤b1500-≥b9821",
        "examples/server/server.cpp:855 @ b1500 (`slot %i is processing [task id: %i]`); examples/server/server.cpp:1037 @ "
        "b2700 (JSON/text `slot is processing task`); examples/server/server.cpp:959 @ b4000 and "
        "tools/server/server-context.cpp:1027 @ b7274 (`processing task`); tools/server/server-context.cpp:1842 @ b9821 "
        "(`processing task, is_child = %d`)",
        r"(?:slot \d+ is processing \[task id: \d+\]|slot is processing task|\| processing task)",
        ("is processing", "processing task"),
        facts=("a slot took a request",), causes=("QUEUEING",),
        examples=[("slot 0 is processing [task id: 812]", I4185),
                  ("slot 0 is processing [task id: 0]", "https://github.com/ggml-org/llama.cpp/pull/5104"),
                  ("slot launch_slot_: id  0 | task 0 | processing task", I9390),
                  ("0.00.052.713 I slot launch_slot_: id  3 | task 0 | processing task, is_child = 0", SLOT_SPLIT),
                  ('INFO [   launch_slot_with_task] slot is processing task | tid="140233" timestamp=1713600000 '
                   "id_slot=0 id_task=5", R + "examples/server/server.cpp:1037 @ b2700")],
        expect=[("cpp.tasks_started", 1)],
    ),
    message(
        "llamacpp.slots.all_idle", E, "≤b1500-≥b9821",
        "examples/server/server.cpp:1436 @ b1500 (`... and system prompt is empty, clear the KV cache`); "
        "examples/server/server.cpp:1786 @ b2700 (JSON/text); examples/server/server.cpp:1782 @ b4000; "
        "tools/server/server-context.cpp:2774 @ b9821",
        r"all slots are idle", "all slots are idle",
        facts=("no request in flight at that moment",), causes=("QUEUEING",),
        examples=[("srv  update_slots: all slots are idle", "https://github.com/containers/ramalama/issues/1914"),
                  ("all slots are idle and system prompt is empty, clear the KV cache",
                   "https://github.com/ggml-org/llama.cpp/pull/5104"),
                  ('INFO [              slots_idle] all slots are idle | tid="135692713889792" timestamp=1775920954',
                   IK1619)],
        expect=[("cpp.idle_lines", 1)],
    ),
    message(
        "llamacpp.queue.deferred", E, "≤b1500-≥b9821 (debug level from b3761)",
        "examples/server/server.cpp:1381 @ b1500 (`slot unavailable`); examples/server/server.cpp:420 @ b4000 "
        "(`defer task, id = %d`); tools/server/server-context.cpp:2392 @ b9821 (`requested slot is unavailable, defer "
        "task, id_task = %d`)",
        r"defer task, id(?:_task)? = \d+|\bslot unavailable\b", ("defer task", "slot unavailable"),
        facts=("a request waited: every slot was busy",), causes=("QUEUEING",),
        examples=[("que         defer: defer task, id = 12", R + "examples/server/server.cpp:420 @ b4000"),
                  ("srv  process_sing: requested slot is unavailable, defer task, id_task = 7",
                   R + "tools/server/server-context.cpp:2392 @ b9821"),
                  ("slot unavailable", R + "examples/server/server.cpp:1381 @ b1500")],
        expect=[("cpp.deferred", 1)],
    ),
    message(
        "llamacpp.slots.stop_processing", E, "b3761-≥b9821",
        "examples/server/server.cpp:248 @ b4000 (`n_past`); tools/server/server-context.cpp:261 @ b7274, :488 @ b9821 "
        "(`n_tokens`)",
        r"stop processing: n_(?:past|tokens) = \d+, truncated = \d", "stop processing",
        facts=("tokens the slot holds when it is released", "truncated = 1: the request was shifted or cut"),
        causes=("PREFILL", "CONTEXT_TRUNCATION"),
        examples=[("[57130] 0.35.412.444 I slot      release: id  0 | task 20 | stop processing: n_tokens = 63, "
                   "truncated = 0", I21831),
                  ("slot      release: id  0 | task 2017 | stop processing: n_past = 0, truncated = 0",
                   "https://github.com/containers/ramalama/issues/1914")],
    ),
    # --- llama-server: prompts and timings --------------------------------------------------------
    message(
        "llamacpp.prompt.prompt_eval_time", E, "≤b1500-≥b9821",
        "examples/server/server.cpp:482 @ b1500; examples/server/server.cpp:309 @ b2700 (JSON/text, `prompt eval time     "
        "=`); examples/server/server.cpp:1408 @ b4739; tools/server/server-context.cpp:337 @ b7274, :600 @ b9821; the "
        "library's llama.cpp:9128 @ b1500 (llama_print_timings), src/llama-context.cpp:2771 @ b6710 "
        "(llama_perf_context_print)",
        r"prompt eval time\s*=\s*\d+(?:\.\d+)? ms /\s*\d+ tokens", "prompt eval time",
        facts=("prompt (prefill) time", "prompt tokens"), causes=("PREFILL",),
        examples=[("print_timings: prompt eval time =     326.72 ms /     7 tokens (   46.67 ms per token,    21.43 tokens "
                   "per second)", "https://github.com/ggml-org/llama.cpp/issues/4989"),
                  ("0.05.055.359 I slot print_timing: id  1 | task 0 | prompt eval time =    4372.43 ms /  1203 tokens "
                   "(    3.63 ms per token,   275.13 tokens per second)", PREFILL),
                  ("[57130] 0.35.412.409 I slot print_timing: id  0 | task 20 | prompt eval time =     282.80 ms /    17 "
                   "tokens (   16.64 ms per token,    60.11 tokens per second)", I21831),
                  ("llama_print_timings: prompt eval time =  3794.33 ms /  1849 tokens (    2.05 ms per token,   487.31 "
                   "tokens per second)", "https://github.com/oobabooga/textgen/pull/3370")],
        expect=[("cpp.prompt_evals", 1)],
        note="the library's own llama_print_timings/llama_perf_context_print line has the same words",
    ),
    message(
        "llamacpp.prompt.eval_time", E, "≤b1500-≥b9821",
        "examples/server/server.cpp:486 @ b1500 (`runs`); examples/server/server.cpp:1408 @ b4739 (`tokens`); "
        "tools/server/server-context.cpp:600 @ b9821",
        r"(?<!prompt )eval time\s*=\s*\d+(?:\.\d+)? ms /\s*\d+ (?:tokens|runs)", "eval time",
        facts=("generation time", "tokens generated (paired with the request's prompt eval line)"), causes=("PREFILL",),
        examples=[("print_timings:        eval time =   11813.43 ms /   242 runs   (   48.82 ms per token,    20.49 tokens "
                   "per second)", "https://github.com/ggml-org/llama.cpp/issues/4989"),
                  ("[57130] 0.35.412.418 I slot print_timing: id  0 | task 20 |        eval time =    1318.67 ms /    47 "
                   "tokens (   28.06 ms per token,    35.64 tokens per second)", I21831)],
    ),
    message(
        "llamacpp.prompt.progress", E, "b2259-≥b9821",
        "examples/server/server.cpp:2099 @ b2700 (verbose); examples/server/server.cpp:2070 @ b4000 (`n_past = %d, "
        "n_tokens = %d`); tools/server/server-context.cpp:2142 @ b7274 (`n_tokens = %d, batch.n_tokens = %d`); "
        "tools/server/server-context.cpp:588 @ b9821 (`prompt processing, n_tokens = %6d, progress = %.2f`)",
        r"prompt processing(?: progress)?, n_(?:past|tokens) = \s*\d+", "prompt processing",
        facts=("prefill progress of a long prompt",), causes=("PREFILL",),
        examples=[("slot update_slots: id  0 | task 0 | prompt processing progress, n_past = 256, n_tokens = 256, "
                   "progress = 0.286034", I9390),
                  ("May 23 00:31:18 corrm-pc start_llama_server.sh[385247]: 49.27.669.641 I slot print_timing: id  0 | "
                   "task 22420 | prompt processing, n_tokens =  72791, progress = 1.00, t =  31.16 s / 2336.38 tokens per "
                   "second", "https://github.com/ggml-org/llama.cpp/pull/22929")],
    ),
    message(
        "llamacpp.prompt.new_prompt", E, "b3761-≥b9821 (`task.n_tokens` from b6925; trace level from 2026-05)",
        "examples/server/server.cpp:1886 @ b4000 and tools/server/server.cpp:3389 @ b6710 (`n_prompt_tokens = %d`); "
        "tools/server/server-context.cpp:1788 @ b7274, :3078 @ b9821 (`task.n_tokens = %d`)",
        r"new prompt, n_ctx_slot = \d+, n_keep = -?\d+, (?:n_prompt_tokens|task\.n_tokens) = \d+", "new prompt, n_ctx_slot",
        facts=("slot context", "prompt tokens (a prompt longer than the slot is refused or cut)"),
        causes=("CONTEXT_TRUNCATION",),
        examples=[("slot update_slots: id  0 | task 2017 | new prompt, n_ctx_slot = 2048, n_keep = 0, n_prompt_tokens = "
                   "2059", "https://github.com/containers/ramalama/issues/1914"),
                  ("slot update_slots: id  0 | task 7 | new prompt, n_ctx_slot = 2048, n_keep = 0, task.n_tokens = 2059",
                   R + "tools/server/server-context.cpp:1788 @ b7274")],
        expect=[("cpp.exceeded_max", (2059, 2048))],
    ),
    # --- llama-server: the context overflowing --------------------------------------------------
    message(
        "llamacpp.context.shift", E, "≤b1500-≥b9821 (off by default at b6710 and after: --context-shift)",
        "examples/server/server.cpp:1451 @ b1500 (`slot %d: context shift - n_keep = ...`); examples/server/server.cpp:1815 "
        "@ b2700 (JSON/text `slot context shift`); examples/server/server.cpp:1818 @ b4000 and "
        "tools/server/server-context.cpp:2878 @ b9821 (`slot context shift, n_keep = %d, n_left = %d, n_discard = %d`)",
        r"context shift(?: -|,| \|)?.*?n_(?:keep|discard)", "context shift",
        facts=("the slot's context filled while generating: older tokens dropped",), causes=("CONTEXT_TRUNCATION",),
        examples=[("slot context shift | .... n_keep = 1 n_left = 3998 n_discard = 1999 n_ctx=4000 n_past=3999 "
                   "n_system_tokens=0 n_cache_tokens=2048", "https://github.com/ggml-org/llama.cpp/issues/8498"),
                  ("slot update_slots: id  0 | task 12 | slot context shift, n_keep = 1, n_left = 4094, n_discard = 2047",
                   R + "examples/server/server.cpp:1818 @ b4000"),
                  ("slot 0: context shift - n_keep = 0, n_left = 2046, n_discard = 1023",
                   R + "examples/server/server.cpp:1451 @ b1500"),
                  ('{"function":"update_slots","id_slot":0,"id_task":7,"level":"INFO","line":1815,"msg":"slot context '
                   'shift","n_cache_tokens":4095,"n_ctx":4096,"n_discard":2047,"n_keep":0,"n_left":4094,"n_past":4095,'
                   '"n_system_tokens":0,"tid":"140233","timestamp":1713600000}', R + "examples/server/server.cpp:1815 @ b2700")],
        expect=[("cpp.shift_count", 1)],
    ),
    message(
        "llamacpp.context.input_truncated", E, "≤b1500-b6710 (gone by b6925: too-long prompts are refused)",
        "examples/server/server.cpp:1585 @ b1500, :1989 @ b2700, :2140 @ b3600 (verbose `input truncated` with n_ctx, "
        "n_erase); examples/server/server.cpp:1960 @ b4000 and tools/server/server.cpp:3476 @ b6710 (`input truncated, "
        "n_ctx = %d, n_keep = %d, n_left = %d, n_prompt_tokens = %d`)",
        r"input truncated(?:,| \||\"|.*?n_ctx)", "input truncated",
        facts=("slot context", "prompt tokens", "tokens cut from the prompt"), causes=("CONTEXT_TRUNCATION",),
        examples=[('INFO [update_slots] input truncated | n_ctx=2048 n_erase=14097 n_keep=4 n_left=2044 n_shift=1022 '
                   'tid="62632" timestamp=1721797206', "https://github.com/ollama/ollama/issues/5902"),
                  ("slot update_slots: id  0 | task 3 | input truncated, n_ctx = 4096, n_keep = 0, n_left = 4096, "
                   "n_prompt_tokens = 2049", R + "examples/server/server.cpp:1960 @ b4000")],
        expect=[("cpp.shift_count", 1)],
    ),
    message(
        "llamacpp.context.request_exceeds", E, "b3761-b7404 (counts in the words from b7482)",
        "examples/server/server.cpp:1930 @ b4000 and tools/server/server.cpp:3440 @ b6710 (`... try increasing the context "
        "size or enable context shift`); tools/server/server-context.cpp:1839 @ b7274 (`..., try increasing it`)",
        r"the request exceeds the available context size", "the request exceeds the available context size",
        facts=("a request longer than the slot's context, refused",), causes=("CONTEXT_TRUNCATION",),
        examples=[("srv    send_error: task id = 2017, error: the request exceeds the available context size. try "
                   "increasing the context size or enable context shift",
                   "https://github.com/containers/ramalama/issues/1914"),
                  ("srv    send_error: task id = 4, error: the request exceeds the available context size, try increasing "
                   "it", R + "tools/server/server-context.cpp:1839 @ b7274")],
        expect=[("cpp.exceeded_count", 1)],
    ),
    message(
        "llamacpp.context.request_tokens_exceed", E, "b7482-≥b9821 (not at b7404)",
        "tools/server/server-context.cpp:3140 @ b9821",
        r"request \(\d+ tokens\) exceeds the available context size \(\d+ tokens\)", "exceeds the available context size",
        facts=("request tokens", "slot context"), causes=("CONTEXT_TRUNCATION",),
        examples=[("0.00.052.724 E srv    send_error: task id = 0, error: request (3003 tokens) exceeds the available "
                   "context size (1024 tokens), try increasing it", SLOT_SPLIT)],
        expect=[("cpp.exceeded_max", (3003, 1024))],
    ),
    message(
        "llamacpp.context.input_too_large", E, "b3761-≥b9821",
        "examples/server/server.cpp:1920 @ b4000 and tools/server/server-context.cpp:1833 @ b7274 (`input is larger than "
        "the max context size. skipping`); tools/server/server-context.cpp:3131 @ b9821 (`input (%d tokens) is larger "
        "than the max context size (%d tokens). skipping`)",
        r"input (?:\(\d+ tokens\) )?is larger than the max context size", "is larger than the max context size",
        facts=("a prompt longer than the whole context, refused",), causes=("CONTEXT_TRUNCATION",),
        examples=[("srv    send_error: task id = 9, error: input is larger than the max context size. skipping",
                   R + "examples/server/server.cpp:1920 @ b4000"),
                  ("srv    send_error: task id = 9, error: input (40000 tokens) is larger than the max context size "
                   "(32768 tokens). skipping", R + "tools/server/server-context.cpp:3131 @ b9821")],
        expect=[("cpp.exceeded_count", 1)],
    ),
    message(
        "llamacpp.context.shift_disabled", E, "b3761-≥b9821",
        "examples/server/server.cpp:1809 @ b4000; tools/server/server.cpp:3286 @ b6710; "
        "tools/server/server-context.cpp:2846 @ b9821",
        r"context shift is disabled", "context shift is disabled",
        facts=("generation reached the slot's context with context shift off",), causes=("CONTEXT_TRUNCATION",),
        examples=[("srv    send_error: task id = 31, error: context shift is disabled",
                   R + "tools/server/server-context.cpp:2846 @ b9821")],
        expect=[("cpp.exceeded_count", 1)],
    ),
    # --- llama-server: the KV cache running out -------------------------------------------------
    message(
        "llamacpp.kv.no_free_space", E, "≤b1500-≥b9821",
        "examples/server/server.cpp:1687 @ b1500 (`retrying with smaller n_batch = %d`); examples/server/server.cpp:2211 "
        "@ b2700; examples/server/server.cpp:2143 @ b4000; tools/server/server.cpp:3480 @ b6068 (`i = %d, n_batch = %d`); "
        "tools/server/server-context.cpp:3649 @ b9821 (`off = %d, n_batch = %d`)",
        r"failed to find free space in the KV cache", "failed to find free space in the kv cache",
        facts=("the KV cache had no room for the batch",), causes=("KV_CAPACITY",),
        examples=[("update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 256", I4185),
                  ("[37723] 52.17.402.148 W srv        decode: failed to find free space in the KV cache, retrying with "
                   "smaller batch size, off = 766, n_batch = 64, ret = 1", I29090)],
        expect=[("cpp.kv_full_count", 1)],
    ),
    message(
        "llamacpp.kv.decode_failed_2023", E, "≤b1500-~b2258",
        "examples/server/server.cpp:1683 @ b1500 (after the `retrying with smaller n_batch` lines reach 1)",
        r"failed to decode the batch, n_batch = \d+, ret = -?\d+", "failed to decode the batch",
        facts=("the KV cache had no room even for one token: the request fails",), causes=("KV_CAPACITY",),
        examples=[("update_slots : failed to decode the batch, n_batch = 1, ret = 1", I4185)],
        expect=[("cpp.kv_full_count", 1)],
    ),
    message(
        "llamacpp.kv.cache_full", E, "b2259-~b5000",
        "examples/server/server.cpp:2193 @ b2700 (JSON/text); examples/server/server.cpp:2131 @ b4000; "
        "examples/server/server.cpp:3137 @ b4739",
        r"failed to decode the batch: KV cache is full", "kv cache is full",
        facts=("the KV cache filled: the request fails",), causes=("KV_CAPACITY",),
        examples=[("ERR [    process_batch_tokens] failed to decode the batch: KV cache is full - try increasing it via "
                   'the context size | tid="135692713889792" timestamp=1775920954 i=0 n_batch=1 ret=1', IK1619),
                  ("srv  update_slots: failed to decode the batch: KV cache is full - try increasing it via the context "
                   "size, i = 0, n_batch = 512, ret = 1", R + "examples/server/server.cpp:2131 @ b4000")],
        expect=[("cpp.kv_full_count", 1)],
    ),
    message(
        "llamacpp.kv.prompt_too_big", E, "b2259-~b5000",
        "examples/server/server.cpp:2202 @ b2700; examples/server/server.cpp:2134 @ b4000; "
        "examples/server/server.cpp:3140 @ b4739",
        r"Input prompt is too big compared to KV size", "input prompt is too big",
        facts=("a prompt the KV cache cannot hold, refused",), causes=("KV_CAPACITY",),
        examples=[('ERR [              send_error] task error | tid="135692713889792" timestamp=1775920954 id_multi=-1 '
                   'id_task=161874 error="Input prompt is too big compared to KV size. Please try increasing KV size."',
                   IK1619)],
        expect=[("cpp.kv_full_count", 1)],
    ),
    message(
        "llamacpp.kv.context_size_exceeded", E, "b5465-≥b9821 (not at b5382)",
        "tools/server/server.cpp:3453 @ b6068; tools/server/server-context.cpp:2262 @ b7274, :3611 @ b9821",
        r"Context size has been exceeded", "context size has been exceeded",
        facts=("the shared KV pool ran out while requests were running: they are aborted",), causes=("KV_CAPACITY",),
        examples=[("srv    send_error: task id = 12, error: Context size has been exceeded.",
                   R + "tools/server/server-context.cpp:3611 @ b9821")],
        expect=[("cpp.kv_full_count", 1)],
    ),
    message(
        "llamacpp.kv.slot_purged", E, "b6925-≥b9821 (not at b6710)",
        "tools/server/server-context.cpp:916 @ b7274; tools/server/server-context.cpp:1698 @ b9821 (try_clear_idle_slots)",
        r"purging slot \d+ with \d+ tokens", "purging slot",
        facts=("an idle slot's cached prompt cleared for room in the unified pool",), causes=("KV_CAPACITY", "PREFILL"),
        examples=[("srv  try_clear_id: purging slot 2 with 30145 tokens", R + "tools/server/server-context.cpp:1698 @ b9821")],
        expect=[("cpp.slot_purges", 1)],
        note="unified KV only (--kv-unified, or -np left on auto)",
    ),
    # --- llama-server: the prompt cache ---------------------------------------------------------
    message(
        "llamacpp.cache.released_2023", E, "≤b1500-~b2258",
        "examples/server/server.cpp:1484 @ b1500",
        r"slot \d+ released \(\d+ tokens in cache\)", "tokens in cache",
        facts=("tokens the slot keeps cached (compared with the next request's cut)",), causes=("PREFILL",),
        examples=[("slot 0 released (249 tokens in cache)", "https://github.com/ggml-org/llama.cpp/issues/4989")],
    ),
    message(
        "llamacpp.cache.released_2024", E, "b2259-b3760",
        "examples/server/server.cpp:1760 @ b2700",
        r"slot released.*?n_cache_tokens\W{1,3}\d+", "slot released",
        facts=("tokens the slot keeps cached (compared with the next request's cut)",), causes=("PREFILL",),
        examples=[('INFO [           release_slots] slot released | tid="135692713889792" timestamp=1775920954 id_slot=0 '
                   "id_task=161874 n_ctx=202752 n_past=13010 n_system_tokens=0 n_cache_tokens=13010 truncated=false",
                   IK1619)],
    ),
    message(
        "llamacpp.cache.in_cache_2023", E, "≤b1500-~b2258",
        "examples/server/server.cpp:1607 @ b1500",
        r"slot \d+ : in cache: \d+ tokens \| to process: \d+ tokens", "in cache:",
        facts=("prompt tokens found in the slot's cache", "prompt tokens to compute"), causes=("PREFILL",),
        examples=[("slot 0 : in cache: 0 tokens | to process: 492 tokens", "https://github.com/ggml-org/llama.cpp/pull/5104")],
        note="printed only with cache_prompt on; the cut that follows (`kv cache rm`) carries the fact read",
    ),
    message(
        "llamacpp.cache.kv_cache_rm_2023", E, "≤b1500-~b2258",
        "examples/server/server.cpp:1610 @ b1500",
        r"slot \d+ : kv cache rm - \[\d+, end\)", "kv cache rm",
        facts=("where the slot's cached prompt stops matching",), causes=("PREFILL",),
        examples=[("slot 0 : kv cache rm - [24, end)", I4185)],
        expect=[("cpp.cache_cuts", 1)],
    ),
    message(
        "llamacpp.cache.kv_cache_rm_2024", E, "b2259-b3760",
        "examples/server/server.cpp:2066 @ b2700; examples/server/server.cpp:2225 @ b3600",
        r"kv cache rm \[p0, end\)", "kv cache rm",
        facts=("where the slot's cached prompt stops matching (p0)",), causes=("PREFILL",),
        examples=[('{"function":"update_slots","id_slot":0,"id_task":7,"level":"INFO","line":2066,"msg":"kv cache rm '
                   '[p0, end)","p0":0,"tid":"140233","timestamp":1713600000}', R + "examples/server/server.cpp:2066 @ b2700"),
                  ('INFO [            update_slots] kv cache rm [p0, end) | tid="140233" timestamp=1713600000 id_slot=0 '
                   "id_task=7 p0=512", R + "examples/server/server.cpp:2225 @ b3600")],
        expect=[("cpp.cache_cuts", 1)],
    ),
    message(
        "llamacpp.cache.kv_cache_rm", E, "b3761-b6250 (gone by b6710)",
        "examples/server/server.cpp:2053 @ b4000; examples/server/server.cpp:3052 @ b4739; tools/server/server.cpp:3330 @ "
        "b6068",
        r"\| kv cache rm \[\d+, end\)", "kv cache rm",
        facts=("where the slot's cached prompt stops matching",), causes=("PREFILL",),
        examples=[("slot update_slots: id  0 | task 0 | kv cache rm [0, end)", I9390)],
        expect=[("cpp.cache_cuts", 1), ("cpp.cache_cuts_to_zero", 1)],
    ),
    message(
        "llamacpp.cache.memory_seq_rm", E, "b6710 (`n_past`), b6925-≥b9821 (`n_tokens`; trace level from 2026-05)",
        "tools/server/server.cpp:3636 @ b6710 (`n_past = %d, memory_seq_rm [%d, end)`); tools/server/server-context.cpp:2045 "
        "@ b7274 (`n_tokens = %d, ...`); tools/server/server-context.cpp:3377 @ b9821 (`cached n_tokens = %d, ...`)",
        r"n_(?:past|tokens) = \d+, memory_seq_rm \[\d+, end\)", "memory_seq_rm",
        facts=("where the slot's cached prompt stops matching",), causes=("PREFILL",),
        examples=[("slot update_slots: id  0 | task 135 | n_tokens = 0, memory_seq_rm [0, end)",
                   "https://github.com/ggml-org/llama.cpp/pull/19408"),
                  ("slot update_slots: id  0 | task 12 | n_past = 1024, memory_seq_rm [1024, end)",
                   R + "tools/server/server.cpp:3636 @ b6710"),
                  ("slot update_slots: id  0 | task 9 | cached n_tokens = 3500, memory_seq_rm [3500, end)",
                   R + "tools/server/server-context.cpp:3377 @ b9821")],
        expect=[("cpp.cache_cuts", 1)],
    ),
    message(
        "llamacpp.cache.prompt_mismatch", E, "b7274-≥b9821",
        "tools/server/server-context.cpp:1920 (ERR), :1971 (WRN, with n_swa) @ b7274; tools/server/server-context.cpp:3238 "
        "@ b9821",
        r"n_past = \d+, slot\.prompt\.tokens\.size\(\) = \d+", "slot.prompt.tokens.size()",
        facts=("tokens still matching", "tokens the slot held"), causes=("PREFILL",),
        examples=[("llama-2-1  | 40.48.338.643 W slot update_slots: id  0 | task 9156 | n_past = 3737, "
                   "slot.prompt.tokens.size() = 38925, seq_id = 0, pos_min = 38924, n_swa = 0",
                   "https://github.com/SimonSchubert/Kai/issues/349")],
        expect=[("cpp.cache_miss_count", 1), ("cpp.worst_miss.cached", 38925)],
    ),
    message(
        "llamacpp.cache.full_reprocess", E, "b5465-≥b9821 (not at b5382)",
        "tools/server/server.cpp:3298 @ b6068 (`likely due to SWA, see %s`); tools/server/server.cpp:3589 @ b6710 and "
        "tools/server/server-context.cpp:3317 @ b9821 (`likely due to SWA or hybrid/recurrent memory, see %s`)",
        r"forcing full prompt re-processing due to lack of cache data", "forcing full prompt re-processing",
        facts=("the whole prompt computed again",), causes=("PREFILL",),
        examples=[("[57130] 0.33.810.930 W slot update_slots: id  0 | task 20 | forcing full prompt re-processing due to "
                   "lack of cache data (likely due to SWA or hybrid/recurrent memory, see "
                   "https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)", I21831),
                  ("forcing full prompt re-processing due to lack of cache data (likely due to SWA, see "
                   "https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)",
                   "https://github.com/ggml-org/llama.cpp/issues/14157")],
        expect=[("cpp.cache_miss_count", 1)],
    ),
    message(
        "llamacpp.cache.checkpoint_erased", E, "~b6500-~b8000",
        "tools/server/server.cpp:3601 @ b6710; tools/server/server-context.cpp:2013 @ b7274",
        r"erased invalidated context checkpoint \(pos_min = -?\d+, pos_max = -?\d+, n_swa", "erased invalidated context checkpoint",
        facts=("a cached checkpoint past where the prompt stops matching, dropped",), causes=("PREFILL",),
        examples=[("slot update_slots: id  0 | task 52 | erased invalidated context checkpoint (pos_min = 2047, pos_max = "
                   "2047, n_swa = 0, size = 62.813 MiB)", R + "tools/server/server-context.cpp:2013 @ b7274")],
        expect=[("cpp.checkpoints_erased", 1)],
    ),
    message(
        "llamacpp.cache.checkpoint_erased_pos", E, "~b9000-≥b9821",
        "tools/server/server-context.cpp:3330 @ b9821",
        r"erased invalidated context checkpoint \(.*?n_tokens = \d+.*?pos_next = \d+", "erased invalidated context checkpoint",
        facts=("tokens cached up to the checkpoint", "where processing starts again"), causes=("PREFILL",),
        examples=[("4.02.179.164 W slot update_slots: id  2 | task 1268 | erased invalidated context checkpoint (pos_min = "
                   "10986, pos_max = 10986, n_tokens = 10987, n_swa = 0, pos_next = 10668, size = 149.626 MiB)",
                   "https://github.com/ggml-org/llama.cpp/issues/22746"),
                  ("[57130] 0.33.810.932 W slot update_slots: id  0 | task 20 | erased invalidated context checkpoint "
                   "(pos_min = 15, pos_max = 15, n_tokens = 16, n_swa = 0, pos_next = 0, size = 62.813 MiB)", I21831)],
        expect=[("cpp.cache_miss_count", 1), ("cpp.checkpoints_erased", 1)],
    ),
    message(
        "llamacpp.cache.slot_by_similarity", E, "b3761-≥b9821 (debug level to ~b6000)",
        "examples/server/server.cpp:761 @ b4000 (`lcp similarity`); examples/server/server.cpp:2002 @ b4739 and "
        "tools/server/server.cpp:2381 @ b6710 (`lcs similarity`); tools/server/server-context.cpp:821 @ b7274, :1619 @ "
        "b9821 (`LCP similarity, sim_best = ..., f_keep = ...`)",
        r"selected slot by (?:lcp|lcs|LCP) similarity", "selected slot by",
        facts=("how much of a slot's cache the request shares",), causes=("PREFILL",),
        examples=[("slot get_availabl: id  3 | task -1 | selected slot by LCP similarity, sim_best = 0.333 (> 0.100 "
                   "thold), f_keep = 0.030", "https://github.com/ggml-org/llama.cpp/issues/16983")],
    ),
    message(
        "llamacpp.cache.reuse_chunk", E, "b3761-≥b9821 (trace level from 2026-05)",
        "examples/server/server.cpp:1988 @ b4000; tools/server/server-context.cpp:1880 @ b7274, :3193 @ b9821",
        r"reusing chunk with size \d+, shifting KV cache", "reusing chunk",
        facts=("--cache-reuse moved a cached chunk instead of recomputing it",), causes=("PREFILL",),
        examples=[("slot update_slots: id  0 | task 8 | reusing chunk with size 1024, shifting KV cache [2048, 3072) -> "
                   "[1536, 2560)", R + "examples/server/server.cpp:1988 @ b4000")],
    ),
    message(
        "llamacpp.cache.prompt_cache_enabled", E, "b7274-≥b9821",
        "tools/server/server-context.cpp:729 @ b7274 (warning); tools/server/server-context.cpp:1402 @ b9821",
        r"prompt cache is enabled, size limit: (?:\d+ MiB|no limit)", "prompt cache is enabled",
        facts=("prompts kept in host memory (--cache-ram)",), causes=("PREFILL",),
        examples=[("srv          init: prompt cache is enabled, size limit: 8192 MiB",
                   "https://github.com/ggml-org/llama.cpp/issues/17071")],
    ),
    message(
        "llamacpp.cache.state", E, "b7274-≥b9821",
        "tools/server/server-task.cpp:1488 @ b7274",
        r"- cache state: \d+ prompts, [\d.]+ MiB", "cache state:",
        facts=("prompts in the host-memory cache and their size",), causes=("PREFILL",),
        examples=[("srv        update:  - cache state: 0 prompts, 0.000 MiB (limits: 8192.000 MiB, 84224 tokens, "
                   "8589934592 est)", "https://github.com/ollama/ollama/issues/16901")],
    ),
    message(
        "llamacpp.config.setting_disabled", E, "b6068-≥b9821",
        "tools/server/server.cpp:2062, :2067, :2079, :2084 @ b6068; tools/server/server-context.cpp:1273, :1278, :1285, "
        ":1290, :1297 @ b9821 (load_model: `ctx_shift|cache_reuse is not supported by multimodal|this context`, "
        "`swa_full is not supported by this model`, `, it will be disabled`)",
        r"\b(?:ctx_shift|cache_reuse|swa_full|speculative decoding) is not supported by [\w ]+?, it will be disabled",
        "it will be disabled",
        facts=("a setting asked for, switched off at start-up",), causes=("CONFIG_NOT_APPLIED",),
        examples=[("cache_reuse is not supported by multimodal, it will be disabled",
                   "https://github.com/CambrianTech/continuum/pull/2444"),
                  ("srv    load_model: cache_reuse is not supported by multimodal, it will be disabled",
                   R + "tools/server/server-context.cpp:1278 @ b9821"),
                  ("srv    load_model: swa_full is not supported by this model, it will be disabled",
                   R + "tools/server/server-context.cpp:1297 @ b9821")],
        expect=[("cpp.disabled_settings", True)],
    ),
    message(
        "llamacpp.config.cache_reuse_ignored", E, "b7404-≥b9821 (not at b7274)",
        "tools/server/server-context.cpp:2221 @ b8022; tools/server/server-context.cpp:3165 @ b9821",
        r"cache reuse is not supported - ignoring n_cache_reuse = \d+", "cache reuse is not supported",
        facts=("--cache-reuse ignored for this request",), causes=("CONFIG_NOT_APPLIED", "PREFILL"),
        examples=[("slot update_slots: id  0 | task 9 | cache reuse is not supported - ignoring n_cache_reuse = 256",
                   R + "tools/server/server-context.cpp:3165 @ b9821")],
        expect=[("cpp.disabled_settings", True)],
    ),
    # --- llama-server: sleep on idle, router mode ----------------------------------------------
    message(
        "llamacpp.server.sleeping", E, "b7540-≥b9821 (not at b7482)",
        "tools/server/server-context.cpp:956 @ b9821",
        r"server is entering sleeping state", "server is entering sleeping state",
        facts=("--sleep-idle-seconds unloaded the model; the next request loads it again",), causes=("MODEL_UNLOAD",),
        examples=[("srv  handle_sleep: server is entering sleeping state", R + "tools/server/server-context.cpp:956 @ b9821")],
        expect=[("cpp.sleeps", 1)],
    ),
    message(
        "llamacpp.server.waking", E, "b7540-≥b9821 (not at b7482)",
        "tools/server/server-context.cpp:959 @ b9821",
        r"server is exiting sleeping state", "server is exiting sleeping state",
        facts=("a request woke the server: it reloads the model first",), causes=("MODEL_UNLOAD",),
        examples=[("srv  handle_sleep: server is exiting sleeping state", R + "tools/server/server-context.cpp:959 @ b9821")],
        expect=[("cpp.wakes", 1)],
    ),
    message(
        "llamacpp.router.models_max", E, "b7274-≥b9821",
        "tools/server/server-models.cpp:821 @ b9821",
        r"models_max limit reached, removing LRU name=\S+", "models_max limit reached",
        facts=("router mode unloaded a model to load another",), causes=("MODEL_UNLOAD",),
        examples=[("srv          load: models_max limit reached, removing LRU name=Qwen3-8B-Q4_K_M",
                   R + "tools/server/server-models.cpp:821 @ b9821")],
        expect=[("cpp.lru_unloads", 1)],
    ),
)


def summarize(lines):
    from llmdoctor.knowledge.llamacpp.log import scan_llama_lines

    return scan_llama_lines(lines)
