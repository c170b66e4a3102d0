"""CONTEXT_TRUNCATION in SGLang: prompts refused for exceeding the context length, or the
longest request allowed (`max_req_input_len`, bounded by the KV pool) below --context-length."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import memory_fix, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-context-exceeded", cause=Cause.CONTEXT_TRUNCATION,
       purpose="SGLang refused prompts longer than the context it allows (`Input length (N tokens) exceeds the "
               "maximum allowed length`, `The input (N tokens) is longer than the model's context length`)",
       engines=("sglang",))
def context_exceeded(sglang_log: SglangLog, sglang_cmdline: SglangCmdline | None = None,
                     sglang_server_info: dict | None = None):
    scans = [s for s in sglang_log.scans if s.refusals]
    if not scans:
        return
    ev = [Evidence(s.source, t) for s in scans for t in s.refusal_examples[:2]]
    prompt, limit = max((s.refusal_max for s in scans if s.refusal_max), default=(0, 0))
    context, where = setting("context_length", sglang_cmdline, sglang_server_info, sglang_log)
    truncate, _ = setting("allow_auto_truncate", sglang_cmdline, sglang_server_info, sglang_log)
    title = f"SGLang refused {sum(s.refusals for s in scans)} request(s) longer than the context it allows"
    if context and limit and limit < int(context):
        ev.append(Evidence(where, f"context_length {context}, yet requests are cut off at {limit} tokens: the KV "
                                  "pool (max_total_num_tokens) holds less than one full-length request"))
        fix = memory_fix(f"A {prompt:,}-token prompt needs a KV pool that holds it: SGLang caps each request at "
                         "what the pool can store, below --context-length.", sglang_cmdline, sglang_server_info,
                         sglang_log, cap_context=False)
    else:
        fix = remedy_fix(f"The longest refused prompt was {prompt:,} tokens against a limit of {limit:,}. Shorten or "
                  "summarise what clients send (history, retrieved documents), or raise --context-length up to "
                  "what the model supports (rope scaling beyond it) if the KV pool has room. --allow-auto-truncate "
                  "only trades the refusal for a prompt silently cut short.",
                  sglang(sglang_cmdline, context_length=max(prompt, limit * 2)))
    if truncate:
        ev.append(Evidence("settings", "allow_auto_truncate True: other long prompts may have been cut, not refused"))
    yield Finding(Cause.CONTEXT_TRUNCATION, Severity.WARNING, title, ev, fix, confidence=Confidence.HIGH)
