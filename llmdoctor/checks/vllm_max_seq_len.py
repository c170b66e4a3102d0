"""vLLM refused for want of KV memory: a max seq len larger than the KV cache can hold, and the
other refusals of that family (less free GPU memory at start-up than gpu_memory_utilization asks
for, no memory left for any KV block, a V0 prompt larger than the whole cache)."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import setting
from llmdoctor.judge.fixes import serve_flags_text
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


BLOCK_TOKENS = 16  # vLLM's default --block-size


def _derived(scan, vllm_cmdline, vllm_log):
    """(max_model_len, tokens the KV cache holds, evidence) when the start-up lines show the
    cache cannot hold one full-length sequence (vLLM then refuses to start)."""
    cap = scan.kv_capacity
    length = setting(vllm_cmdline, vllm_log, "max_model_len")
    try:
        length = int(length) if length is not None else None
    except (TypeError, ValueError):
        length = None
    if cap is None or not length:
        return None
    block = scan.settings.get("block_size") if isinstance(scan.settings.get("block_size"), int) else BLOCK_TOKENS
    tokens = cap.kv_tokens or (cap.gpu_blocks * block if cap.gpu_blocks else None)
    if not tokens or tokens >= length:
        return None
    how = (f"# GPU blocks {cap.gpu_blocks} x {block} tokens per block = {tokens:,} tokens"
           if not cap.kv_tokens else f"KV cache size {tokens:,} tokens")
    return length, tokens, [Evidence(scan.source, line) for line in cap.lines[-2:]] + [
        Evidence(scan.source, f"{how} < max_model_len {length:,}")]


def _cannot_start(length: int, fits: int | None, ev, vllm_cmdline) -> Finding:
    cmds = ([serve_flags_text(vllm_cmdline, max_model_len=fits)] if fits else []) + \
        [serve_flags_text(vllm_cmdline, gpu_memory_utilization=0.95)]
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        f"vLLM cannot start: a {length:,}-token sequence does not fit in its KV cache"
        + (f" ({fits:,} tokens fit)" if fits else ""),
        ev,
        Fix("Lower --max-model-len to what the cache holds" + (f" ({fits})" if fits else "") + ", or give the cache "
            "more memory (--gpu-memory-utilization, --kv-cache-dtype fp8, --tensor-parallel-size 2).", tuple(cmds)))


def _memory_short(scan, vllm_cmdline) -> Finding:
    """The GPU had less free memory at start-up than --gpu-memory-utilization asks for."""
    short = scan.gpu_memory_short
    fits = round(max(0.05, short.free_gib / short.total_gib - 0.03), 2) if short.total_gib else None
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        f"vLLM cannot start: the GPU has {short.free_gib:g} GiB free of {short.total_gib:g} GiB, and "
        f"gpu_memory_utilization {short.utilization:g} asks for {short.requested_gib:g} GiB",
        [Evidence(scan.source, short.text)],
        Fix("vLLM reserves gpu_memory_utilization x the whole GPU at start-up and needs that much free: another "
            "process holds the rest (a second vLLM or another engine, a notebook, a server that has not exited yet; "
            "nvidia-smi lists them). Stop it, or lower --gpu-memory-utilization to the share that is free"
            + (f" (at most {fits})" if fits else "") + ", which also shrinks the KV cache.",
            (serve_flags_text(vllm_cmdline, gpu_memory_utilization=fits) if fits else "nvidia-smi",)))


def _no_kv_memory(scan, vllm_cmdline) -> Finding:
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        "vLLM cannot start: no memory is left for the KV cache after the weights and the activations",
        [Evidence(scan.source, scan.no_kv_memory)],
        Fix("The model weights, the activation peak of one batch and the CUDA graphs fill the share of GPU memory "
            "vLLM may use. Give it a larger share (--gpu-memory-utilization), make the batch peak smaller "
            "(--max-num-batched-tokens, --max-num-seqs) or skip the CUDA graphs (--enforce-eager), or make the "
            "weights smaller (a quantized model, --tensor-parallel-size across GPUs).",
            (serve_flags_text(vllm_cmdline, gpu_memory_utilization=0.95),)))


def _over_kv(scan) -> Finding:
    n = scan.prompts_over_kv_capacity
    return Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"vLLM ignored {n} request(s) whose prompt needs more KV blocks than its whole KV cache holds",
        [Evidence(scan.source, line) for line in scan.prompt_too_long_examples if "block_manager" in line]
        + [Evidence(scan.source, line) for line in (scan.kv_capacity.lines[-2:] if scan.kv_capacity else ())],
        Fix("The V0 scheduler can never place such a prompt and drops it. Give the KV cache more room "
            "(--gpu-memory-utilization, --kv-cache-dtype fp8, --tensor-parallel-size) or cap prompts below what the "
            "cache holds (--max-model-len)."))


@check(id="vllm-max-seq-len", cause=Cause.KV_CAPACITY,
       purpose="vLLM refused to start: max seq len larger than the KV cache can hold",
       engines=("vllm",))
def max_seq_len(vllm_log: VllmLog, vllm_cmdline: VllmCmdline | None = None):
    for scan in vllm_log.scans:
        # other refusals for want of KV memory, at start-up or of one prompt (V0)
        if scan.gpu_memory_short is not None:
            yield _memory_short(scan, vllm_cmdline)
        if scan.no_kv_memory is not None:
            yield _no_kv_memory(scan, vllm_cmdline)
        if scan.prompts_over_kv_capacity:
            yield _over_kv(scan)
        err = scan.max_seq_len_error
        if err is not None:
            ev = [Evidence(scan.source, err.text)]
            if scan.kv_capacity:
                ev += [Evidence(scan.source, line) for line in scan.kv_capacity.lines[-2:]]
            yield _cannot_start(err.max_seq_len, err.kv_tokens or err.estimated_max_len, ev, vllm_cmdline)
            continue
        derived = _derived(scan, vllm_cmdline, vllm_log)
        if derived is not None:
            length, tokens, ev = derived
            yield _cannot_start(length, tokens, ev, vllm_cmdline)
