"""What each cause means for the people waiting on the server: why it slows them, the shape of
its fix and when that fix is unsafe, and how a check of it is known to be wrong. `llmdoctor
explain` and the pages under docs/checks/ print these beside each check's own trigger, facts,
messages and thresholds.

Written once per cause, not per check: the checks of one cause share the mechanism (a slot
count, a KV pool, a keep-alive), and what is particular to a check is its trigger and evidence,
which `explain` reads from the check itself. Pure data.
"""
from __future__ import annotations

from llmdoctor.model import Record, record


@record
class CauseText(Record):
    why: str
    fix: str
    unsafe: str
    false_positives: str


CAUSES: dict[str, CauseText] = {
    "QUEUEING": CauseText(
        why="Requests wait for a free slot (Ollama's per-model parallel count, llama-server's -np, vLLM's and SGLang's "
            "running batch) before their first token: each user's wait grows by the answers ahead of them, so time to "
            "first token climbs with the number of concurrent users while tokens per second look normal.",
        fix="More requests served at once: raise the slots (OLLAMA_NUM_PARALLEL; llama-server -np with -c raised to "
            "keep each slot's context; vLLM --max-num-seqs; SGLang --max-running-requests), or add a replica when the "
            "GPU is already busy.",
        unsafe="Every slot reserves its own KV cache: more slots on a card without room push layers or KV to the CPU "
               "(Ollama), shrink each slot's context (llama-server -np without -c) or cause preemption (vLLM). Check "
               "the memory after the change; a model whose architecture forces one slot cannot be helped this way.",
        false_positives="One slot configured but requests never overlapping is a setting, not a wait (reported as "
                        "info). Back-to-back requests from one client look serial without anyone waiting.",
    ),
    "QUEUE_FULL": CauseText(
        why="The server's queue is full and it turns requests away at once (Ollama 503 \"server busy\", vLLM/SGLang "
            "refusals): users see errors or client retries, which add load.",
        fix="Raise the queue bound (OLLAMA_MAX_QUEUE, vLLM --max-num-queued-reqs, SGLang --max-queued-requests) only "
            "if the wait is acceptable; otherwise add slots or replicas so the queue drains.",
        unsafe="A longer queue trades errors for latency: requests that wait past the client's timeout are still "
               "computed and then thrown away.",
        false_positives="5xx answers from a proxy in front of the engine, or a client's own limit, look the same in "
                        "an access log.",
    ),
    "PREFILL": CauseText(
        why="Prompt processing dominates: long prompts (RAG contexts, chat histories) or a cache that is not reused "
            "make every request re-read thousands of tokens before its first token, and a long prefill holds up "
            "other users' decoding.",
        fix="Reuse the prompt cache (llama-server --cache-reuse and cache_prompt, vLLM --enable-prefix-caching, "
            "SGLang's radix cache), keep shared prefixes identical across requests, shorten the prompt, or chunk the "
            "prefill (vLLM --enable-chunked-prefill, SGLang --chunked-prefill-size).",
        unsafe="Prefix caching needs prompts that share a prefix byte for byte; chunked prefill lengthens a single "
               "long prompt's own time to first token to protect the others.",
        false_positives="A test run with one very long prompt is not a pattern (the checks ask for several timed "
                        "requests); a model loading for the first request is MODEL_UNLOAD, not prefill.",
    ),
    "SWAP": CauseText(
        why="The host pages memory to swap: model weights mapped from disk or the server's own memory are read back "
            "at disk speed, and every token waits for it.",
        fix="Free memory on the host (fewer loaded models, a smaller quantisation or context, a memory limit that "
            "fits), or add RAM; keep the model in GPU memory.",
        unsafe="Disabling swap without freeing memory turns slowness into the OOM killer ending the server.",
        false_positives="Swap traffic from another process during the sample, or a one-off page-in at start-up, "
                        "is not the engine's; a container's OOM kill is reported even when the host has RAM left.",
    ),
    "PREEMPTION": CauseText(
        why="The KV cache ran out mid-generation and the scheduler preempted (vLLM) or retracted (SGLang) running "
            "requests: their work is recomputed or swapped, so some users' answers stall and restart.",
        fix="Less KV demand per batch (vLLM --max-num-seqs, SGLang --max-running-requests) or more KV room "
            "(--gpu-memory-utilization, a smaller --max-model-len, an FP8 KV cache, tensor parallelism).",
        unsafe="Raising --gpu-memory-utilization on a GPU shared with another process makes the engine fail to start; "
               "a smaller --max-model-len refuses longer prompts.",
        false_positives="An occasional preemption under a burst is the scheduler working (SGLang's guide calls about "
                        "one retraction a minute acceptable); the checks ask for a rate or a pattern.",
    ),
    "MODEL_UNLOAD": CauseText(
        why="The model is unloaded (idle keep-alive, eviction for another model, a crash) and loaded again on the "
            "next request: that user waits for the whole load, seconds to minutes.",
        fix="Keep the model loaded (OLLAMA_KEEP_ALIVE longer or -1, keep_alive per request), leave room for every "
            "model that must stay resident (OLLAMA_MAX_LOADED_MODELS, memory), or pin one model per server.",
        unsafe="A model kept loaded holds its GPU memory while idle: other models then load on the CPU or evict "
               "each other.",
        false_positives="An intended unload (a scheduled swap of models, a one-off restart) looks the same; a slow "
                        "first request after a deploy is expected once.",
    ),
    "CPU_SPILL": CauseText(
        why="Part or all of the model runs on the CPU (layers offloaded for lack of VRAM, no GPU found, the wrong "
            "runner): tokens come out several times slower, and worse with each concurrent user.",
        fix="Fit the model on the GPU: a smaller context or fewer slots (KV), a smaller quantisation, all layers "
            "offloaded (-ngl / num_gpu), or the GPU made visible to the engine (drivers, container runtime).",
        unsafe="Forcing all layers onto a GPU without the memory fails the load or spills again at a longer context; "
               "GPU flags on a host without a GPU do nothing.",
        false_positives="A host that has no GPU by design runs on the CPU on purpose (reported as info); a few "
                        "layers on the CPU may be a deliberate choice for a model larger than the card.",
    ),
    "CONFIG_NOT_APPLIED": CauseText(
        why="A setting the operator made never reached the running server (a drop-in not reloaded, a variable set "
            "in a shell, a typo the engine ignores): the server keeps its defaults and every fix seems to fail.",
        fix="Put the setting where the server reads it (the unit's drop-in, the container's environment, the "
            "server's command line), then daemon-reload and restart, and check what the running process got.",
        unsafe="A restart drops requests in flight and unloads models: do it in a quiet moment.",
        false_positives="A variable set on purpose for another program, or a restart that is pending by design, "
                        "reads the same; recorded evidence may predate the restart that applied it.",
    ),
    "CONTEXT_TRUNCATION": CauseText(
        why="Prompts are longer than the context the server gives them: they are cut, shifted or refused, so "
            "answers lose the start of the conversation or fail, and users retry.",
        fix="Raise the context to what the prompts need and the model was trained for (OLLAMA_CONTEXT_LENGTH or "
            "num_ctx, llama-server -c per slot, vLLM --max-model-len, SGLang --context-length), or shorten prompts.",
        unsafe="A longer context costs KV memory per slot (spill, fewer slots, preemption), and one beyond the "
               "model's trained context degrades the answers or is capped by the engine.",
        false_positives="A client that truncates on purpose, or one request far beyond any context, is not a "
                        "configuration problem.",
    ),
    "KV_CAPACITY": CauseText(
        why="The KV cache holds fewer tokens than the configured slots and contexts ask for: requests wait for KV "
            "room, are preempted, or the engine refuses the concurrency it was given.",
        fix="Balance slots x context against the KV pool: fewer slots or a shorter context, a quantised KV cache "
            "(q8_0 / fp8), more GPU memory for the cache, or another GPU.",
        unsafe="A quantised KV cache can lower answer quality slightly; fewer slots brings back QUEUEING.",
        false_positives="Demand computed from the maximum context overstates real prompts that are short; the "
                        "checks compare with observed usage where the engine reports it.",
    ),
    "BANDWIDTH_LIMIT": CauseText(
        why="Decoding reads the whole model from memory per token: at the memory bandwidth's limit, tokens per "
            "second cannot rise with settings, and more concurrent users share the same rate.",
        fix="Batch more users per step (more slots on engines that batch), a smaller quantisation, speculative "
            "decoding, or faster memory (another GPU).",
        unsafe="A smaller quantisation changes the answers' quality; more slots cost KV memory.",
        false_positives="The probe measures one model on one host at one moment: a busy neighbour or thermal "
                        "throttling lowers the rate for another reason (see GPU_DEGRADED, CPU_CONTENTION).",
    ),
    "ENGINE_STALLED": CauseText(
        why="The engine takes connections or answers /health but makes no progress: requests in flight and not "
            "one token, so every user hangs until a client timeout.",
        fix="Find what holds it (a GPU fault, a deadlock, a model load that never ends: the log and `llmdoctor "
            "ready`), restart the engine, and let a health check that proves progress restart it next time.",
        unsafe="A restart loses the requests in flight; restarting on a probe that does not prove progress kills "
               "healthy engines during long prefills.",
        false_positives="A very long prefill on a CPU shows no token for a while; the checks wait for a window of "
                        "no counter movement and say which.",
    ),
    "CPU_CONTENTION": CauseText(
        why="Other processes or the hypervisor hold the cores the engine computes (or schedules) on: decode on the "
            "CPU and a GPU engine's scheduling threads wait for their turn.",
        fix="Give the engine its cores: move or limit the other work (CPUQuota=, nice, cpusets), pin the engine's "
            "threads, or a host without steal.",
        unsafe="Limiting the other work slows it instead; pinning too few threads lowers the engine's own rate.",
        false_positives="A short burst of other work during the sample window; an engine at rest waits for nobody "
                        "(the check asks for engine activity).",
    ),
    "GPU_DEGRADED": CauseText(
        why="The GPU works below its capability: clocks held down (thermal, power, HW slowdown), memory errors, a "
            "narrow PCIe link or driver faults, so the same model on the same card is slower than it should be.",
        fix="Fix the hardware condition: cooling and power limits, persistence mode, reseating or another slot for "
            "the link, a reset or replacement for memory errors (see the check's evidence).",
        unsafe="Raising power limits beyond the board's default or resetting a GPU in use stops its workloads.",
        false_positives="An idle card lowers its clocks and link on purpose; the checks ask for the card to be busy.",
    ),
}
