"""The vLLM log scanner on every real sample (tests/fixtures/vllm/README.md names the sources),
on the documented V1 format, on garbage, and line mode == chunk mode == block mode."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.judge.vllm import kv_full_run
from llmdoctor.knowledge.vllm.log import VllmLogScanner, scan_vllm_lines, scan_vllm_stream

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "vllm"


def scan(name: str):
    text = (FIX / name).read_text()
    by_line = scan_vllm_lines(text.splitlines(), name)
    by_chunk = scan_vllm_stream(io.BytesIO(text.encode()), name)
    blocks = VllmLogScanner(name)
    blocks.feed_block(text)
    assert by_line == by_chunk == blocks.result()
    return by_line


def test_v0_warning_with_tqdm_junk_and_swap_mode():
    r = scan("preempt_v0_tqdm_5578.log")
    assert r.preemption_warnings == 1
    assert r.preemption_modes == (("SWAP", 1),)
    assert r.last_cumulative == r.max_cumulative == 151
    assert r.engine_version == "v0"
    s = r.recent_stats[-1]  # the stats record after the progress bar on the same line
    assert (s.running, s.swapped, s.waiting, s.kv_usage_pct, s.cpu_kv_usage_pct) == (34, 100, 9832, 99.2, 70.4)
    assert s.time == "06-16 21:24:15"
    assert s.prompt_tps == 2706.1 and s.generation_tps == 13395.4


def test_v0_warning_cut_off_before_its_count():
    r = scan("preempt_v0_truncated_546.log")
    assert r.preemption_warnings == 1 and r.last_cumulative is None and r.preemptions_at_least == 1
    assert [s.waiting for s in r.recent_stats] == [98, 98]
    assert r.longest_waiting_run.length == 2


def test_v0_recompute_without_log_prefix_and_docs_suffix_spelling():
    assert scan("preempt_v0_limo_29.log").preemption_modes == (("RECOMPUTE", 1),)
    docs = scan("preempt_v0_docs.log")
    assert docs.max_cumulative == 1 and docs.preemption_warnings == 1


def test_cumulative_counts_across_a_restart():
    line = ("WARNING 05-09 00:49:33 scheduler.py:1057] Sequence group {i} is preempted by PreemptionMode.RECOMPUTE "
            "mode because there is not enough KV cache space. total_num_cumulative_preemption={n}")
    lines = [line.format(i=i, n=n) for i, n in enumerate([1, 51, 101, 1, 51])]
    r = scan_vllm_lines(lines)
    assert r.preemption_warnings == 5
    assert r.preemptions_at_least == 101 + 51  # two start-ups
    assert r.max_cumulative == 101 and r.last_cumulative == 51


@pytest.mark.parametrize("name, expected", [
    ("kv_v0_dropped_hash_10517.log", dict(gpu_blocks=1952, cpu_blocks=2048, max_concurrency=1.56, tokens_per_request=20000)),
    ("kv_v0_max_seq_len_10517.log", dict(gpu_blocks=1478, cpu_blocks=2048, max_concurrency=0.82, tokens_per_request=29000)),
    ("kv_v0_ray_prefix_openrlhf_336.log", dict(gpu_blocks=378, cpu_blocks=1638)),
    ("kv_v1_blocks_12569.log", dict(gpu_blocks=1381, max_concurrency=10.79, tokens_per_request=2048)),
    ("kv_v1_blocks_13596.log", dict(gpu_blocks=127626, max_concurrency=997.08, tokens_per_request=2048)),
    ("kv_v1_tokens_13596.log", dict(kv_tokens=2042016, max_concurrency=997.08, tokens_per_request=2048)),
    ("kv_v1_process_prefix_lmcache_1739.log", dict(available_gib=6.51, kv_tokens=42656, max_concurrency=1.30, tokens_per_request=32768)),
    ("kv_v1_available_21348.log", dict(available_gib=8.11, kv_tokens=178880)),
    ("kv_v1_fp8_25350.log", dict(available_gib=10.55, kv_tokens=230528, max_concurrency=2.31, tokens_per_request=100000)),
])
def test_kv_capacity_in_every_startup_format(name, expected):
    cap = scan(name).kv_capacity
    got = {k: getattr(cap, k) for k in expected}
    assert got == expected
    assert cap.lines


def test_kv_capacity_one_line_form_of_0_33():
    # Format string quoted from vllm/v1/core/kv_cache_utils.py (vllm#54662); no real log exists yet.
    line = ("(EngineCore_DP0 pid=7) INFO 09-01 10:00:00 [kv_cache_utils.py:1203] GPU KV cache size: 42,656 tokens, "
            "Maximum concurrency for 32,768 tokens per request: 1.30x")
    cap = scan_vllm_lines([line]).kv_capacity
    assert (cap.kv_tokens, cap.tokens_per_request, cap.max_concurrency) == (42656, 32768, 1.30)


def test_v0_cuda_blocks_wording_of_0_7_to_0_10():
    # `# %s blocks: %d, # CPU blocks: %d` with the device name (vllm/executor/executor_base.py, FACTS.md 5.3)
    lines = ["INFO 03-02 10:00:00 executor_base.py:111] # cuda blocks: 2466, # CPU blocks: 512",
             "INFO 03-02 10:00:00 executor_base.py:116] Maximum concurrency for 8192 tokens per request: 4.82x"]
    cap = scan_vllm_lines(lines).kv_capacity
    assert (cap.gpu_blocks, cap.cpu_blocks, cap.max_concurrency) == (2466, 512, 4.82)


def test_two_startups_keep_the_last():
    text = (FIX / "kv_v1_process_prefix_lmcache_1739.log").read_text() + (FIX / "kv_v1_fp8_25350.log").read_text()
    r = scan_vllm_lines(text.splitlines())
    assert r.startups == 2
    assert r.kv_capacity.max_concurrency == 2.31 and r.kv_capacity.available_gib == 10.55


@pytest.mark.parametrize("name, seq, kv_tokens, estimate", [
    ("kv_v0_max_seq_len_10517.log", 29000, 23648, None),
    ("max_seq_len_v0_qwen_295.log", 32768, 7344, None),
    ("max_seq_len_v1_16118.log", 1048576, None, None),
    ("max_seq_len_v1_34076.log", 262144, None, 34736),
])
def test_max_seq_len_refusal(name, seq, kv_tokens, estimate):
    err = scan(name).max_seq_len_error
    assert (err.max_seq_len, err.kv_tokens, err.estimated_max_len) == (seq, kv_tokens, estimate)


def test_v1_stats_lines_concatenated_without_newline():
    r = scan("stats_v1_concatenated_18115.log")
    assert r.stats_lines == 3
    assert [s.kv_usage_pct for s in r.recent_stats] == [91.2, 91.6, 91.9]
    assert [s.time for s in r.recent_stats] == ["07-28 06:40:59", "07-28 06:41:09", "07-28 06:41:19"]
    assert r.recent_stats[-1].text.startswith("INFO 07-28 06:41:19")
    assert r.engine_version == "v1" and r.max_waiting == 0


def test_v1_stats_with_process_prefix_and_access_lines():
    r = scan("stats_v1_apiserver_37307.log")
    assert [(s.running, s.waiting) for s in r.recent_stats] == [(10, 90), (16, 84)]
    assert r.waiting_prompt_over(10) == 2 and r.max_in_flight == 100
    r = scan("stats_v1_access_llmscaler_391.log")
    assert r.stats_lines == 1 and r.recent_stats[0].prefix_hit_pct == 92.0


def test_v1_optional_fields_from_the_0_12_format_string():
    # `Engine 000: ` + ", ".join(...) in vllm/v1/metrics/loggers.py (0.12+); Deferred and Preemptions optional.
    lines = [
        "(APIServer pid=1) INFO 03-17 15:38:10 [loggers.py:259] Engine 000: Avg prompt throughput: 10.0 tokens/s, "
        "Avg generation throughput: 300.0 tokens/s, Running: 12 reqs, Waiting: 3 reqs, Deferred: 1 reqs, "
        "Preemptions: 4, GPU KV cache usage: 97.5%, Prefix cache hit rate: 55.0%",
        "(APIServer pid=1) INFO 03-17 15:38:20 [loggers.py:259] 2 Engines Aggregated: Avg prompt throughput: 0.0 "
        "tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, XPU KV cache usage: 5.0%",
    ]
    r = scan_vllm_lines(lines)
    a, b = r.recent_stats
    assert (a.deferred, a.preemptions, a.kv_usage_pct, a.prefix_hit_pct) == (1, 4, 97.5, 55.0)
    assert (b.engines_aggregated, b.kv_device, b.prefix_hit_pct, b.preemptions) == (2, "XPU", None, None)
    assert r.v1_preemptions == 4 and r.stats_with_preemptions == 1


def test_v0_prefix_cache_line_after_the_stats_line():
    lines = [
        "INFO 10-28 11:16:34 metrics.py:349] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 7220.5 "
        "tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 98 reqs, GPU KV cache usage: 73.8%, CPU KV cache usage: 0.0%.",
        "INFO 10-28 11:16:34 metrics.py:365] Prefix cache hit rate: GPU: 12.50%, CPU: 0.00%",
    ]
    assert scan_vllm_lines(lines).recent_stats[-1].prefix_hit_pct == 12.5


def test_queue_overflow_text():
    body = ('{"error": {"message": "The engine is currently busy and cannot accept new requests. '
            'Please try again later or on a different instance.", "code": 503}}')
    r = scan_vllm_lines([body], client_errors=True)  # what a client received
    assert r.queue_overflows == 1 and "currently busy" in r.queue_overflow_example
    sc = VllmLogScanner(client_errors=True)
    sc.feed_bytes(("x\n" + body + "\n").encode(), final=True)
    assert sc.result().queue_overflows == 1
    logged = "ERROR 09-01 10:00:00 [serving.py:1] vllm.exceptions.QueueOverflowError: The engine is currently busy"
    assert scan_vllm_lines([logged]).queue_overflows == 1  # in a server log: the exception name
    assert scan_vllm_stream(io.BytesIO(logged.encode())).queue_overflows == 1


def test_runs_of_waiting_and_full_kv():
    line = ("INFO 07-28 06:40:59 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
            "throughput: 9.0 tokens/s, Running: 8 reqs, Waiting: {w} reqs, GPU KV cache usage: {kv}%, Prefix cache hit rate: 0.0%")
    seq = [(0, 50), (3, 96), (5, 99), (2, 97), (0, 80), (1, 99)]
    r = scan_vllm_lines([line.format(w=w, kv=kv) for w, kv in seq])
    assert r.longest_waiting_run.length == 3 and r.longest_waiting_run.peak == 5
    assert kv_full_run(r).length == 3 and kv_full_run(r).peak == 99
    assert r.waiting_lines == 4


def test_memory_is_bounded():
    line = ("INFO 07-28 06:40:59 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
            "throughput: 9.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 50.0%")
    sc = VllmLogScanner(keep_stats=10)
    for _ in range(1000):
        sc.feed_line(line)
    r = sc.result()
    assert r.stats_lines == 1000 and len(r.recent_stats) == 10


def test_chunk_boundaries_do_not_matter():
    text = "\n".join((FIX / n).read_text() for n in sorted(p.name for p in FIX.glob("*.log")))
    whole = scan_vllm_lines(text.splitlines())
    data = text.encode()
    for size in (1, 7, 64, 1000):
        sc = VllmLogScanner()
        for i in range(0, len(data), size):
            sc.feed_bytes(data[i:i + size])
        sc.feed_bytes(b"", final=True)
        assert sc.result() == whole, size


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=200),
    st.sampled_from([
        "Running: 1 reqs, Waiting: x reqs, GPU KV cache usage: %",
        "Sequence group is preempted by PreemptionMode. mode KV cache",
        "# GPU blocks: , # CPU blocks:",
        "Maximum concurrency for tokens per request: x",
        "GPU KV cache size: ,,, tokens",
        "max seq len (1) is larger than the maximum number of tokens that can be stored in KV cache (",
    ])), max_size=30))
def test_garbage_never_raises(lines):
    a = scan_vllm_lines(lines)
    b = scan_vllm_stream(io.BytesIO("\n".join(lines).encode("utf-8", "surrogatepass")))
    assert a.stats_lines >= 0 and b.preemption_warnings >= 0


_POOL = [p.read_text().splitlines() for p in sorted(FIX.glob("*.log"))]
_LINES = [line for lines in _POOL for line in lines] + [
    "INFO 10-28 11:16:34 metrics.py:365] Prefix cache hit rate: GPU: 12.50%, CPU: 0.00%",
    "ERROR 09-01 10:00:00 [serving.py:1] QueueOverflowError: The engine is currently busy",
    "## a markdown heading in a logged prompt",
    "(APIServer pid=851) INFO:     10.109.20.86:59146 - \"GET /metrics HTTP/1.1\" 200 OK",
    "",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=40), st.integers(1, 400), st.booleans())
def test_chunked_and_block_scans_equal_the_line_scan(lines, chunk, glue):
    if glue and len(lines) > 1:  # a lost newline glues two lines together
        lines = [lines[0] + lines[1]] + lines[2:]
    text = "\n".join(lines)
    expected = scan_vllm_lines(text.split("\n"))
    sc = VllmLogScanner()
    data = text.encode()
    for i in range(0, len(data), chunk):
        sc.feed_bytes(data[i:i + chunk])
    sc.feed_bytes(b"", final=True)
    assert sc.result() == expected
    blocks, raw = VllmLogScanner(), VllmLogScanner()
    parts = text.split("\n")
    for i in range(0, len(parts), 3):
        blocks.feed_block("\n".join(parts[i:i + 3]))
        raw.feed_raw_block("\n".join(parts[i:i + 3]).encode())
    assert blocks.result() == expected
    assert raw.result() == expected


def test_journald_prefixes_and_all_three_vllm_prefix_styles():
    stats = ("Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, "
             "Waiting: 4 reqs, GPU KV cache usage: 5.0%, Prefix cache hit rate: 6.0%")
    lines = [
        f"Aug 08 23:02:37 gpu1 vllm[1617]: INFO 05-09 00:49:33 metrics.py:341] {stats}",  # <= 0.6
        f"2026-08-01T07:02:33+0000 gpu1 vllm[1617]: INFO 07-28 06:40:59 [loggers.py:118] Engine 000: {stats}",
        f"(APIServer pid=11574) INFO 03-17 15:38:10 [loggers.py:259] Engine 000: {stats}",  # >= 0.11, V1 processes
    ]
    r = scan_vllm_lines(lines)
    assert [s.time for s in r.recent_stats] == ["05-09 00:49:33", "07-28 06:40:59", "03-17 15:38:10"]
    assert all((s.running, s.waiting, s.prefix_hit_pct) == (3, 4, 6.0) for s in r.recent_stats)


def test_requests_refused_for_max_model_len():
    # vllm#10440 (V0 scheduler, the line pasted from mid-line), the real vLLM 0.32 here (OpenAI
    # server wording, client side), vllm's input processor wording
    s = scan_vllm_lines(["scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000"])
    assert (s.prompts_too_long, s.prompt_too_long_max) == (1, (36893, 1000))
    s = scan_vllm_lines(['{"error":{"message":"This model\'s maximum context length is 1024 tokens. However, your prompt '
                         'contains at least 1025 input tokens, which exceeds this limit even without any output tokens."}}',
                         "The decoder prompt (length 12324) is longer than the maximum model length of 8192.",
                         '{"error":{"message":"max_tokens=2000 cannot be greater than max_model_len=1024."}}'],
                        client_errors=True)
    assert s.prompts_too_long == 3 and s.prompt_too_long_max == (12324, 8192) and s.output_too_long == 1
    # the newer wording for output tokens beyond the limit (as pasted in many clients' public
    # error reports): the prompt fits, so it is counted without a prompt figure
    s = scan_vllm_lines(['{"error":{"message":"\'max_tokens\' or \'max_completion_tokens\' is too large: 8000. This '
                         "model's maximum context length is 4096 tokens and your request has 2778 input tokens "
                         '(8000 > 4096 - 2778). None","type":"BadRequestError","param":null,"code":400}}'],
                        client_errors=True)
    assert (s.prompts_too_long, s.prompt_too_long_max, s.output_too_long) == (1, None, 1)


def test_settings_from_the_start_up_line():
    # the real vLLM 0.32 here (non-default args) and vllm#2418 (V0 `with config:`)
    s = scan_vllm_lines(["(APIServer pid=25400) INFO 12-01 08:07:32 [api_utils.py:286] non-default args: {'model_tag': "
                         "'/srv/tiny', 'max_model_len': 1024, 'enforce_eager': True, 'max_num_seqs': 16, 'api_key': ['x']}"])
    assert s.settings == {"max_model_len": 1024, "max_num_seqs": 16}
    s = scan_vllm_lines(["INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: model='/m', "
                         "dtype=torch.float16, max_seq_len=4096, tensor_parallel_size=1, quantization=None, seed=0)"])
    assert s.settings == {"max_model_len": 4096, "tensor_parallel_size": 1}
    assert scan_vllm_lines(["non-default args: {broken"]).settings == {}


def test_kv_runs_are_read_at_every_level_and_judged_at_the_thresholds_one():
    """The scanner notes the longest run at each whole level from its floor (a reading); the
    judge's VLLM_KV_FULL_PCT picks one of them (knowledge never says "full")."""
    from llmdoctor.judge.thresholds import VLLM_KV_FULL_PCT
    from llmdoctor.knowledge.vllm.log import KV_RUN_FLOOR_PCT, kv_levels

    assert VLLM_KV_FULL_PCT in kv_levels(KV_RUN_FLOOR_PCT)
    line = ("INFO 04-28 10:00:0{i} [loggers.py:259] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation "
            "throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: {kv}%, Prefix cache hit "
            "rate: 0.0%")
    kvs = (50.0, 91.0, 96.0, 97.5, 92.0, 99.0, 40.0)
    r = scan_vllm_lines([line.format(i=i, kv=kv) for i, kv in enumerate(kvs)])
    runs = dict(r.kv_high_runs)
    assert (runs[90].length, runs[90].peak) == (5, 99.0)
    assert (runs[95].length, runs[95].first.kv_usage_pct, runs[95].last.kv_usage_pct) == (2, 96.0, 97.5)
    assert runs[99].length == 1 and 100 not in runs
    assert kv_full_run(r) is runs[VLLM_KV_FULL_PCT]
    for bad in ([], ["garbage KV cache usage: x%"], [line.format(i=0, kv="nan")]):
        assert kv_full_run(scan_vllm_lines(bad)) is None


