"""The probe's measurements as performance data: the figures a monitor graphs and alerts on
(`diagnose --probe --format nagios|json`), with llmdoctor's own levels for them."""
from __future__ import annotations

from typing import Any

from llmdoctor.judge.probe import thresholds as T
from llmdoctor.knowledge.probe.stats import p50, p95
from llmdoctor.model import Figure


def probe_figures(runs: Any) -> tuple[Figure, ...]:
    """TTFT and inter-token latency over every stream of every engine probed, and how many
    requests were sent and failed."""
    samples = [s for r in runs.results for s in r.samples]
    ok = [s for s in samples if s.ok]
    ttft = [s.ttft_s for s in ok if s.ttft_s is not None]
    itl = [gap for s in ok for gap in s.itl]
    out = [Figure("probe_requests", float(len(samples))), Figure("probe_failed", float(len(samples) - len(ok)))]
    if ttft:
        out += [Figure("ttft_p50", round(p50(ttft), 4), "s"),
                Figure("ttft_p95", round(p95(ttft), 4), "s", T.TTFT_P95_WARN_S, T.TTFT_P95_CRIT_S)]
    if itl:
        out += [Figure("itl_p50", round(p50(itl), 4), "s"),
                Figure("itl_p95", round(p95(itl), 4), "s", T.ITL_P95_WARN_S, T.ITL_P95_CRIT_S)]
    return tuple(out)
