"""CONFIG_NOT_APPLIED in SGLang: --max-total-tokens asked for a KV pool larger than memory holds,
and SGLang sized it to what it measured ("max_total_tokens=N is larger than the profiled value
M. Use the profiled value instead."); a measured value at or below 0 means the weights leave no
room for any pool."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import remedy_fix, sglang
from llmdoctor.judge.sglang import memory_fix, setting
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.cmdline import SglangCmdline


@check(id="sglang-pool-not-applied", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="SGLang ignored --max-total-tokens: the KV pool it asks for does not fit (`max_total_tokens=N is "
               "larger than the profiled value M`)", engines=("sglang",))
def pool_not_applied(sglang_log: SglangLog, sglang_cmdline: SglangCmdline | None = None,
                     sglang_server_info: dict | None = None):
    scan = next((s for s in sglang_log.scans if s.settings.get("profiled_max_total_tokens") is not None), None)
    if scan is None:
        return
    st = scan.settings
    asked, measured = st.get("max_total_tokens"), st["profiled_max_total_tokens"]
    ev = [Evidence(scan.source, f"max_total_tokens={asked} is larger than the profiled value {measured}: SGLang "
                                "uses the profiled value")]
    if st.get("weights_gb") is not None or st.get("avail_mem_after_weights_gb") is not None:
        ev.append(Evidence(scan.source, f"after loading the weights ({st.get('weights_gb', '?')} GB per GPU): "
                                        f"{st.get('avail_mem_after_weights_gb', '?')} GB free"))
    fraction, _ = setting("mem_fraction_static", sglang_cmdline, sglang_server_info, sglang_log)
    if measured <= 0:
        tp, _ = setting("tp_size", sglang_cmdline, sglang_server_info, sglang_log)
        yield Finding(
            Cause.CONFIG_NOT_APPLIED, Severity.CRITICAL,
            "SGLang has no memory left for a KV pool: the weights take what --mem-fraction-static allows", ev,
            remedy_fix("The pool gets what --mem-fraction-static leaves after the weights"
                + (f" ({fraction})" if fraction else "") + ", and here that is nothing, so no --max-total-tokens "
                "can apply. Spread the weights over more GPUs (--tp), serve a quantised checkpoint, or raise "
                "--mem-fraction-static if the GPU has room for activations and CUDA graphs above it.",
                sglang(sglang_cmdline, tp=int(tp) * 2) if tp else None),
            confidence=Confidence.HIGH)
        return
    yield Finding(
        Cause.CONFIG_NOT_APPLIED, Severity.WARNING,
        f"SGLang ignored --max-total-tokens {asked}: its KV pool holds {measured:,} tokens", ev,
        memory_fix(f"Fewer tokens fit than asked, so fewer requests run at once than planned. Drop "
                   f"--max-total-tokens (SGLang sizes the pool itself) or make room for {asked:,} tokens.",
                   sglang_cmdline, sglang_server_info, sglang_log),
        confidence=Confidence.HIGH)
