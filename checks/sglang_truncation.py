"""CONTEXT_TRUNCATION in SGLang: prompts cut to fit and served anyway - always in 0.2-0.4.1.post5
("... Truncated!!!"), with --allow-auto-truncate since - so the model answered without the
start of what the client sent, and nothing told the client."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import memory_fix, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import SGLANG_TRUNCATION_POOL_SHARE
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-context-truncated", cause=Cause.CONTEXT_TRUNCATION,
       purpose="SGLang cut prompts to fit and served them (`Request length is longer than the KV cache pool size "
               "or the max context length. Truncated`, `... Truncating the input.`)",
       engines=("sglang",))
def context_truncated(sglang_log: SglangLog, sglang_cmdline: SglangCmdline | None = None,
                      sglang_server_info: dict | None = None):
    scans = [s for s in sglang_log.scans if s.truncations]
    if not scans:
        return
    count = sum(s.truncations for s in scans)
    ev = [Evidence(s.source, t) for s in scans for t in s.truncation_examples[:2]]
    prompt, limit = max((s.truncation_max for s in scans if s.truncation_max), default=(0, 0))
    context, where = setting("context_length", sglang_cmdline, sglang_server_info, sglang_log)
    pool_bound = bool(context and limit and limit < int(context) * SGLANG_TRUNCATION_POOL_SHARE)
    if limit:
        ev.append(Evidence(scans[0].source, f"longest cut prompt {prompt:,} tokens, kept {limit:,}"))
    if pool_bound:
        ev.append(Evidence(where, f"context_length {context}: the KV pool holds less than one full-length request"))
    title = f"SGLang cut {count} prompt(s) to fit and served them: the model never saw their start"
    if pool_bound:
        fix = memory_fix(f"SGLang keeps at most {limit:,} tokens of a prompt because its KV pool "
                         "(max_total_num_tokens) is smaller than --context-length allows.", sglang_cmdline,
                         sglang_server_info, sglang_log, cap_context=False)
    else:
        flags = {"context_length": max(prompt, limit * 2)} if limit else {}
        fix = remedy_fix("Truncation drops the oldest part of the prompt (system prompt, instructions, documents) "
                  "without an error. Shorten or summarise what clients send, or raise --context-length up to "
                  "what the model supports if the KV pool has room; without --allow-auto-truncate SGLang "
                  "(0.4.1.post7 and later) refuses such prompts with a 400 the client can act on.",
                  sglang(sglang_cmdline, **flags) if flags else None)
    yield Finding(Cause.CONTEXT_TRUNCATION, Severity.WARNING, title, ev, fix, confidence=Confidence.HIGH)
