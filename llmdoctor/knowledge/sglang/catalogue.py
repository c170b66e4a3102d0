"""SGLang's messages that carry a fact a cause needs, from SGLang's own source.

Read from the PyPI sdists (sgl-project/sglang builds its releases from the tags; paths as in the
package, `sglang/srt/...`, which is `python/sglang/srt/...` in the repository) at 0.1.16, 0.2.0,
0.2.15, 0.3.6, 0.4.0, 0.4.6, 0.4.10, 0.5.2 and 0.5.10.post1 (the newest sdist). Line numbers move
in every release; the format string is what is matched. Versions are "first-last version read
that prints this wording". The table format: knowledge/messages.py.
"""
from __future__ import annotations

from llmdoctor.knowledge.messages import message

E = "sglang"
FIX = "tests/fixtures/sglang/"
ISSUE = "https://github.com/sgl-project/sglang/issues/"
PULL = "https://github.com/sgl-project/sglang/pull/"
# SGLang's own docs, the log of a 2-node DeepSeek-V3 start (2025-02-17)
DOCS_K8S = "https://github.com/sgl-project/sglang/blob/main/docs/references/multi_node_inference_k8s_lws.md"


def _r(where: str) -> str:
    return f"rendered from {where}"


MESSAGES = (
    # --- scheduler batch lines: queue, running, KV pool use, prompt cache ---------------------------
    message(
        "sglang.batch.decode_0_1", E, "0.1.x",
        "sglang/srt/managers/router/model_rpc.py:245 @ v0.1.16",
        r"(?<!batch[.,] )(?<!\], )#running-req: \d+, #token: \d+, token usage: [\d.]+, "
        r"(?:gen throughput \(token/s\): [\d.]+, )?#queue-req: \d+",
        "#running-req: ", facts=("running requests", "waiting requests", "KV pool use"),
        causes=("QUEUEING", "KV_CAPACITY"),
        examples=[("#running-req: 233, #token: 370959, token usage: 0.82, gen throughput (token/s): 4594.01, "
                   "#queue-req: 417", _r("sglang/srt/managers/router/model_rpc.py:245 @ v0.1.16"))],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", 233), ("last_batch.queue", 417),
                ("last_batch.token_usage", 0.82)],
        note="no `Decode batch.` head yet; the line starts at #running-req. Real, with a `[gpu_id=0] ` prefix: "
             "tests/fixtures/sglang/decode_0_1_tuning_doc.log (kept out of the examples: pasted behind kubectl's "
             "--timestamps, repair_log takes `[gpu_id=0] #running-req:` for a journald host and ident)",
    ),
    message(
        "sglang.batch.new_fill_batch", E, "0.1.x",
        "sglang/srt/managers/router/model_rpc.py:397 @ v0.1.16",
        r"new fill batch\. #seq: \d+\. (?:#cached_token: \d+\. )?#new_token: \d+\. #remaining_req: \d+\. "
        r"#running_req: \d+", "new fill batch",
        facts=("prompt tokens computed", "prompt tokens from the radix cache", "waiting requests"),
        causes=("QUEUEING", "PREFILL"),
        examples=[("new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. #remaining_req: 57. "
                   "#running_req: 9. tree_cache_hit_rate: 69.16%", ISSUE + "444"),
                  ("new fill batch. #seq: 7. #cached_token: 1541. #new_token: 4. #remaining_req: 0. #running_req: 0",
                   ISSUE + "55")],
        expect=[("last_batch.kind", "prefill"), ("last_batch.cached_tokens", True), ("last_batch.new_tokens", True)],
        note="#remaining_req is what still waits after this fill (the later #queue-req)",
    ),
    message(
        "sglang.batch.decode_gpu_id", E, "0.2.0-0.2.x",
        "sglang/srt/managers/controller/tp_worker.py:240 @ v0.2.0",
        r"\[gpu_id=\d+\] Decode batch\. #running-req: \d+, #token: \d+, token usage: [\d.]+", "] decode batch.",
        facts=("running requests", "waiting requests", "KV pool use", "generation throughput"),
        causes=("QUEUEING", "KV_CAPACITY"),
        examples=[("[gpu_id=0] Decode batch. #running-req: 36, #token: 20384, token usage: 0.91, "
                   "gen throughput (token/s): 812.44, #queue-req: 12", _r("sglang/srt/managers/controller/tp_worker.py:240 @ v0.2.0"))],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", 36), ("last_batch.queue", 12),
                ("last_batch.token_usage", 0.91), ("max_queue", 12)],
    ),
    message(
        "sglang.batch.prefill_gpu_id", E, "0.2.0-0.2.x",
        "sglang/srt/managers/controller/tp_worker.py:416 @ v0.2.0",
        r"\[gpu_id=\d+\] Prefill batch\. #new-seq: \d+, #new-token: \d+, #cached-token: \d+", "] prefill batch.",
        facts=("prompt tokens computed", "prompt tokens from the radix cache", "cache hit rate", "waiting requests"),
        causes=("PREFILL", "QUEUEING"),
        examples=[("[gpu_id=0] Prefill batch. #new-seq: 2, #new-token: 3810, #cached-token: 24, cache hit rate: "
                   "0.62%, #running-req: 30, #queue-req: 7", _r("sglang/srt/managers/controller/tp_worker.py:416 @ v0.2.0"))],
        expect=[("last_batch.kind", "prefill"), ("last_batch.new_tokens", 3810), ("last_batch.cached_tokens", 24),
                ("last_batch.running", 30), ("last_batch.queue", 7)],
        note="no token usage in this version's prefill line",
    ),
    message(
        "sglang.batch.prefill_mixed", E, "0.2.x (mixed chunked prefill)",
        "sglang/srt/managers/tp_worker.py:464 @ v0.2.15",
        r"Prefill batch\(mixed #running-req: \d+\)\. #new-seq: \d+", "prefill batch(mixed",
        facts=("running requests", "prompt tokens computed", "waiting requests"), causes=("PREFILL", "QUEUEING"),
        examples=[("[17:05:09 TP0] Prefill batch(mixed #running-req: 5). #new-seq: 1, #new-token: 4096, #cached-token: 0, "
                   "cache hit rate: 0.00%, #queue-req: 3", _r("sglang/srt/managers/tp_worker.py:464 @ v0.2.15"))],
        expect=[("last_batch.kind", "prefill"), ("last_batch.running", 5), ("last_batch.queue", 3),
                ("last_batch.new_tokens", 4096)],
        note="the only #running-req is inside the parentheses",
    ),
    message(
        "sglang.batch.prefill_cache_hit_rate", E, "0.2.x-0.4.3",
        "sglang/srt/managers/tp_worker.py:474 @ v0.2.15; sglang/srt/managers/scheduler.py:656 @ v0.3.6, :700 @ v0.4.0, "
        ":771 @ v0.4.3",
        r"Prefill batch\. #new-seq: \d+, #new-token: \d+, #cached-token: \d+, cache hit rate: [\d.]+%",
        "cache hit rate: ",
        facts=("prompt tokens computed", "prompt tokens from the radix cache", "cache hit rate", "KV pool use",
               "waiting requests"), causes=("PREFILL", "QUEUEING"),
        examples=[("[2024-11-29 10:28:29 TP0] Prefill batch. #new-seq: 2, #new-token: 2048, #cached-token: 888, "
                   "cache hit rate: 0.00%, token usage: 0.11, #running-req: 69, #queue-req: 130", ISSUE + "2255"),
                  ("[16:43:29 TP0] Prefill batch. #new-seq: 4, #new-token: 8192, #cached-token: 291, cache hit rate: "
                   "2.76%, token usage: 0.04, #running-req: 1, #queue-req: 38", ISSUE + "1612"),
                  ("[2025-02-17 05:27:25 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit "
                   "rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0", DOCS_K8S)],
        expect=[("last_batch.kind", "prefill"), ("last_batch.new_tokens", True), ("last_batch.new_seq", True)],
        note="`cache hit rate` is the run's cumulative rate; llmdoctor takes the batch's own from the counts",
    ),
    message(
        "sglang.batch.decode_dot", E, "0.2.1-0.4.6",
        "sglang/srt/managers/tp_worker.py:297 @ v0.2.15; sglang/srt/managers/scheduler.py:685 @ v0.3.6, "
        ":1044 @ v0.4.6",
        r"Decode batch\. #running-req: \d+, #token: \d+, token usage: [\d.]+, gen throughput \(token/s\): [\d.]+, "
        r"#queue-req: \d+", "decode batch. ",
        facts=("running requests", "waiting requests", "KV pool use", "generation throughput"),
        causes=("QUEUEING", "KV_CAPACITY", "BANDWIDTH_LIMIT"),
        examples=[("[2025-02-27 04:46:39 TP0] Decode batch. #running-req: 8, #token: 62531, token usage: 0.12, "
                   "gen throughput (token/s): 186.64, #queue-req: 0", ISSUE + "3909"),
                  ("Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput (token/s): "
                   "1397.13, #queue-req: 12279", ISSUE + "938")],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", True), ("last_batch.gen_tps", True),
                ("last_batch.token_usage", True)],
    ),
    message(
        "sglang.batch.decode_dot_cuda_graph", E, "0.4.7-0.5.2",
        "sglang/srt/managers/scheduler_metrics_mixin.py:170 @ v0.4.10, :199 @ v0.5.2",
        r"Decode batch\. #running-req: \d+, .*\b(?:cuda|cpu) graph: (?:True|False), gen throughput", "decode batch. ",
        facts=("running requests", "waiting requests", "KV pool use", "CUDA graph in use", "generation throughput"),
        causes=("QUEUEING", "KV_CAPACITY", "BANDWIDTH_LIMIT"),
        examples=[("[2025-09-03 18:33:19 TP0] Decode batch. #running-req: 1, #token: 137, token usage: 0.00, "
                   "cuda graph: True, gen throughput (token/s): 1.06, #queue-req: 0, ", ISSUE + "10053"),
                  ("Decode batch. #running-req: 233, #token: 370959, token usage: 0.82, cuda graph: True, "
                   "gen throughput (token/s): 4594.01, #queue-req: 317", FIX + "decode_docs_tuning.log")],
        expect=[("last_batch.kind", "decode"), ("last_batch.cuda_graph", True), ("last_batch.running", True)],
    ),
    message(
        "sglang.batch.decode_comma", E, "0.5.6-0.5.10.post1 and later",
        "sglang/srt/managers/scheduler_metrics_mixin.py:270 @ v0.5.6; "
        "sglang/srt/observability/scheduler_metrics_mixin.py:608 @ v0.5.10.post1",
        r"Decode batch(?: \[\d+\])?, #running-req: \d+, ", ("decode batch, ", "decode batch ["),
        facts=("running requests", "waiting requests", "KV pool use", "CUDA graph in use", "generation throughput"),
        causes=("QUEUEING", "KV_CAPACITY", "BANDWIDTH_LIMIT"),
        examples=[("[2025-12-12 08:43:59 TP0] Decode batch, #running-req: 6, #token: 1920, token usage: 0.94, "
                   "cuda graph: True, gen throughput (token/s): 446.45, #queue-req: 5,", ISSUE + "14972"),
                  ("[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, "
                   "cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0", PULL + "22331")],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", True), ("last_batch.token_usage", True),
                ("last_batch.cuda_graph", True)],
    ),
    message(
        "sglang.batch.decode_iter", E, "0.5.4 (every line); 0.5.6 and later with SGLANG_LOG_FORWARD_ITERS",
        "sglang/srt/managers/scheduler_metrics_mixin.py:249 @ v0.5.4, :270 @ v0.5.6; "
        "sglang/srt/observability/scheduler_metrics_mixin.py:608 @ v0.5.10.post1",
        r"Decode batch \[\d+\], #running-req: \d+", "decode batch [",
        facts=("running requests", "waiting requests", "KV pool use"), causes=("QUEUEING", "KV_CAPACITY"),
        examples=[("[2026-03-02 09:14:07 TP0] Decode batch [4812], #running-req: 64, #token: 91234, token usage: 0.97, "
                   "cuda graph: True, gen throughput (token/s): 2211.30, #queue-req: 41",
                   _r("sglang/srt/observability/scheduler_metrics_mixin.py:608 @ v0.5.10.post1"))],
        expect=[("last_batch.kind", "decode"), ("last_batch.queue", 41), ("last_batch.token_usage", 0.97)],
    ),
    message(
        "sglang.batch.decode_speculative", E, "0.4.2 and later (speculative decoding)",
        "sglang/srt/managers/scheduler.py:815 @ v0.4.2, :1059 @ v0.4.6; sglang/srt/managers/scheduler_metrics_mixin.py:210 "
        "@ v0.5.2; sglang/srt/observability/scheduler_metrics_mixin.py:632 @ v0.5.10.post1 (adds accept rate)",
        r"Decode batch(?: \[\d+\])?[.,] #running-req: \d+, .*\baccept len: [\d.]+, ", "accept len: ",
        facts=("running requests", "speculative tokens accepted per step", "waiting requests", "KV pool use"),
        causes=("QUEUEING", "BANDWIDTH_LIMIT"),
        examples=[("[2025-05-31 18:31:21 DP0 TP0] Decode batch. #running-req: 8, #token: 37217, token usage: 0.13, "
                   "accept len: 2.90, cuda graph: True, gen throughput (token/s): 171.01, #queue-req: 0", PULL + "6081")],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", 8), ("last_batch.token_usage", 0.13),
                ("last_batch.gen_tps", 171.01)],
    ),
    message(
        "sglang.batch.decode_hybrid_swa", E, ">=0.5.2",
        "sglang/srt/managers/scheduler_metrics_mixin.py:182 @ v0.5.2; "
        "sglang/srt/observability/scheduler_metrics_mixin.py:563 @ v0.5.10.post1",
        r"#full token: \d+, full token usage: [\d.]+, #swa token: \d+, swa token usage: [\d.]+", "swa token usage",
        facts=("full-attention KV pool use", "sliding-window KV pool use"), causes=("KV_CAPACITY", "QUEUEING"),
        examples=[("[2026-05-24 03:51:45 TP0] Decode batch, #running-req: 4, #full token: 2642688, full token usage: "
                   "1.00, #swa token: 14592, swa token usage: 0.06, cuda graph: True, gen throughput (token/s): 429.52, "
                   "#queue-req: 3", ISSUE + "26248")],
        expect=[("last_batch.token_usage", 1.0), ("last_batch.queue", 3)],
        note="SGLang's own token_usage gauge takes the fuller of the two pools; so does llmdoctor",
    ),
    message(
        "sglang.batch.mamba_usage", E, "0.5.10.post1 and later (hybrid SSM models)",
        "sglang/srt/observability/scheduler_metrics_mixin.py:369 @ v0.5.10.post1",
        r"full token usage: [\d.]+, mamba usage: [\d.]+", "mamba usage: ",
        facts=("full-attention KV pool use", "mamba state pool use", "waiting requests"),
        causes=("KV_CAPACITY", "QUEUEING"),
        examples=[("[2026-07-04 04:31:27 TP0] Prefill batch, #new-seq: 12, #new-token: 43264, #cached-token: 0, "
                   "full token usage: 0.20, mamba usage: 0.30, #running-req: 13, #queue-req: 85, #pending-token: 340001, "
                   "npu graph: False, input throughput (token/s): 14947.07", PULL + "30047")],
        expect=[("last_batch.token_usage", 0.3), ("last_batch.queue", 85), ("last_batch.cuda_graph", False)],
        note="the mamba pool fills first here: its usage is the one that stops admission",
    ),
    message(
        "sglang.batch.decode_pd", E, "0.4.6-0.5.x (disaggregated decode server)",
        "sglang/srt/managers/scheduler_metrics_mixin.py:219 @ v0.5.2; "
        "sglang/srt/observability/scheduler_metrics_mixin.py:635 @ v0.5.10.post1",
        r"pre-allocated usage: [\d.]+, ", "pre-allocated usage",
        facts=("running requests", "KV pool pre-allocated for transfers", "retracted queue"),
        causes=("KV_CAPACITY", "PREEMPTION"),
        examples=[("[2025-09-20 11:02:13 DP0 TP0] Decode batch. #running-req: 48, #token: 210432, token usage: 0.88, "
                   "pre-allocated usage: 0.07, #retracted-req: 2, cuda graph: True, gen throughput (token/s): 1893.21, "
                   "#queue-req: 6, ", _r("sglang/srt/managers/scheduler_metrics_mixin.py:219 @ v0.5.2"))],
        expect=[("last_batch.kind", "decode"), ("last_batch.running", 48), ("last_batch.queue", 6),
                ("last_batch.token_usage", 0.88)],
    ),
    message(
        "sglang.batch.prefill_dot", E, "0.4.4-0.5.2",
        "sglang/srt/managers/scheduler.py:993 @ v0.4.6; sglang/srt/managers/scheduler_metrics_mixin.py:93 @ v0.4.10, "
        ":114 @ v0.5.2",
        r"Prefill batch\. #new-seq: \d+, #new-token: \d+, #cached-token: \d+, (?:#full token: \d+, )?"
        r"(?:full )?token usage: [\d.]+", "prefill batch. ",
        facts=("prompt tokens computed", "prompt tokens from the radix cache", "KV pool use", "waiting requests"),
        causes=("PREFILL", "QUEUEING"),
        examples=[("[2025-06-25 14:02:04 TP0] Prefill batch. #new-seq: 1, #new-token: 2266, #cached-token: 1, "
                   "token usage: 0.00, #running-req: 0, #queue-req: 0", ISSUE + "7515"),
                  ("[2025-09-03 18:33:31 TP0] Prefill batch. #new-seq: 1, #new-token: 18, #cached-token: 184, "
                   "token usage: 0.00, #running-req: 0, #queue-req: 0, ", ISSUE + "10053")],
        expect=[("last_batch.kind", "prefill"), ("last_batch.new_tokens", True), ("last_batch.new_seq", 1)],
    ),
    message(
        "sglang.batch.prefill_pd", E, "0.4.6-0.5.2 (disaggregated prefill server)",
        "sglang/srt/managers/scheduler.py:1009 @ v0.4.6; sglang/srt/managers/scheduler_metrics_mixin.py:122 @ v0.5.2",
        r"#unbootstrapped-req: \d+, #queue-req: \d+", "#unbootstrapped-req",
        facts=("waiting requests", "requests waiting for a decode server", "KV pool use"),
        causes=("QUEUEING",),
        examples=[("[2025-09-20 11:02:13 TP0] Prefill batch. #new-seq: 3, #new-token: 12288, #cached-token: 0, "
                   "token usage: 0.31, #unbootstrapped-req: 0, #queue-req: 17, #transferring-req: 4, input throughput "
                   "(token/s): 30211.50, ", _r("sglang/srt/managers/scheduler_metrics_mixin.py:122 @ v0.5.2"))],
        expect=[("last_batch.kind", "prefill"), ("last_batch.queue", 17), ("last_batch.running", 0)],
        note="no #running-req on a prefill-only server: llmdoctor counts 0",
    ),
    message(
        "sglang.batch.prefill_comma", E, "0.5.4 (`Prefill batch [N], `); 0.5.6 and later",
        "sglang/srt/managers/scheduler_metrics_mixin.py:126 @ v0.5.4, :140 @ v0.5.6; "
        "sglang/srt/observability/scheduler_metrics_mixin.py:389 @ v0.5.10.post1",
        r"Prefill batch(?: \[\d+\])?, #new-seq: \d+, #new-token: \d+, #cached-token: \d+", ("prefill batch, ", "prefill batch ["),
        facts=("prompt tokens computed", "prompt tokens from the radix cache", "KV pool use", "waiting requests",
               "prompt throughput"), causes=("PREFILL", "QUEUEING"),
        examples=[("[2026-04-05 20:02:51] Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: "
                   "0.08, #running-req: 31, #queue-req: 0, cuda graph: True, input throughput (token/s): 559.53",
                   PULL + "22166"),
                  ("[2026-07-10 17:00:22 ATTN_CP4 TP4] Prefill batch, #new-seq: 1, #new-token: 384, #cached-token: "
                   "150144, token usage: 0.19, #running-req: 1, #queue-req: 0, #pending-token: 0, cuda graph: False, "
                   "input throughput (token/s): 536.67", ISSUE + "30755")],
        expect=[("last_batch.kind", "prefill"), ("last_batch.new_tokens", True), ("last_batch.running", True),
                ("last_batch.new_seq", 1)],
    ),
    # --- retraction (PREEMPTION) -------------------------------------------------------------------
    message(
        "sglang.retract.decode_oom_lower", E, "0.1.x-0.2.0",
        "sglang/srt/managers/router/model_rpc.py:508 @ v0.1.16; sglang/srt/managers/controller/tp_worker.py:544 @ v0.2.0",
        r"decode out of memory happened, #retracted_reqs: \d+", "decode out of memory happened, ",
        facts=("requests retracted", "new-token ratio raised"), causes=("PREEMPTION", "KV_CAPACITY"),
        examples=[("decode out of memory happened, #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.5000",
                   _r("sglang/srt/managers/controller/tp_worker.py:544 @ v0.2.0"))],
        expect=[("retractions", 1), ("retracted_reqs", 3)],
    ),
    message(
        "sglang.retract.decode_oom", E, "0.2.x-0.4.6",
        "sglang/srt/managers/tp_worker.py:662 @ v0.2.15; sglang/srt/managers/scheduler.py:889 @ v0.3.6, :1336 @ v0.4.6",
        r"Decode out of memory happened\. #retracted_reqs: \d+", "decode out of memory happened. ",
        facts=("requests retracted", "new-token ratio raised"), causes=("PREEMPTION", "KV_CAPACITY"),
        examples=[("[2025-03-07 21:49:33 TP13] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: "
                   "0.1474 -> 0.1845", ISSUE + "4184")],
        expect=[("retractions", 1), ("retracted_reqs", 1)],
    ),
    message(
        "sglang.retract.kv_pool_full", E, "0.4.7-0.5.6",
        "sglang/srt/managers/scheduler.py:1527 @ v0.4.7, :1628 @ v0.4.10, :1778 @ v0.5.2",
        r"KV cache pool is full\. Retract requests\. #retracted_reqs: \d+, #new_token_ratio", "retract requests.",
        facts=("requests retracted", "new-token ratio raised"), causes=("PREEMPTION", "KV_CAPACITY"),
        examples=[("[2026-07-22 01:22:40] KV cache pool is full. Retract requests. #retracted_reqs: 1, "
                   "#new_token_ratio: 0.1427 -> 0.3414", FIX + "retract_kv_pool_full.log")],
        expect=[("retractions", 1), ("retracted_reqs", 1)],
    ),
    message(
        "sglang.retract.kv_pool_full_gained", E, "0.5.10.post1 and later (not at 0.5.6)",
        "sglang/srt/managers/scheduler.py:2596 @ v0.5.10.post1",
        r"KV cache pool is full\. Retract requests\. #retracted_reqs: \d+, #new_tokens_gained: \d+",
        "retract requests.",
        facts=("requests retracted", "KV tokens freed"), causes=("PREEMPTION", "KV_CAPACITY"),
        examples=[("[2026-02-11 16:20:05 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 4, "
                   "#new_tokens_gained: 18432, #new_token_ratio: 0.3120 -> 0.6240",
                   _r("sglang/srt/managers/scheduler.py:2596 @ v0.5.10.post1"))],
        expect=[("retractions", 1), ("retracted_reqs", 4)],
    ),
    # --- context length: refusals and truncations (CONTEXT_TRUNCATION) -----------------------------
    message(
        "sglang.context.input_too_long", E, "0.4.1.post7-0.5.x",
        "sglang/srt/managers/utils.py:34 @ v0.4.6, :34 @ v0.4.10, :137 @ v0.5.10.post1",
        r"Input length \(\d+ tokens\) exceeds the maximum allowed length \(\d+ tokens\)", "exceeds the maximum allowed",
        facts=("prompt tokens", "longest request allowed (max_req_input_len)"), causes=("CONTEXT_TRUNCATION",),
        examples=[("[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length "
                   "(59862 tokens). Use a shorter input or enable --allow-auto-truncate.", ISSUE + "4048"),
                  ("Input length (3034 tokens) exceeds the maximum allowed length (1735 tokens)", PULL + "36583")],
        expect=[("refusals", 1), ("refusal_max", True), ("truncations", 0)],
        note="max_req_input_len is bounded by the KV pool as well as the context length",
    ),
    message(
        "sglang.context.longer_than_context", E, "0.1.x-0.5.x",
        "sglang/srt/managers/tokenizer_manager.py:171 @ v0.1.16, :314 @ v0.2.0, :226 @ v0.3.6, :444 @ v0.4.6, "
        ":806 @ v0.5.10.post1",
        r"The input \(\d+ tokens\) is longer than the model\\?'s context length \(\d+ tokens\)\.(?! Truncating)",
        "is longer than the model", facts=("prompt tokens", "context length"), causes=("CONTEXT_TRUNCATION",),
        examples=[("ValueError: The input (85050 tokens) is longer than the model's context length (32768 tokens).",
                   ISSUE + "8096"),
                  ('{"object":"error","message":"The input (61709 tokens) is longer than the model\\\'s context length '
                   '(40960 tokens).","type":"BadRequestError","param":null,"code":400}',
                   "https://github.com/QwenLM/Qwen3/issues/1321")],
        expect=[("refusals", 1), ("refusal_max", True), ("truncations", 0)],
        note="raised as ValueError; the HTTP server answers 400 BadRequestError with it",
    ),
    message(
        "sglang.context.truncating_the_input", E, "0.5.1 and later (--allow-auto-truncate; not at 0.5.0rc0)",
        "sglang/srt/managers/tokenizer_manager.py:588 @ v0.5.1, :447 @ v0.5.2, :800 @ v0.5.10.post1",
        r"The input \(\d+ tokens\) is longer than the model\\?'s context length \(\d+ tokens\)\. Truncating the input",
        "truncating the input", facts=("prompt tokens", "context length", "prompt cut and served"),
        causes=("CONTEXT_TRUNCATION",),
        examples=[("[2025-10-02 08:11:45] The input (41250 tokens) is longer than the model's context length "
                   "(32768 tokens). Truncating the input.", _r("sglang/srt/managers/tokenizer_manager.py:447 @ v0.5.2"))],
        expect=[("truncations", 1), ("truncation_max", (41250, 32768)), ("refusals", 0)],
    ),
    message(
        "sglang.context.truncated_bang", E, "0.2.x-0.4.1.post5",
        "sglang/srt/managers/tp_worker.py:381 @ v0.2.15; sglang/srt/managers/scheduler.py:581 @ v0.3.6, :625 @ v0.4.0, "
        ":616 @ v0.4.1.post5",
        r"Request length is longer than the KV cache pool size or the max context length\. Truncated(?!\. len)",
        "truncated", facts=("prompt cut and served (KV pool or context length)",), causes=("CONTEXT_TRUNCATION",),
        examples=[("Request length is longer than the KV cache pool size or the max context length. Truncated",
                   "https://github.com/runpod-workers/worker-sglang/issues/14"),
                  ("[2024-11-20 13:40:02 TP0] Request length is longer than the KV cache pool size or the max context "
                   "length. Truncated!!!", _r("sglang/srt/managers/scheduler.py:581 @ v0.3.6"))],
        expect=[("truncations", 1)],
        note="always truncated in these versions, no flag; the line gives no lengths",
    ),
    message(
        "sglang.context.truncated_lengths", E, "0.4.1.post7-0.5.x (--allow-auto-truncate)",
        "sglang/srt/managers/utils.py:26 @ v0.4.6, :129 @ v0.5.10.post1",
        r"Truncated\. len\(req\.origin_input_ids\)=\d+, max_req_input_len=\d+", "truncated. len(",
        facts=("prompt tokens", "longest request allowed (max_req_input_len)", "prompt cut and served"),
        causes=("CONTEXT_TRUNCATION",),
        examples=[("[2025-05-14 10:02:31 TP0] Request length is longer than the KV cache pool size or the max context "
                   "length. Truncated. len(req.origin_input_ids)=70312, max_req_input_len=65530.",
                   _r("sglang/srt/managers/utils.py:26 @ v0.4.6"))],
        expect=[("truncations", 1), ("truncation_max", (70312, 65530))],
    ),
    message(
        "sglang.context.user_context_over_derived", E, "0.3.x-0.5.x",
        "sglang/srt/configs/model_config.py:71 @ v0.3.6, :166 @ v0.4.10, :182 @ v0.5.2, :387 @ v0.5.10.post1",
        r"User-specified context_length \(\d+\) is greater than the derived context_length \(\d+\)",
        "derived context_length",
        facts=("context length asked", "the model's own context length"), causes=("CONTEXT_TRUNCATION", "OTHER"),
        examples=[("[2025-01-08 09:30:11] Warning: User-specified context_length (131072) is greater than the derived "
                   "context_length (32768). This may lead to incorrect model outputs or CUDA errors.",
                   _r("sglang/srt/configs/model_config.py:71 @ v0.3.6"))],
        expect=[("settings.context_length", 131072), ("settings.derived_context_length", 32768)],
        note="without SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 the same words are a ValueError at start-up; "
             "0.5.x prints `Target model's context_length` for a draft model's, which is not the served limit",
    ),
    # --- queue limit (QUEUE_FULL) ------------------------------------------------------------------
    message(
        "sglang.queue.request_queue_full", E, "0.4.10-0.5.x (--max-queued-requests)",
        "sglang/srt/managers/scheduler.py:1018 @ v0.4.10, :1122 @ v0.5.2, :1995 @ v0.5.10.post1; "
        "sglang/srt/managers/tokenizer_manager.py:715 @ v0.5.2 (the 503)",
        r"The request queue is full\.", "request queue is full",
        facts=("request refused: the waiting queue is at --max-queued-requests",), causes=("QUEUE_FULL",),
        examples=[('HTTP/1.1 503 Service Unavailable {"detail":"The request queue is full."}',
                   _r("sglang/srt/managers/tokenizer_manager.py:715 @ v0.5.2"))],
        expect=[("queue_full", 1)],
        note="an abort the tokenizer manager raises as HTTPException(503, detail=message): the client sees it, "
             "the scheduler logs nothing",
    ),
    # --- start-up settings in effect (CONFIG_NOT_APPLIED, KV_CAPACITY) -----------------------------
    message(
        "sglang.startup.summary_gpu_id", E, "0.2.0",
        "sglang/srt/managers/controller/tp_worker.py:115 @ v0.2.0",
        r"\[gpu_id=\d+\] max_total_num_tokens=\d+, max_prefill_tokens=\d+, max_running_requests=\d+",
        "max_total_num_tokens=",
        facts=("KV pool tokens", "running-request cap in effect", "context length"),
        causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED", "QUEUEING"),
        examples=[("[gpu_id=0] max_total_num_tokens=64812, max_prefill_tokens=16384, max_running_requests=2047, "
                   "context_len=8192", _r("sglang/srt/managers/controller/tp_worker.py:115 @ v0.2.0"))],
        expect=[("settings.max_total_num_tokens", 64812), ("settings.max_running_requests", 2047),
                ("settings.context_len", 8192)],
    ),
    message(
        "sglang.startup.summary", E, "0.2.1-0.4.1.post7",
        "sglang/srt/managers/tp_worker.py:149 @ v0.2.15; sglang/srt/managers/scheduler.py:212 @ v0.3.6, :223 @ v0.4.0, "
        ":247 @ v0.4.1.post5",
        r"\bmax_total_num_tokens=\d+, max_prefill_tokens=\d+, max_running_requests=\d+, context_len=\d+",
        "max_total_num_tokens=",
        facts=("KV pool tokens", "running-request cap in effect", "context length"),
        causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED", "QUEUEING"),
        examples=[("[2024-11-20 13:38:51 TP0] max_total_num_tokens=412430, max_prefill_tokens=16384, "
                   "max_running_requests=4097, context_len=32768", _r("sglang/srt/managers/scheduler.py:212 @ v0.3.6"))],
        expect=[("settings.max_total_num_tokens", 412430), ("settings.max_running_requests", 4097),
                ("settings.max_prefill_tokens", 16384)],
    ),
    message(
        "sglang.startup.summary_chunked", E, "0.4.2-0.4.6",
        "sglang/srt/managers/scheduler.py:283 @ v0.4.2, :264 @ v0.4.4, :306 @ v0.4.6",
        r"max_total_num_tokens=\d+, chunked_prefill_size=-?\d+, max_prefill_tokens=\d+, max_running_requests=\d+, "
        r"context_len=\d+(?!, available)", "max_total_num_tokens=",
        facts=("KV pool tokens", "chunked prefill size", "running-request cap in effect", "context length"),
        causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED", "QUEUEING"),
        examples=[("[2025-02-17 05:27:24 TP0] max_total_num_tokens=712400, chunked_prefill_size=8192, "
                   "max_prefill_tokens=16384, max_running_requests=50, context_len=163840", DOCS_K8S)],
        expect=[("settings.max_total_num_tokens", 712400), ("settings.chunked_prefill_size", 8192),
                ("settings.max_running_requests", 50), ("settings.context_len", 163840)],
    ),
    message(
        "sglang.startup.summary_available_mem", E, "0.4.7 and later",
        "sglang/srt/managers/scheduler.py:338 @ v0.4.7, :383 @ v0.4.10, :412 @ v0.5.2, :691 @ v0.5.10.post1",
        r"max_total_num_tokens=\d+, chunked_prefill_size=-?\d+, .*\bavailable_(?:gpu|cpu)_mem=[\d.]+ GB",
        ("available_gpu_mem=", "available_cpu_mem="),
        facts=("KV pool tokens", "running-request cap in effect", "context length", "free accelerator memory"),
        causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED", "QUEUEING", "CPU_SPILL"),
        examples=[("[2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens="
                   "16384, max_running_requests=33, context_len=256000, available_gpu_mem=17.22 GB", ISSUE + "29575"),
                  ("[2025-10-14 07:55:20 TP0] max_total_num_tokens=98304, chunked_prefill_size=4096, max_prefill_tokens="
                   "16384, max_running_requests=32, context_len=8192, available_cpu_mem=210.40 GB",
                   _r("sglang/srt/managers/scheduler.py:691 @ v0.5.10.post1"))],
        expect=[("settings.max_total_num_tokens", True), ("settings.max_running_requests", True),
                ("settings.context_len", True)],
        note="available_cpu_mem: the server runs on the CPU (--device cpu)",
    ),
    message(
        "sglang.startup.running_requests_reduced", E, "0.5.14 (absent at 0.5.13)-0.5.23",
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:1013 @ v0.5.14, :1257 @ v0.5.15; "
        "sglang/srt/mem_cache/kv_cache_configurator.py:3167 @ v0.5.23 (wheels)",
        r"max_running_requests was reduced from (?:the )?requested \d+ to \d+", "max_running_requests was reduced from",
        facts=("the --max-running-requests asked for", "the running-request cap in effect (per dp worker)"),
        causes=("KV_CAPACITY", "QUEUEING"),
        examples=[("max_running_requests was reduced from requested 128 to 50", ISSUE + "30160"),
                  ("[2026-05-02 10:00:00 TP0] max_running_requests was reduced from the requested 128 to 50 (per dp "
                   "worker) due to the available KV cache capacity.",
                   _r("sglang/srt/mem_cache/kv_cache_configurator.py:3167 @ v0.5.23"))],
        expect=[("settings.max_running_requests_requested", 128), ("settings.max_running_requests", 50)],
        note="the KV pool holds fewer requests than asked: the rest queue. sglang#30160 posted it without 'the' "
             "and the '(per dp worker) ...' tail (retyped): the pattern takes both",
    ),
    message(
        "sglang.startup.server_args", E, ">=0.2.0",
        "sglang/srt/server.py:229 @ v0.2.0, :403 @ v0.3.6; sglang/srt/entrypoints/engine.py:116 @ v0.4.6, "
        ":181 @ v0.5.10.post1",
        r"server_args=ServerArgs\(", "server_args=serverargs(",
        facts=("every launch setting as parsed: context_length, mem_fraction_static, max_running_requests, "
               "disable_radix_cache, chunked_prefill_size, schedule_conservativeness, ...",),
        causes=("CONFIG_NOT_APPLIED", "KV_CAPACITY", "PREFILL", "QUEUEING"),
        examples=[("server_args=ServerArgs(model_path='NousResearch/Meta-Llama-3-8B-Instruct', tokenizer_path='NousResearch/Meta-Llama-3-8B-Instruct', tokenizer_mode='auto', load_format='auto', dtype='bfloat16', trust_remote_code=False, context_length=4096, quantization=None, served_model_name='NousResearch/Meta-Llama-3-8B-Instruct', chat_template=None, host='0.0.0.0', port=8000, additional_ports=[8001, 8002, 8003, 8004], mem_fraction_static=0.88, max_prefill_tokens=4096, max_run",
                   ISSUE + "1030")],
        expect=[("settings.context_length", 4096), ("settings.mem_fraction_static", 0.88),
                ("settings.max_prefill_tokens", 4096)],
    ),
    message(
        "sglang.startup.server_args_0_1", E, "0.1.x",
        "sglang/srt/managers/router/model_rpc.py:120 @ v0.1.16 (ServerArgs.print_mode_args, server_args.py:250)",
        r"server_args: enable_flashinfer=(?:True|False), ", "server_args: ",
        facts=("radix cache on or off", "FlashInfer on or off"), causes=("PREFILL",),
        examples=[("server_args: enable_flashinfer=False, attention_reduce_in_fp32=False, disable_radix_cache=True, "
                   "disable_regex_jump_forward=False, disable_disk_cache=False, ",
                   _r("sglang/srt/managers/router/model_rpc.py:120 @ v0.1.16"))],
        expect=[("settings.disable_radix_cache", True)],
    ),
    message(
        "sglang.startup.max_total_tokens_profiled", E, "0.2.x-0.5.x",
        "sglang/srt/model_executor/model_runner.py:361 @ v0.2.15, :456 @ v0.3.6, :776 @ v0.4.6, :1291 @ v0.5.2; "
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:817 @ v0.5.10.post1",
        r"max_total_tokens=\d+ is larger than the profiled value -?\d+\. Use the profiled value", "profiled value",
        facts=("--max-total-tokens asked", "KV pool tokens that fit"), causes=("CONFIG_NOT_APPLIED", "KV_CAPACITY"),
        examples=[("[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. "
                   "Use the profiled value instead.", ISSUE + "7691")],
        expect=[("settings.max_total_tokens", 131072), ("settings.profiled_max_total_tokens", -561981)],
        note="a negative profiled value: the weights leave no memory for a KV pool at this --mem-fraction-static",
    ),
    message(
        "sglang.startup.max_running_reset_speculative", E, "0.5.6 and later",
        "sglang/srt/server_args.py:1681 @ v0.5.6, :2996 @ v0.5.10.post1",
        r"Max running requests is reset to \d+ for speculative decoding", "max running requests is reset",
        facts=("running-request cap set by SGLang (speculative decoding)",), causes=("QUEUEING", "CONFIG_NOT_APPLIED"),
        examples=[("[2026-03-02 09:00:41] Max running requests is reset to 48 for speculative decoding. You can override "
                   "this by explicitly setting --max-running-requests.", _r("sglang/srt/server_args.py:2996 @ v0.5.10.post1"))],
        expect=[("settings.max_running_requests", 48)],
        note="only where --max-running-requests was not given; the start-up summary line has the value in effect",
    ),
    # --- memory (KV_CAPACITY) ----------------------------------------------------------------------
    message(
        "sglang.memory.not_enough_memory", E, "0.1.x-0.5.x",
        "sglang/srt/managers/controller/model_runner.py:184 @ v0.2.0; sglang/srt/model_executor/model_runner.py:369 "
        "@ v0.2.15, :464 @ v0.3.6, :790 @ v0.4.6, :1318 @ v0.5.2; "
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:57 @ v0.5.10.post1",
        r"Not enough memory\. Please try to increase --mem-fraction-static", "not enough memory. please try",
        facts=("start-up failed: no room for the KV pool",), causes=("KV_CAPACITY",),
        examples=[("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", ISSUE + "4330"),
                  ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
                   "mem_fraction_static=0.7", _r("sglang/srt/model_executor/model_runner_kv_cache_mixin.py:59 @ v0.5.10.post1"))],
        expect=[("settings.not_enough_memory", True)],
        note="raised at start-up; the newest builds add the fraction in use",
    ),
    message(
        "sglang.memory.kv_cache_allocated", E, "0.4.0-0.5.x",
        "sglang/srt/mem_cache/memory_pool.py:243 @ v0.4.6, :227 @ v0.4.10, :352 @ v0.5.2, :696 @ v0.5.10.post1",
        r"KV Cache is allocated\. (?:dtype: \S+, )?#tokens: \d+, K size: [\d.]+ GB, V size: [\d.]+ GB",
        "kv cache is allocated", facts=("KV pool tokens", "KV pool size in GB"), causes=("KV_CAPACITY",),
        examples=[("KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB",
                   "https://github.com/vllm-project/vllm/issues/21348"),
                  ("[2026-01-31 13:50:39 TP1] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB",
                   PULL + "18039")],
        expect=[("settings.kv_cache_tokens", True), ("settings.kv_cache_gb", True)],
    ),
    message(
        "sglang.memory.kv_cache_allocated_dtype", E, "newer than 0.5.10.post1 (real lines of 2026-09)",
        "sglang/srt/mem_cache/memory_pool.py:696 @ v0.5.10.post1 (the same call before `dtype:` was added)",
        r"KV Cache is allocated\. dtype: \S+, #tokens: \d+", "kv cache is allocated. dtype",
        facts=("KV cache dtype", "KV pool tokens", "KV pool size in GB"), causes=("KV_CAPACITY",),
        examples=[("[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, "
                   "K size: 3.46 GB, V size: 3.46 GB", "https://github.com/noonghunna/club-3090/issues/1261")],
        expect=[("settings.kv_cache_tokens", 454112), ("settings.kv_cache_gb", 6.92)],
    ),
    message(
        "sglang.memory.kv_cache_allocated_mla", E, "0.4.0-0.5.x (MLA models)",
        "sglang/srt/mem_cache/memory_pool.py:521 @ v0.4.6, :831 @ v0.4.10, :358 @ v0.5.2, :702 @ v0.5.10.post1",
        r"KV Cache is allocated\. (?:dtype: \S+, )?#tokens: \d+, KV size: [\d.]+ GB", "kv cache is allocated",
        facts=("KV pool tokens", "KV pool size in GB"), causes=("KV_CAPACITY",),
        examples=[("[2025-05-06 12:01:44 TP0] KV Cache is allocated. #tokens: 412389, KV size: 26.97 GB",
                   _r("sglang/srt/mem_cache/memory_pool.py:521 @ v0.4.6"))],
        expect=[("settings.kv_cache_tokens", 412389), ("settings.kv_cache_gb", 26.97)],
    ),
    message(
        "sglang.memory.sliding_window_pool", E, "0.4.10-0.5.x",
        "sglang/srt/model_executor/model_runner.py:1065 @ v0.4.10, :1221 @ v0.5.2; "
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:369 @ v0.5.10.post1",
        r"[Ss]liding window memory pool\. full_layer_tokens=\d+, swa_layer_tokens=\d+", "window memory pool",
        facts=("full-attention KV tokens", "sliding-window KV tokens"), causes=("KV_CAPACITY",),
        examples=[("[2026-01-31 13:50:39 TP2] Use sliding window memory pool. full_layer_tokens=375360, "
                   "swa_layer_tokens=300288", PULL + "18039"),
                  ("[2025-08-12 10:41:02 TP0] Use Sliding window memory pool. full_layer_tokens=262144, "
                   "swa_layer_tokens=209715", _r("sglang/srt/model_executor/model_runner.py:1065 @ v0.4.10"))],
        expect=[("settings.full_layer_tokens", True), ("settings.swa_layer_tokens", True)],
    ),
    message(
        "sglang.memory.load_weight_end", E, "0.2.x-0.5.6",
        "sglang/srt/model_executor/model_runner.py:222 @ v0.2.15, :309 @ v0.3.6, :477 @ v0.4.6, :856 @ v0.5.6",
        r"Load weight end\. type=\w+, dtype=\S+, avail mem=[\d.]+ GB", "load weight end",
        facts=("free accelerator memory after the weights", "weights' size (mem usage, >= 0.4)"),
        causes=("KV_CAPACITY", "CPU_SPILL"),
        examples=[("[2025-07-02 07:41:58 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, "
                   "avail mem=21.73 GB, mem usage=166.59 GB.", ISSUE + "7691"),
                  ("[2024-09-01 10:00:31 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                   "avail mem=63.44 GB", _r("sglang/srt/model_executor/model_runner.py:222 @ v0.2.15"))],
        expect=[("settings.avail_mem_after_weights_gb", True)],
    ),
    message(
        "sglang.memory.load_weight_end_elapsed", E, "0.5.10.post1 and later (not at 0.5.6)",
        "sglang/srt/model_executor/model_runner.py:1247 @ v0.5.10.post1",
        r"Load weight end\. elapsed=[\d.]+ s, .*\bavail mem=[\d.]+ GB, mem usage=[\d.]+ GB", "load weight end. elapsed=",
        facts=("free accelerator memory after the weights", "weights' size"), causes=("KV_CAPACITY", "CPU_SPILL"),
        examples=[("[2026-03-02 09:01:12 TP0] Load weight end. elapsed=41.87 s, type=Qwen3ForCausalLM, avail mem=62.13 GB, "
                   "mem usage=15.27 GB.", _r("sglang/srt/model_executor/model_runner.py:1247 @ v0.5.10.post1"))],
        expect=[("settings.avail_mem_after_weights_gb", 62.13), ("settings.weights_gb", 15.27)],
        note="no dtype any more; a quantisation note may sit between type and avail mem",
    ),
    message(
        "sglang.memory.memory_pool_end", E, "0.2.x-0.5.x",
        "sglang/srt/model_executor/model_runner.py:410 @ v0.2.15, :516 @ v0.3.6, :859 @ v0.4.6; "
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:906 @ v0.5.10.post1",
        r"Memory pool end\. avail mem=[\d.]+ GB", "memory pool end",
        facts=("free accelerator memory left after the KV pool (activations, CUDA graphs)",),
        causes=("KV_CAPACITY",),
        examples=[("[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=8.40 GB",
                   "https://github.com/noonghunna/club-3090/issues/1261")],
        expect=[("settings.avail_mem_after_pool_gb", 8.4)],
    ),
    message(
        "sglang.memory.load_weight_begin", E, "0.2.x-0.5.x",
        "sglang/srt/model_executor/model_runner.py:166 @ v0.2.15, :273 @ v0.3.6, :404 @ v0.4.6, :1075 @ v0.5.10.post1",
        r"Load weight begin\. avail mem=[\d.]+ GB", "load weight begin",
        facts=("free accelerator memory before loading (another process's share shows here)",),
        causes=("KV_CAPACITY",),
        examples=[("[2025-10-16 09:06:10 TP0] Load weight begin. avail mem=137.34 GB", PULL + "11716")],
    ),
    message(
        "sglang.memory.mem_fraction_reduced_multimodal", E, "0.4.x",
        "sglang/srt/model_executor/model_runner.py:310 @ v0.4.6",
        r"Automatically reduce --mem-fraction-static to [\d.]+", "automatically reduce --mem-fraction-static",
        facts=("mem_fraction_static in effect (lowered by SGLang)",), causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED"),
        examples=[("[2025-04-30 02:10:41 TP0] Automatically reduce --mem-fraction-static to 0.792 because this is a "
                   "multimodal model.", _r("sglang/srt/model_executor/model_runner.py:310 @ v0.4.6"))],
        expect=[("settings.mem_fraction_static", 0.792)],
    ),
    message(
        "sglang.memory.mem_fraction_adjusted_multimodal", E, "0.4.10-0.5.x",
        "sglang/srt/server_args.py:1984 @ v0.4.10",
        r"Dynamically adjusted --mem-fraction-static from: [\d.]+ to: [\d.]+", "dynamically adjusted --mem-fraction",
        facts=("mem_fraction_static asked", "mem_fraction_static in effect (lowered by SGLang)"),
        causes=("KV_CAPACITY", "CONFIG_NOT_APPLIED"),
        examples=[("[2025-08-12 10:40:12] Multimodal model: Dynamically adjusted --mem-fraction-static from: 0.880 "
                   "to: 0.748.", _r("sglang/srt/server_args.py:1984 @ v0.4.10"))],
        expect=[("settings.mem_fraction_static", 0.748)],
    ),
    # --- radix (prefix) cache switched off by SGLang itself (PREFILL) -----------------------------
    message(
        "sglang.radix.disabled_hybrid_gdn", E, "0.5.x",
        "sglang/srt/model_executor/model_runner.py:309 @ v0.5.2",
        r"Hybrid GDN model detected, disable radix cache", "disable radix cache",
        facts=("radix cache off for this model",), causes=("PREFILL",),
        examples=[("[2025-09-15 03:12:40 TP0] Hybrid GDN model detected, disable radix cache",
                   _r("sglang/srt/model_executor/model_runner.py:309 @ v0.5.2"))],
        expect=[("settings.radix_cache_auto_off", True)],
    ),
    message(
        "sglang.radix.disabled_for", E, ">=0.5.3",
        "sglang/srt/managers/scheduler.py:733 @ v0.5.10.post1; sglang/srt/server_args.py:2320 @ v0.5.10.post1",
        r"Radix cache is disabled for \w+", "radix cache is disabled for",
        facts=("radix cache off for this model or backend",), causes=("PREFILL",),
        examples=[("[2026-03-20 10:02:11 TP0] Radix cache is disabled for multimodal models with the Transformers "
                   "backend to avoid multimodal prefix-cache mismatches.",
                   _r("sglang/srt/managers/scheduler.py:733 @ v0.5.10.post1"))],
        expect=[("settings.radix_cache_auto_off", True)],
    ),
    message(
        "sglang.radix.disabling_for_backend", E, ">=0.5.3",
        "sglang/srt/server_args.py:2199 @ v0.5.10.post1",
        r"Disabling radix cache since \S+ does not support", "disabling radix cache",
        facts=("radix cache off for this attention backend",), causes=("PREFILL",),
        examples=[("[2026-03-20 10:01:58] Disabling radix cache since trtllm_mha does not support page_size = 1, which "
                   "is required by MambaRadixCache. Try to use --attention-backend triton if radix cache is necessary.",
                   _r("sglang/srt/server_args.py:2199 @ v0.5.10.post1"))],
        expect=[("settings.radix_cache_auto_off", True)],
    ),
)


def summarize(lines):
    from llmdoctor.knowledge.sglang.log import scan_sglang_lines

    return scan_sglang_lines(lines, "catalogue")
