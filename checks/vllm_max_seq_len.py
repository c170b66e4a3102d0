"""vLLM refused for want of KV memory: a max seq len larger than the KV cache can hold, and the
other refusals of that family (less free GPU memory at start-up than gpu_memory_utilization asks
for, no memory left for any KV block, a V0 prompt larger than the whole cache)."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import kv_memory_refusals, setting
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


@check(id="vllm-max-seq-len", cause=Cause.KV_CAPACITY,
       purpose="vLLM refused to start: max seq len larger than the KV cache can hold",
       engines=("vllm",))
def max_seq_len(vllm_log: VllmLog, vllm_cmdline: VllmCmdline | None = None):
    for scan in vllm_log.scans:
        yield from kv_memory_refusals(scan, vllm_cmdline)  # the others, at start-up or of one prompt (V0)
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
