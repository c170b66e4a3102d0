"""Recognition, line by line: each engine's table on real lines (sources in the comments),
lines no engine prints, and how llama.cpp's shared lines are placed."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.recognize import FAMILY, LLAMACPP, OLLAMA, SGLANG, VLLM, decide, engine_of_text, signs_in

LINES = [
    # Ollama: samples.md 2a-2i, ollama#4124, #8903, #13227, #7892
    (OLLAMA, '[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     "/api/generate"'),
    (OLLAMA, '2025/02/18 02:20:54 routes.go:1187: INFO server config env="map[OLLAMA_NUM_PARALLEL:0]"'),
    (OLLAMA, 'time=2025-02-09T21:59:37.882Z level=INFO source=types.go:130 msg="inference compute" id=GPU-6c0b library=cuda'),
    (OLLAMA, 'time=2025-11-24T13:55:06.999Z level=INFO source=server.go:974 msg="model requires more memory than is currently available, evicting a model to make space" "loaded layers"=0'),
    (OLLAMA, "export OLLAMA_NUM_PARALLEL:10"),
    (OLLAMA, "NAME         \tID          \tSIZE  \tPROCESSOR\tUNTIL"),
    (OLLAMA, r"time=2024-05-03T13:51:30.057+02:00 level=INFO source=gpu.go:101 msg=\"detected GPUs\" library=C:\Users\M\AppData\Local\Programs\Ollama\cudart64_110.dll count=1"),
    # vLLM: samples.md 3-5, vllm#5578, #10440, #2418, kaito#2132, the real vLLM 0.32 here
    (VLLM, "INFO 06-16 21:24:15 metrics.py:341] Avg prompt throughput: 2706.1 tokens/s, Avg generation throughput: 13395.4 tokens/s, Running: 34 reqs"),
    (VLLM, "(APIServer pid=1) INFO 09-07 06:35:40 [loggers.py:310] Engine 000: Avg prompt throughput: 0.0 tokens/s"),
    (VLLM, "scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000"),
    (VLLM, "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 229, # CPU blocks: 512"),
    (VLLM, "ValueError: To serve at least one request with the model's max seq len (1048576), 22.5 GiB KV cache is needed, which is larger than the available KV cache memory (17.39 GiB)."),
    (VLLM, "llm = LLM(model=args.model_path, seed=args.seed, gpu_memory_utilization=0.95, max_model_len=1000)"),
    (VLLM, "vllm serve cyankiwi/Qwen3.6-35B-A3B-AWQ-4bit --max-model-len 262144"),
    # llama-server: llama.cpp#23652, the recorded llama-server here, #6722, lemonade#3276
    (LLAMACPP, "0.02.505.689 I slot   load_model: id  0 | task -1 | new slot, n_ctx = 1024"),
    (LLAMACPP, "podman run -d ghcr.io/ggerganov/llama.cpp:server-cuda -m /models/uae-large-v1-f32.gguf --parallel 4"),
    (LLAMACPP, "lemonade run <model> --ctx-size 131072 --llamacpp-device ROCm0"),
    # llama.cpp code, in either engine: llama.cpp#17761, ollama#8995, #5902, #8498
    (FAMILY, "ggml_vulkan: No devices found."),
    (FAMILY, "load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so"),
    (FAMILY, "llm_load_tensors: offloaded 37/49 layers to GPU"),
    (FAMILY, "INFO [update_slots] input truncated | n_ctx=2048 n_erase=14097 n_keep=4"),
    (FAMILY, "slot context shift | .... n_keep = 1 n_left = 3998 n_discard = 1999 n_ctx=4000 n_past=3999"),
    (FAMILY, "srv load_model: initializing, n_slots = 4, n_ctx_slot = 131072, kv_unified = 'true'"),
    (FAMILY, 'GGML_ASSERT: llama.cpp:9612: seq_id < n_tokens && "seq_id cannot be larger than n_tokens"'),
]
# The error bodies clients received, posted alone (client_errors.txt): each engine's own wording.
# Qwen3#1321 (SGLang), textgen#7257 (llama-server), n8n#11144 (Ollama 0.3), rendered from
# server/routes.go:640, :655 @ v0.12.3 and tools/server/server-context.cpp:3140 @ b9821
BODIES = [
    (SGLANG, '{"object":"error","message":"The input (61709 tokens) is longer than the model\\\'s context length '
             '(40960 tokens).","type":"BadRequestError","param":null,"code":400}'),
    (LLAMACPP, '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the '
               'context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,'
               '"n_ctx":8192}}'),
    (LLAMACPP, '{"error":{"code":400,"message":"request (9000 tokens) exceeds the available context size (8192 tokens), '
               'try increasing it","type":"exceed_context_size_error"}}'),
    (OLLAMA, '{ "error": "input length exceeds maximum context length", "status_code": 400, "name": "ResponseError" }'),
    (OLLAMA, '{"error":"input exceeds maximum context length"}'),
    (OLLAMA, '{"error":"input after truncation exceeds maximum context length"}'),
]
LINES += BODIES
NOBODY = [
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
    "MemTotal:       65768440 kB",
    "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
    "hello world",
    "find: ‘/usr/local/lib/ollama’: No such file or directory"[:6],
]


@pytest.mark.parametrize("engine,line", LINES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(LINES)])
def test_each_table_recognises_its_lines(engine, line):
    assert engine in signs_in(line), signs_in(line)


@pytest.mark.parametrize("engine,line", BODIES, ids=[f"{e}-body-{i}" for i, (e, _) in enumerate(BODIES)])
def test_an_error_body_alone_names_only_its_engine(engine, line):
    assert set(signs_in(line)) == {engine}


def test_other_servers_context_errors_name_no_engine():
    """OpenAI's and vLLM's wording ("maximum context length is N tokens") is not these bodies."""
    for line in ('{"error":{"message":"This model\'s maximum context length is 4096 tokens.","type":"invalid_request_error"}}',
                 "the request exceeds the context", "input length exceeds the maximum"):
        assert OLLAMA not in signs_in(line) and LLAMACPP not in signs_in(line) and SGLANG not in signs_in(line)


def test_ollama_runner_arguments_alone_are_ollama_s():
    """ollama#10160: the runner's arguments pasted from --ctx-size on (llm/server.go writes --model,
    --ctx-size, --batch-size first); the old runner binary (ollama#4124's form). A llama-server
    command line with the same flags, or flags in another order, stays llama-server's."""
    for text in ("--ctx-size 24576 --batch-size 512 --n-gpu-layers 65 --verbose --threads 104 --flash-attn --no-mmap "
                 "--parallel 6 --tensor-split 33,32 ",
                 "--model /usr/share/ollama/.ollama/models/blobs/sha256-6a0746a1ec1a --ctx-size 8192 --batch-size 512 "
                 "--n-gpu-layers 33 --parallel 4 --port 40215",
                 "/tmp/ollama2769/runners/cuda_v12/ollama_llama_server --model /m --ctx-size 2048 --parallel 1 --port 4"):
        assert decide({"cmdline.txt": signs_in(text)}).engines == (OLLAMA,), text
    for text in ("llama-server --model /m/x.gguf --ctx-size 8192 --batch-size 512 --parallel 4",
                 "--model /m/x.gguf --ctx-size 8192 --parallel 4 --batch-size 512", "-m x.gguf --ctx-size 8192 --batch-size 512"):
        assert decide({"cmdline.txt": signs_in(text)}).engines == (LLAMACPP,), text


@pytest.mark.parametrize("line", NOBODY)
def test_lines_no_engine_prints(line):
    assert not signs_in(line)


def test_llama_cpp_lines_go_to_ollama_only_with_ollama_beside_them():
    runner = "llm_load_tensors: offloaded 31/33 layers to GPU"
    assert decide({"server.log": signs_in(runner)}).engines == (LLAMACPP,)
    both = decide({"journal.log": signs_in(runner + "\n" + LINES[0][1])})
    assert both.engines == (OLLAMA,) and both.files["journal.log"] == OLLAMA
    # Ollama >= 0.30 logs "starting llama-server" itself: still Ollama's file, and no llama-server
    v030 = 'time=2026-08-01T07:02:33.347Z level=INFO source=llama_server.go:1274 msg="llama-server started in 6.43 seconds"'
    assert decide({"journal.log": signs_in(v030 + "\nsrv  llama_server: model loaded")}).engines == (OLLAMA,)
    assert engine_of_text('time=2026-08-01T07:02:33.347Z level=INFO source=llama_server.go:1274 '
                          'msg="llama-server started in 6.43 seconds"') == OLLAMA
    # a hint (the format's file name, a container's name) places llama.cpp lines nothing else places
    assert decide({"journal.log": signs_in(runner)}, weak_idents={OLLAMA: "journal.log"}).engines == (OLLAMA,)


def test_names_alone_make_no_engine_but_a_named_log_does():
    assert decide({"journal.log": {}}, weak_idents={OLLAMA: "journal.log"}).engines == ()
    assert decide({"vllm.log": {}}, named={VLLM: "vllm.log"}).engines == (VLLM,)
    assert decide({"x": {}}, strong_idents={OLLAMA: "ollama"}).engines == (OLLAMA,)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_garbage_never_raises(text):
    signs_in(text)
    engine_of_text(text)


def _every_pattern_on_every_line(text: str) -> dict:
    """signs_in as it was before its literal pre-tests: every pattern searched on every line
    (then the message catalogue's fallback, as signs_in has it: that is no pre-test)."""
    from llmdoctor.knowledge.recognize import HEAD, MAX_LINES, SIGNS, Hit, _catalogued, asks_the_catalogue

    found: dict = {}
    for n, line in enumerate(text[:HEAD].split("\n")):
        if n >= MAX_LINES:
            break
        if not line.strip():
            continue
        for engine, table in SIGNS.items():
            for _, pattern, what in table:
                if pattern.search(line):
                    hit = found.setdefault(engine, [0, line.strip()[:300], what])
                    hit[0] += 1
                    break
    if asks_the_catalogue(found):
        _catalogued(text, found)
    return {e: Hit(*h) for e, h in found.items()}


def _fixture_texts():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "fixtures"
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.stat().st_size < 4_000_000:
            yield p, p.read_bytes().decode("utf-8", "replace")


def test_literal_pre_tests_change_no_result():
    """A pattern runs only on lines holding one of its row's literals: on every fixture file
    (and each of its lines in upper case) the signs found are those of every pattern on every line."""
    from llmdoctor.knowledge.recognize import _signs_in

    for path, text in _fixture_texts():
        for variant in (text, text.upper()):
            assert _signs_in.__wrapped__(variant) == _every_pattern_on_every_line(variant), path


# Lines for the literals no fixture line needs alone (each pattern's other branches)
BRANCHES = [
    "Sequence group 5 is preempted by the scheduler", "cd llama.cpp/server && make", "see examples/server/README.md",
    "0.02.505.689 D slot x", "0.02.505.689 T x", "LLAMA_ARG_CTX_SIZE=4096", "x --llamacpp rocm", '"total_slots": 4',
    '"default_generation_settings": {', "--max-running-requests 8", "--schedule-conservativeness 0.3",
    "max_running_requests=8", "disable_radix_cache=True", "max_total_num_tokens=1000", "max_seq_len = 4096",
    "llm_load_print_meta: n_ctx_train = 4096", "llama_model_loader: loaded meta data", "print_info: file format = GGUF V3",
    "ggml_cuda_init: found 1 CUDA devices:", "ggml_metal_init: allocating", "ggml_backend_metal_log_allocated_size: x",
    "llama_init_from_model: n_ctx = 4096", "common_init_from_params: warming up", "clip_model_load: model name",
    "llama_perf_context_print: load time", "llama_print_timings: load time = 1 ms",
    "llama_load_model_from_file: using device CUDA0", "cmn  init: ok", "llama server is listening on http://x",
    "prompt eval time =  10.5 ms / 12 tokens", "run -kvu",
]


def test_each_row_s_literals_hold_wherever_its_pattern_matches():
    """Row by row (not only the first row that matches a line): on every line of every fixture
    file where a pattern matches, one of its literals is in the case-folded line."""
    from llmdoctor.knowledge.recognize import SIGNS

    rows = [row for table in SIGNS.values() for row in table]
    for line in BRANCHES:
        assert any(pattern.search(line) for _, pattern, _ in rows), line
    for path, text in [("BRANCHES", "\n".join(BRANCHES))] + list(_fixture_texts()):
        for line in (text + "\n" + text.upper()).split("\n"):
            folded = line.casefold()
            for literals, pattern, what in rows:
                if pattern.search(line):
                    assert any(lit in folded for lit in literals), (path, what, line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([line for _, line in LINES] + NOBODY + ["Ollama", "ſglang", "VLLM_X", "x.py:3] ", " W "]),
                max_size=6).map(" ".join))
def test_literal_pre_tests_on_mixed_lines(text):
    from llmdoctor.knowledge.recognize import _signs_in

    assert _signs_in.__wrapped__(text) == _every_pattern_on_every_line(text)


def test_literals_are_case_folded():
    from llmdoctor.knowledge.recognize import SIGNS

    for table in SIGNS.values():
        for literals, _, what in table:
            assert literals and all(lit and lit == lit.casefold() for lit in literals), what
