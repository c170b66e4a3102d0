"""vLLM runs with prefix caching off (cache_config_info, command line, or V0 default)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import remedy_fix, vllm
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import VLLM_PREFIX_OFF_MIN_LINES

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.vllm.cmdline import VllmCmdline


@check(id="vllm-prefix-caching-off", cause=Cause.PREFILL,
       purpose="vLLM runs with prefix caching off (cache_config_info, command line, or V0 default)",
       engines=("vllm",), needs=("vllm_metrics", "vllm_cmdline", "vllm_log"))
def prefix_caching_off(
    vllm_metrics: VllmMetricsSample | None = None,
    vllm_cmdline: VllmCmdline | None = None,
    vllm_log: VllmLog | None = None,
):
    ev = []
    if vllm_metrics is not None and vllm_metrics.latest.prefix_caching_enabled is False:
        ev.append(Evidence(vllm_metrics.source, 'vllm:cache_config_info{enable_prefix_caching="False"}'))
    if vllm_cmdline is not None and vllm_cmdline.get("enable_prefix_caching") is False:
        ev.append(Evidence("command line", "--no-enable-prefix-caching"))
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        v0 = [s for s in scan.recent_stats if s.engine_version == "v0"]
        if len(v0) >= VLLM_PREFIX_OFF_MIN_LINES and all(s.prefix_hit_pct is None for s in v0):
            ev.append(Evidence(scan.source, v0[-1].text))
            ev.append(Evidence(scan.source, "V0 stats lines without a 'Prefix cache hit rate' line: prefix "
                                            "caching is off (the V0 default)"))
            break
    if not ev:
        return
    # vLLM <= 0.2.x printed its stats from llm_engine.py (llm_engine.py:649 @ v0.2.4; metrics.py from
    # 0.3): a version without prefix caching at all (--enable-prefix-caching came with 0.4.0)
    before_flag = any("llm_engine.py:" in e.text and "Avg prompt throughput" in e.text for e in ev)
    yield Finding(
        Cause.PREFILL, Severity.INFO,
        "vLLM prefix caching is off: a shared system prompt is recomputed for every request",
        ev,
        Fix("This vLLM predates prefix caching (its stats come from llm_engine.py, as in 0.2.x): upgrade to 0.4 "
            "or later, where --enable-prefix-caching lets requests that share a prompt head skip its prefill.",
            ("python -c 'import vllm; print(vllm.__version__)'",)) if before_flag else
        remedy_fix("Turn prefix caching on (the V1 default) so requests that share a prompt head skip its prefill.",
            vllm(vllm_cmdline, enable_prefix_caching="")),
        confidence=Confidence.MEDIUM)