def test_waiting_lines_counted_at_each_prompt_ratio_and_the_judge_reads_one_of_them():
    """Issue 26: the scanner reports how many waiting lines exceeded each ratio of prompt to
    generation throughput (generation read as at least 1 token/s); the judge's ratio is one of them."""
    from llmdoctor.judge.thresholds import VLLM_PREFILL_OVER_GENERATION
    from llmdoctor.knowledge.vllm.log import PROMPT_RATIOS, scan_vllm_lines

    assert VLLM_PREFILL_OVER_GENERATION in PROMPT_RATIOS
    line = ("INFO 04-28 10:00:{s:02d} [loggers.py:259] Engine 000: Avg prompt throughput: {pt} tokens/s, Avg "
            "generation throughput: {gt} tokens/s, Running: 4 reqs, Waiting: {w} reqs, GPU KV cache usage: 40.0%, "
            "Prefix cache hit rate: 0.0%")
    rows = [(2500.0, 100.0, 3), (30.0, 0.0, 1), (900.0, 1.0, 2), (5000.0, 1.0, 0), (100.0, 10.0, 5)]
    r = scan_vllm_lines([line.format(s=i, pt=pt, gt=gt, w=w) for i, (pt, gt, w) in enumerate(rows)])
    assert r.waiting_lines == 4
    assert dict(r.waiting_prompt_ratios) == {1: 4, 2: 4, 5: 4, 10: 3, 20: 3, 50: 1, 100: 1}
    assert r.waiting_prompt_over(10) == 3 and r.waiting_prompt_over(3) is None  # 10x itself is not over
