"""vLLM refused for want of KV memory: a max seq len larger than the KV cache can hold (V0 and
V1 refuse to start; V1 with a hybrid model starts and cannot schedule the longest requests), and the
other refusals of that family (less free GPU memory at start-up than gpu_memory_utilization asks
for, no memory left for any KV block, a V0 prompt larger than the whole cache)."""
from __future__ import annotations

from typing import TYPE_CHECKING
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import kv_memory_refusals, setting
from llmdoctor.judge.fixes import either, remedy_fix, vllm
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

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
    except (TypeError, ValueError, OverflowError):  # (a float such as 1e309 is inf)
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
    remedy = either(vllm(vllm_cmdline, max_model_len=fits) if fits else None,
                    vllm(vllm_cmdline, gpu_memory_utilization=0.95))
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        f"vLLM cannot start: a {length:,}-token sequence does not fit in its KV cache"
        + (f" ({fits:,} tokens fit)" if fits else ""),
        ev,
        remedy_fix("Lower --max-model-len to what the cache holds" + (f" ({fits})" if fits else "") + ", or give the cache "
            "more memory (--gpu-memory-utilization, --kv-cache-dtype fp8, --tensor-parallel-size 2).", remedy))


def _never_scheduled(length: int, fits: int, ev, vllm_cmdline) -> Finding:
    """V1 logs "KV cache size: N tokens" after its start-up memory check (kv_cache_utils.py), so a
    size below max_model_len is a server that runs (a hybrid or sliding-window model passes that
    check) yet admits requests it can never hold: one between the two waits at the head of the
    queue with no KV blocks to get, and everything behind it waits too (vllm#39734, until vllm#39828 refused such requests)."""
    return Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"vLLM admits requests up to {length:,} tokens, but its KV cache holds only {fits:,}: a longer "
        f"request can never be scheduled and blocks the queue behind it",
        ev,
        remedy_fix(f"Set --max-model-len {fits} so vLLM refuses such a request at once instead of holding it, or give "
            "the cache more memory (--gpu-memory-utilization, --kv-cache-dtype fp8, more GPUs with "
            "--tensor-parallel-size).",
            vllm(vllm_cmdline, max_model_len=fits)),
        confidence=Confidence.HIGH)


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
            if scan.kv_capacity.kv_tokens:  # V1 prints its size line only once its start-up check passed
                yield _never_scheduled(length, tokens, ev, vllm_cmdline)
            else:
                yield _cannot_start(length, tokens, ev, vllm_cmdline)
