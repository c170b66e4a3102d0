"""PREFILL in SGLang: the radix (prefix) cache is disabled, so a prompt head shared by many
requests - an agent fleet's system prompt - is prefilled again for every request."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang, without
from llmdoctor.judge.sglang import long_prefills, prompt_tokens, setting
from llmdoctor.judge.thresholds import SGLANG_LONG_PROMPT
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-radix-cache-off", cause=Cause.PREFILL,
       purpose="SGLang runs with --disable-radix-cache: shared prompt prefixes are recomputed for every request",
       engines=("sglang",), needs=("sglang_cmdline", "sglang_server_info", "sglang_log"))
def radix_cache_off(
    sglang_cmdline: SglangCmdline | None = None,
    sglang_server_info: dict | None = None,
    sglang_log: SglangLog | None = None,
):
    off, where = setting("disable_radix_cache", sglang_cmdline, sglang_server_info, sglang_log)
    if not off:
        yield from _switched_off_by_sglang(sglang_log)
        return
    ev = [Evidence(where, "--disable-radix-cache" if where == "command line" else "disable_radix_cache True")]
    long = [(scan.source, b) for scan in (sglang_log.scans if sglang_log is not None else ()) for b in long_prefills(scan)]
    if long:
        src, b = long[0]
        ev += [Evidence(src, b.text),
               Evidence(src, f"{len(long)} prefill batch(es) of prompts >= {SGLANG_LONG_PROMPT} tokens "
                             f"(first: {prompt_tokens(b):,.0f} per request), none of it from a cache")]
    argv = tuple(sglang_cmdline.argv) if sglang_cmdline is not None else ()
    yield Finding(
        Cause.PREFILL, Severity.WARNING if long else Severity.INFO,
        "SGLang's radix cache is disabled: a shared prompt prefix is prefilled again for every request", ev,
        remedy_fix("Remove --disable-radix-cache. The radix cache (on by default) keeps computed prompt prefixes, so "
            "requests that share a long system prompt or document skip its prefill - the reason to run SGLang "
            "for agent fleets. Keep the shared part first and identical in every request.",
            without(sglang(sglang_cmdline), "--disable-radix-cache", argv)),
        confidence=Confidence.HIGH if long else Confidence.MEDIUM)


def _switched_off_by_sglang(sglang_log):
    """SGLang turned the radix cache off itself (a model or attention backend it does not support
    prefix caching with: `Hybrid GDN model detected, disable radix cache`, `Radix cache is disabled
    for ...`, `Disabling radix cache since ...`); worth a finding only where long prompts are
    prefilled in full, and the fix is another backend or strategy, not a flag to remove."""
    for scan in (sglang_log.scans if sglang_log is not None else ()):
        said = scan.settings.get("radix_cache_auto_off")
        long = long_prefills(scan) if said else []
        if not long:
            continue
        b = long[0]
        yield Finding(
            Cause.PREFILL, Severity.WARNING,
            "SGLang switched its radix cache off for this model or backend: shared prompt prefixes are prefilled "
            "again for every request",
            [Evidence(scan.source, said), Evidence(scan.source, b.text),
             Evidence(scan.source, f"{len(long)} prefill batch(es) of prompts >= {SGLANG_LONG_PROMPT} tokens "
                                   f"(first: {prompt_tokens(b):,.0f} per request), none of it from a cache")],
            Fix("The line above names why SGLang runs without prefix caching here. Where it names an attention "
                "backend or a scheduler strategy that keeps the cache (for hybrid Mamba/GDN models: "
                "--mamba-scheduler-strategy extra_buffer, or --attention-backend triton), use it; otherwise a newer "
                "SGLang may support the cache for this model. Until then every request pays its whole prompt: "
                "keep shared system prompts short."),
            confidence=Confidence.MEDIUM)
        return
