"""SGLang's log scanner on every version's wording (knowledge/sglang/catalogue.py lists them with
their source): truncations kept apart from refusals, queue-full aborts, the start-up memory and
sizing lines, the batch-line variants, records hard-wrapped after a key; and garbage."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from llmdoctor.knowledge.sglang.log import parse_batch_line, scan_sglang_lines

EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"


def scan(*lines):
    return scan_sglang_lines(list(lines), "t")


def test_truncation_real_quote_is_a_truncation_not_a_refusal():
    s = scan_sglang_lines((EVIDENCE / "sglang-truncated" / "sglang.log").read_text().splitlines(), "runpod#14")
    assert (s.truncations, s.refusals, s.truncation_max) == (1, 0, None)
    assert s.last_batch.cached_tokens == 1513 and s.last_batch.token_usage == 1.0


def test_truncated_with_lengths_and_the_tokenizer_managers_truncating():
    s = scan("Request length is longer than the KV cache pool size or the max context length. Truncated. "
             "len(req.origin_input_ids)=70312, max_req_input_len=65530.",
             "The input (41250 tokens) is longer than the model's context length (32768 tokens). Truncating the input.",
             "The input (85050 tokens) is longer than the model's context length (32768 tokens).")
    assert (s.truncations, s.truncation_max) == (2, (70312, 65530))
    assert (s.refusals, s.refusal_max) == (1, (85050, 32768))


def test_queue_full_abort():
    s = scan('HTTP/1.1 503 Service Unavailable {"detail":"The request queue is full."}',
             "Error: Streaming response failed: [503] The request queue is full.")
    assert s.queue_full == 2 and not s.empty


def test_batch_variants_mixed_pd_mamba_graph_and_prefixes():
    mixed = parse_batch_line("[17:05:09 TP0] Prefill batch(mixed #running-req: 5). #new-seq: 1, #new-token: 4096, "
                             "#cached-token: 0, cache hit rate: 0.00%, #queue-req: 3")
    assert (mixed.kind, mixed.running, mixed.queue, mixed.new_tokens) == ("prefill", 5, 3, 4096)
    pd = parse_batch_line("Prefill batch. #new-seq: 3, #new-token: 12288, #cached-token: 0, token usage: 0.31, "
                          "#unbootstrapped-req: 0, #queue-req: 17, #transferring-req: 4, ")
    assert (pd.running, pd.queue) == (0, 17)
    mamba = parse_batch_line("[2026-07-04 04:31:27 TP0] Prefill batch, #new-seq: 12, #new-token: 43264, "
                             "#cached-token: 0, full token usage: 0.20, mamba usage: 0.30, #running-req: 13, "
                             "#queue-req: 85, #pending-token: 340001, npu graph: False, input throughput (token/s): 14947.07")
    assert (mamba.token_usage, mamba.cuda_graph, mamba.queue) == (0.3, False, 85)
    cp = parse_batch_line("[2026-07-10 17:00:22 ATTN_CP4 TP4] Prefill batch, #new-seq: 1, #new-token: 384, "
                          "#cached-token: 150144, token usage: 0.19, #running-req: 1, #queue-req: 0")
    assert cp.time == "2026-07-10 17:00:22"
    ms = parse_batch_line("[2026-08-01 10:00:00.123 TP0] Decode batch [42], #running-req: 2, #token: 9, "
                          "token usage: 0.01, cuda graph: True, gen throughput (token/s): 55.00, #queue-req: 0")
    assert (ms.time, ms.cuda_graph, ms.running) == ("2026-08-01 10:00:00", True, 2)


def test_a_record_wrapped_after_a_key_is_joined_and_a_last_held_line_is_kept():
    s = scan("[17:05:09 TP0] Prefill batch(mixed #running-req: 5). #new-seq: 1, #new-token: 4096, #cached-token:",
             " 0, cache hit rate: 0.00%, #queue-req: 3",
             "[17:05:10 TP0] Decode batch. #running-req: 6, #token: 9000, token usage: 0.5, gen throughput (token/s):")
    assert [(b.kind, b.queue) for b in s.recent] == [("prefill", 3)]
    assert s.lines == 3  # the held last line was read (no batch: it lost its #queue-req)
    s = scan("Summary:", "  Decode batch. #running-req: 1, #token: 5, token usage: 0.00, #queue-req: 0")
    assert s.batch_lines == 1  # a continuation that is no value is its own line


def test_start_up_memory_and_sizing_lines():
    s = scan("[2025-07-02 07:41:58 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, "
             "avail mem=21.73 GB, mem usage=166.59 GB.",
             "[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. "
             "Use the profiled value instead.",
             "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, "
             "K size: 3.46 GB, V size: 3.46 GB",
             "[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=8.40 GB",
             "[2026-01-31 13:50:39 TP2] Use sliding window memory pool. full_layer_tokens=375360, swa_layer_tokens=300288",
             "Multimodal model: Dynamically adjusted --mem-fraction-static from: 0.880 to: 0.748.",
             "Warning: User-specified context_length (131072) is greater than the derived context_length (32768).",
             "Hybrid GDN model detected, disable radix cache",
             "server_args: enable_flashinfer=False, attention_reduce_in_fp32=False, disable_radix_cache=True, ")
    st = s.settings
    assert (st["avail_mem_after_weights_gb"], st["weights_gb"]) == (21.73, 166.59)
    assert (st["max_total_tokens"], st["profiled_max_total_tokens"]) == (131072, -561981)
    assert (st["kv_cache_tokens"], st["kv_cache_gb"], st["avail_mem_after_pool_gb"]) == (454112, 6.92, 8.4)
    assert (st["full_layer_tokens"], st["swa_layer_tokens"]) == (375360, 300288)
    assert st["mem_fraction_static"] == 0.748
    assert (st["context_length"], st["derived_context_length"]) == (131072, 32768)
    assert st["radix_cache_auto_off"] and st["disable_radix_cache"] is True
    assert scan("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
                "mem_fraction_static=0.7").settings == {"not_enough_memory": True, "mem_fraction_static": 0.7}


GARBAGE = [
    "", ":", "#", " :", "Decode batch. ", "Decode batch, #running-req: x, #queue-req: y",
    "Prefill batch(mixed #running-req: ). #new-seq:", "Prefill batch, #queue-req: 3",
    "KV Cache is allocated. #tokens: , K size: 1.2.3 GB, V size: 4 GB",
    "KV Cache is allocated. #tokens: 5, K size: 1.2.3 GB, V size: 4 GB",
    "Load weight end. avail mem=1.2.3 GB, mem usage=.. GB", "Memory pool end. avail mem=. GB",
    "max_total_num_tokens=1, chunked_prefill_size=-1, max_running_requests=2, available_gpu_mem=1.2.3 GB",
    "server_args: disable_radix_cache=((((, context_length=1e99999, mem_fraction_static=[",
    "server_args=ServerArgs(context_length=" + "(" * 3000 + ")",
    "Truncated. len(req.origin_input_ids)=, max_req_input_len=",
    "Automatically reduce --mem-fraction-static to . because", "derived context_length (x)",
    "The request queue is full", "radix cache" * 50, "\x00\xff\u2028 #running-req: 1:",
]


@pytest.mark.parametrize("line", GARBAGE)
def test_garbage_never_raises(line):
    s = scan(line, line + ":", " " + line)
    assert s.lines == 3


def test_random_bytes_never_raise():
    rnd = random.Random(7)
    alphabet = "#:.,=()[] -0123456789abcdeTFGBKVmx_\t"
    lines = ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 120))) for _ in range(400)]
    seeds = ["Decode batch, #running-req: ", "KV Cache is allocated. #tokens: ", "Truncated", "mem usage=",
             "max_total_num_tokens=", "server_args: ", "context_length (", "queue is full", "Load weight end. "]
    lines += [rnd.choice(seeds) + l for l in lines[:200]]
    s = scan_sglang_lines(lines, "fuzz")
    assert s.lines == 600
