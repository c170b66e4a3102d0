"""One request running alone fills vLLM's KV cache: a sequence near max_model_len cannot fit it.

The start-up check that refuses such a server (max seq len larger than the KV cache) came with
vLLM 0.2.7; older ones, and configurations that pass it, show the shortage only while serving:
a stats line with `Running: 1 reqs` and the GPU KV cache (almost) full. That single sequence grows
by one token a step, so the cache runs out under it: vLLM preempts it (or older ones hang), and
any second request waits. The arithmetic an operator does with the line: one request, 90-100 %
of the cache, so the cache holds about one request's worth of tokens, not max_model_len's."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import VLLM_KV_ALONE_PCT
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-kv-one-sequence", cause=Cause.KV_CAPACITY,
       purpose="One request running alone fills the KV cache: a long sequence cannot fit it",
       engines=("vllm",))
def kv_one_sequence(vllm_log: VllmLog, vllm_cmdline: VllmCmdline | None = None):
    from llmdoctor.judge.vllm import kv_room_fix, setting

    alone = max((s.kv_alone for s in vllm_log.scans if s.kv_alone is not None), key=lambda x: x.kv_usage_pct,
                default=None)
    if alone is None or alone.kv_usage_pct < VLLM_KV_ALONE_PCT:
        return
    source = next(s.source for s in vllm_log.scans if s.kv_alone is alone)
    length = setting(vllm_cmdline, vllm_log, "max_model_len")
    ev = [Evidence(source, alone.text),
          Evidence(source, f"one request running, GPU KV cache {alone.kv_usage_pct:g}% full: the cache holds about "
                           f"one sequence" + (f", and max_model_len allows {length}" if length else ""))]
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"A single request filled {alone.kv_usage_pct:g}% of vLLM's KV cache: a sequence near max_model_len does "
        f"not fit, so it is preempted (or the server stalls) and every other request waits",
        ev, kv_room_fix(vllm_cmdline, "The KV cache is smaller than one long sequence."),
        confidence=Confidence.MEDIUM)
