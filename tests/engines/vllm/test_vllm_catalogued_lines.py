"""The wordings the message catalogue (knowledge/vllm/catalogue.py) taught the vLLM log scanner,
read on real lines, through every feeding path, past the exact head where they carry an
anchor, and wired to the checks: start-up refusals for want of GPU memory (vllm-max-seq-len),
a V0 prompt larger than the whole KV cache (KV_CAPACITY, not a context refusal), limits in
effect at start-up (settings), a "Maximum concurrency" line apart from its size line."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.facts import Context, FactStore
from llmdoctor.knowledge.engines import VLLM, EngineInstance
from llmdoctor.knowledge.vllm.log import VllmLogScanner, scan_vllm_lines
from llmdoctor.knowledge.vllm.rare_lines import EXACT_LINES
from llmdoctor.model import Cause, Severity
from llmdoctor.plugins import load_checks, run_check

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "vllm"
REAL32 = FIXTURES / "real_0.32_cpu"


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs}


def log_store(tmp_path, text: str) -> FactStore:
    (tmp_path / "meta.json").write_text('{"engine": "vllm"}')
    (tmp_path / "vllm.log").write_text(text)
    return FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})


def all_feeds(text: str):
    """The summary of `text` by lines, by blocks, by raw bytes in small chunks and as a stream."""
    import io

    lines = scan_vllm_lines(text.split("\n"))
    block = VllmLogScanner()
    block.feed_block(text)
    chunks = VllmLogScanner()
    data = text.encode()
    for i in range(0, len(data), 97):
        chunks.feed_bytes(data[i:i + 97])
    chunks.feed_bytes(b"", final=True)
    stream = VllmLogScanner().scan_stream(io.BytesIO(data), chunk_size=512)
    return lines, block.result(), chunks.result(), stream.result()


def test_less_free_memory_than_gpu_memory_utilization_asks_is_a_start_up_refusal(tmp_path, specs):
    text = (FIXTURES / "startup_gpu_memory_short_23192.log").read_text()  # vllm-project/vllm#23192
    for summary in all_feeds(text):
        short = summary.gpu_memory_short
        assert (short.free_gib, short.total_gib, short.utilization, short.requested_gib) == (7.34, 139.72, 0.9, 125.75)
        assert short.text.startswith("(EngineCore_0 pid=1810465) ERROR") and summary.settings == {
            "gpu_memory_utilization": 0.9}
    [f] = run_check(specs["vllm-max-seq-len"], log_store(tmp_path, text)).findings
    assert f.cause is Cause.KV_CAPACITY and f.severity is Severity.CRITICAL
    assert f.title == ("vLLM cannot start: the GPU has 7.34 GiB free of 139.72 GiB, and gpu_memory_utilization 0.9 "
                       "asks for 125.75 GiB")
    assert "nvidia-smi" in f.fix.summary and f.fix.commands == ("vllm serve MODEL --gpu-memory-utilization 0.05",)


def test_the_newer_wording_names_the_device():
    # vllm/v1/worker/utils.py:763 @ v0.33.0 ("Free memory on device {device} (...)"), as pytorch/pytorch#175666 quotes it
    line = ("ValueError: Free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory "
            "utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    short = scan_vllm_lines([line]).gpu_memory_short
    assert (short.free_gib, short.requested_gib) == (19.77, 19.84)


def test_no_memory_for_any_kv_block_is_a_start_up_refusal(tmp_path, specs):
    text = (FIXTURES / "no_kv_memory_10439.log").read_text()  # vllm-project/vllm#10439
    for summary in all_feeds(text):
        assert summary.no_kv_memory.endswith("ValueError: No available memory for the cache blocks. Try increasing "
                                             "`gpu_memory_utilization` when initializing the engine.")
    [f] = run_check(specs["vllm-max-seq-len"], log_store(tmp_path, text)).findings
    assert f.title == "vLLM cannot start: no memory is left for the KV cache after the weights and the activations"
    assert f.severity is Severity.CRITICAL and "--gpu-memory-utilization 0.95" in f.fix.commands[0]


def test_a_healthy_start_up_is_quiet(tmp_path, specs):
    text = (REAL32 / "startup.log").read_text()  # the recorded 0.32 server: it started and served
    summary = scan_vllm_lines(text.split("\n"))
    assert summary.gpu_memory_short is None and summary.no_kv_memory is None and summary.max_model_len_over_model is None
    assert summary.prompts_over_kv_capacity == 0
    s = log_store(tmp_path, text)
    assert run_check(specs["vllm-max-seq-len"], s).findings == ()


def test_a_prompt_beyond_the_whole_kv_cache_is_kv_capacity_not_a_context_refusal(tmp_path, specs):
    # vllm/core/scheduler.py:965 @ v0.6.6.post1 (V0: AllocStatus.NEVER), after the real KV line of #10517
    text = ("INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 229, # CPU blocks: 512\n"
            "WARNING 01-11 15:52:00 scheduler.py:965] Input prompt (4000 tokens) + lookahead slots (0) is too long "
            "and exceeds the capacity of block_manager\n")
    summary = scan_vllm_lines(text.split("\n"))
    assert (summary.prompts_too_long, summary.prompts_over_kv_capacity, summary.prompt_too_long_max) == (1, 1, None)
    s = log_store(tmp_path, text)
    [f] = run_check(specs["vllm-max-seq-len"], s).findings
    assert f.cause is Cause.KV_CAPACITY and f.title.startswith("vLLM ignored 1 request(s) whose prompt needs more KV")
    assert run_check(specs["vllm-prompt-too-long"], s).findings == ()
    # beside a real context refusal, the context check counts that one only
    text += "WARNING 01-11 15:53:00 scheduler.py:945] Input prompt (9000 tokens) is too long and exceeds limit of 4096\n"
    [f] = run_check(specs["vllm-prompt-too-long"], log_store(tmp_path, text)).findings
    assert f.title.startswith("vLLM refused 1 request(s) whose prompt is longer than max_model_len (9,000 tokens > 4,096)")


def test_limits_in_effect_at_start_up_are_settings():
    text = (REAL32 / "startup.log").read_text()
    summary = scan_vllm_lines(text.split("\n"))
    # the non-default args line names them first; the later lines do not override it
    assert summary.settings["max_num_batched_tokens"] == 1024 and summary.settings["enable_chunked_prefill"] is True
    lines = [l for l in text.split("\n") if "non-default args" not in l and "with config:" not in l]
    settings = scan_vllm_lines(lines).settings
    assert settings == {"max_model_len": 1024, "max_num_batched_tokens": 1024, "enable_chunked_prefill": True}


def test_a_concurrency_line_apart_from_its_size_line_is_read_once():
    size = "INFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381"
    conc = "INFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x"
    together = scan_vllm_lines([size, conc])
    assert together.startups == 1 and together.kv_capacity.max_concurrency == 10.79
    apart = scan_vllm_lines([size] + ["INFO 01-30 03:19:14 other.py:1] something"] * 5 + [conc])
    assert apart.startups == 1 and apart.kv_capacity.max_concurrency == 10.79  # (it follows the size line)
    alone = scan_vllm_lines([conc])
    assert alone.kv_capacity.tokens_per_request == 2048 and alone.startups == 1


def test_past_the_exact_head_only_anchored_lines_are_read():
    filler = "INFO: 127.0.0.1:5555 - \"GET /metrics HTTP/1.1\" 200 OK"
    tail = ["ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.",
            "INFO 05-09 00:49:29 [model.py:2152] Using max model len 8192"]  # INFO: no anchor, not read there
    text = "\n".join([filler] * (EXACT_LINES + 10) + tail) + "\n"
    for summary in all_feeds(text)[1:]:
        assert summary.no_kv_memory is not None and "max_model_len" not in summary.settings


@pytest.mark.parametrize("line", [
    "Desired GPU memory utilization is (", "ree memory on device (x/y GiB) on startup is less than desired GPU memory "
    "utilization (0.9, GiB)", "Maximum concurrency for tokens per request: x", "Maximum concurrency for 99999999999999999999",
    "Using max model len abc", "Chunked prefill is enabled with max_num_batched_tokens=.", "non-default args: {'a': 1}}}```",
    "non-default args: {", "User-specified max_model_len (", "User-specified max_model_len (12) is greater than the "
    "derived max_model_len (x=", "x gpu_memory_utilization (1e5)", "esired GPU memory utilization \x00\xff",
    "The prompt (total length 9) is too long to fit into the model (context length", "exceeds the capacity of block_manager",
    "Running: 1 reqs, Waiting: 2 reqs, KV fetch: 1 waiting, 2, 3, 4, GPU KV cache usage: x%",
])
def test_garbage_near_the_new_marks_gives_no_traceback(line):
    for summary in all_feeds(line + "\n" + line[: len(line) // 2]):
        assert summary.lines >= 1


# The stats lines of vllm-project/vllm#1734 (V0: prompt throughput over 1000 tokens/s, generation 0,
# requests pending), as tests/engines/vllm/test_vllm_facts_checks.py uses them.
HALT_LINES = (
    "INFO 11-21 00:12:13 llm_engine.py:624] Avg prompt throughput: 1032.4 tokens/s, Avg generation throughput: 0.0 "
    "tokens/s, Running: 22 reqs, Swapped: 0 reqs, Pending: 7 reqs, GPU KV cache usage: 27.1%, CPU KV cache usage: 0.0%",
    "INFO 11-21 00:12:18 llm_engine.py:624] Avg prompt throughput: 1096.2 tokens/s, Avg generation throughput: 0.0 "
    "tokens/s, Running: 24 reqs, Swapped: 0 reqs, Pending: 5 reqs, GPU KV cache usage: 29.4%, CPU KV cache usage: 0.0%",
)
# vllm/config.py:1459 @ v0.6.6.post1, as llm-compressor#1560 quotes it (0.9.1)
CHUNKED = "INFO 06-17 00:26:46 [config.py:2195] Chunked prefill is enabled with max_num_batched_tokens=8192."


@pytest.mark.parametrize("lines,on", [(HALT_LINES, False), ((CHUNKED,) + HALT_LINES, True)])
def test_a_v0_log_that_says_chunked_prefill_is_on_is_not_told_to_turn_it_on(tmp_path, specs, lines, on):
    [f] = run_check(specs["vllm-prefill-interference"], log_store(tmp_path, "\n".join(lines) + "\n")).findings
    assert ("turn chunked prefill on" in f.fix.summary) is not on
    assert ("--enable-chunked-prefill" in f.fix.commands[0]) is not on


def test_the_token_budget_in_effect_sets_the_smaller_one_proposed(tmp_path, specs):
    line = CHUNKED.replace("8192", "16384")  # (a quarter of the budget in effect, not of the default 8192)
    [f] = run_check(specs["vllm-prefill-interference"], log_store(tmp_path, "\n".join((line,) + HALT_LINES))).findings
    assert f.fix.commands[0].endswith("--max-num-batched-tokens 4096")
