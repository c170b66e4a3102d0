"""CONTEXT_TRUNCATION in vLLM: requests refused because prompt (plus max_tokens) is longer than max_model_len."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.vllm import setting
from llmdoctor.judge.fixes import remedy_fix, vllm
from llmdoctor.model import Cause, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-prompt-too-long", cause=Cause.CONTEXT_TRUNCATION,
       purpose="vLLM refused prompts longer than its max_model_len (no answer, or finish_reason 'length')",
       engines=("vllm",))
def prompt_too_long(vllm_log: VllmLog, vllm_cmdline: VllmCmdline | None = None):
    # (prompts beyond the whole KV cache, V0's block_manager refusal, are vllm-max-seq-len's)
    scan = next((s for s in vllm_log.scans if s.prompts_too_long > s.prompts_over_kv_capacity), None)
    if scan is None:
        return
    prompt, limit = scan.prompt_too_long_max or (0, 0)
    ev = [Evidence(scan.source, line) for line in scan.prompt_too_long_examples if "block_manager" not in line]
    configured = setting(vllm_cmdline, vllm_log, "max_model_len")
    if configured:
        ev.append(Evidence("cmdline.txt" if vllm_cmdline is not None and vllm_cmdline.get("max_model_len")
                           else scan.source, f"max_model_len {configured}"))
    want = 1 << max(prompt + 1024, 4096).bit_length() if prompt else None
    output = scan.output_too_long  # refused for max_tokens: the prompt itself fits
    refused = scan.prompts_too_long - scan.prompts_over_kv_capacity
    if output == refused:
        title = (f"vLLM refused {output} request(s) asking for more output tokens (max_tokens) than max_model_len "
                 "leaves after the prompt")
    else:
        title = (f"vLLM refused {refused - output} request(s) whose prompt is longer than max_model_len"
                 + (f" ({prompt:,} tokens > {limit:,})" if prompt else "")
                 + (f"; {output} more asked for more output tokens than fit" if output else ""))
    yield Finding(
        Cause.CONTEXT_TRUNCATION, Severity.WARNING, title, ev,
        remedy_fix("The limit is the engine's max_model_len (--max-model-len, or max_model_len= in LLM(...)): prompt plus "
            "max_tokens must fit in it; there is no separate prompt limit to raise. "
            + ("Have the clients ask for fewer output tokens (max_tokens / max_completion_tokens at most "
               "max_model_len minus the prompt), or raise the limit " if output else "Raise it ")
            + "to what the requests need - within the model's trained context (max_position_embeddings) and what "
            "the KV cache holds (the start-up 'Maximum concurrency' line) - or shorten the prompts. A model trained "
            "for less than the prompt needs a long-context model.",
            vllm(vllm_cmdline if want else None, max_model_len=want or 32768)))
