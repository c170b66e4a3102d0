"""Long prompts stall vLLM: waiting requests while prefill dwarfs generation."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.vllm import classify_waiting, decode_starved, setting
from llmdoctor.judge.fixes import remedy_fix, vllm
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-prefill-interference", cause=Cause.PREFILL,
       purpose="Long prompts stall vLLM: waiting requests while prefill dwarfs generation",
       engines=("vllm",), needs=("vllm_log", "vllm_metrics"))
def prefill_interference(
    vllm_log: VllmLog | None = None,
    vllm_metrics: VllmMetricsSample | None = None,
    vllm_cmdline: VllmCmdline | None = None,
):
    kind, ev = None, []
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        kind, ev = classify_waiting(scan=scan)
        if kind:
            break
    if not kind:
        kind, ev = classify_waiting(metrics=vllm_metrics)
    starved = None
    if kind is None:
        starved = next((x for x in map(decode_starved, vllm_log.scans if vllm_log is not None else ()) if x), None)
    if kind != "prefill" and starved is None:
        return
    if starved is not None:
        slow, busy = starved
        src = vllm_log.scans[0].source
        ev = [Evidence(src, slow.text), Evidence(src, busy.text),
              Evidence(src, f"{slow.running} requests running, generation {slow.generation_tps:g} tokens/s in all; "
                            f"next to it {busy.prompt_tps:g} prompt tokens/s: a long prefill took the engine's steps")]
    budget = setting(vllm_cmdline, vllm_log, "max_num_batched_tokens")  # (the log: non-default args, chunked prefill)
    budget = budget if isinstance(budget, int) and budget > 0 else None
    target = max(512, (budget or 8192) // 4)
    # V0 prefills a whole prompt in one step unless chunked prefill is on (off by default there)
    v0 = vllm_log is not None and any(s.engine_version == "v0" for s in vllm_log.scans) and not (
        (vllm_cmdline is not None and vllm_cmdline.get("enable_chunked_prefill"))
        or any(s.settings.get("enable_chunked_prefill") for s in vllm_log.scans))
    flags = dict(enable_chunked_prefill="", max_num_batched_tokens=target) if v0 else dict(max_num_batched_tokens=target)
    yield Finding(
        Cause.PREFILL, Severity.WARNING,
        ("Streaming answers stall while vLLM prefills another request's long prompt" if starved is not None else
         "Prefill of long prompts is crowding out generation in vLLM while requests wait"),
        ev,
        remedy_fix("Long prompts take most of each scheduler step, so waiting requests and running streams both "
            + ("slow down. This V0 engine (stats lines with 'Pending') prefills each prompt in one step: turn "
               f"chunked prefill on (--enable-chunked-prefill, off by default in V0) with a budget "
               f"(--max-num-batched-tokens {target}) so decode steps interleave with prefill, or move to a V1 "
               "release, where it is always on; use "
               if v0 else
               "slow down. Lower the chunked-prefill budget so decode steps interleave with prefill "
               f"(--max-num-batched-tokens {target}), limit concurrent long prefills "
               "(--max-num-partial-prefills, --long-prefill-token-threshold), keep using ")
            + "prefix caching for shared prompt heads, and shorten prompts where you can.",
            vllm(vllm_cmdline, **flags)),
        confidence=Confidence.MEDIUM if starved is not None else Confidence.HIGH)
