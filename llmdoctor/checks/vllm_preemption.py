"""PREEMPTION in vLLM: the KV cache is too small for what runs, so requests are evicted and recomputed."""
from llmdoctor.plugins import check
from llmdoctor.judge.vllm import classify_waiting, kv_room_fix, setting, stats_evidence
from llmdoctor.model import Cause, Evidence, Finding, Severity

EVERY_50TH = "V0 logs only the 1st, 51st, 101st... preemption, so each warning stands for up to 50."
KV_PINNED_LINES = 3  # 30 s at the default 10 s stats interval


def _capacity(vllm_log):
    return next((s.kv_capacity for s in vllm_log.scans if s.kv_capacity), None)


@check(id="vllm-preemption", cause=Cause.PREEMPTION,
       purpose="vLLM preempted requests (V0 warnings, V1 'Preemptions: N' in stats lines)")
def preemption_in_log(vllm_log, vllm_cmdline=None):
    for scan in vllm_log.scans:
        if scan.preemption_warnings:
            n = max(scan.preemptions_at_least, scan.max_cumulative or 0)
            ev = [Evidence(scan.source, scan.first_preemption)]
            if scan.last_preemption != scan.first_preemption:
                ev.append(Evidence(scan.source, scan.last_preemption))
            modes = ", ".join(f"{m} ×{c}" for m, c in scan.preemption_modes)
            ev.append(Evidence(scan.source, f"{scan.preemption_warnings} preemption warning(s) ({modes}); "
                                            f"at least {scan.preemptions_at_least} in this log"
                                            + (f", cumulative count up to {scan.max_cumulative}" if scan.max_cumulative else "")
                                            + f". {EVERY_50TH}"))
            yield Finding(Cause.PREEMPTION, Severity.CRITICAL if n >= 100 else Severity.WARNING,
                          "vLLM preempted requests for lack of KV cache space "
                          + (f"(cumulative count {scan.max_cumulative})" if scan.max_cumulative else f"({n} warning(s))"), ev,
                          kv_room_fix(vllm_cmdline, "Preempted requests are recomputed (or swapped), "
                                                    "so latency collapses under load.", _capacity(vllm_log)))
        if scan.v1_preemptions:
            ev = stats_evidence(scan.source, [scan.first_stats_preemption, scan.last_stats_preemption])
            ev.append(Evidence(scan.source, f"{scan.v1_preemptions} preemption(s) reported in "
                                            f"{scan.stats_with_preemptions} stats interval(s)"))
            yield Finding(Cause.PREEMPTION, Severity.CRITICAL if scan.v1_preemptions >= 100 else Severity.WARNING,
                          f"vLLM preempted {scan.v1_preemptions} request(s) (stats lines 'Preemptions: N')", ev,
                          kv_room_fix(vllm_cmdline, "The V1 engine recomputes every preempted request from "
                                                    "scratch.", _capacity(vllm_log)))


@check(id="vllm-preemption-rate", cause=Cause.PREEMPTION,
       purpose="vllm:num_preemptions_total rose between two /metrics samples (or is above 0 in one scrape)")
def preemption_rate(vllm_metrics, vllm_cmdline=None, vllm_log=None):
    rate = vllm_metrics.preemption_rate()
    total = vllm_metrics.first.preemptions_total
    if rate is None and vllm_metrics.second is None and total and total > 0:
        # one scrape (evidence): a lifetime count. The V1 engine logs no preemption at all
        # (a real vLLM 0.32 preempted 11 times with no log line), so this may be the only trace.
        yield Finding(Cause.PREEMPTION, Severity.WARNING,
                      f"vLLM has preempted {total:g} request(s) since it started",
                      [Evidence(vllm_metrics.source, f"vllm:num_preemptions_total {total:g}")],
                      kv_room_fix(vllm_cmdline, "Each preempted request is evicted from the KV cache and computed "
                                                "again, which is where its latency goes.",
                                  _capacity(vllm_log) if vllm_log is not None else None),
                      confidence="medium")
        return
    if rate is None or rate.preemptions <= 0:
        return
    a, b = vllm_metrics.first.preemptions_total, vllm_metrics.second.preemptions_total
    text = (f"vllm:num_preemptions_total {a:g} -> {b:g} in {rate.seconds:.1f} s "
            f"({rate.per_minute:.1f} preemptions per minute)" + (" (counter reset: the server restarted)" if rate.restarted else ""))
    yield Finding(Cause.PREEMPTION, Severity.CRITICAL if rate.per_minute >= 60 else Severity.WARNING,
                  f"vLLM is preempting requests now ({rate.per_minute:.1f} per minute)",
                  [Evidence(vllm_metrics.source, text)],
                  kv_room_fix(vllm_cmdline, "Requests are being evicted from the KV cache while you watch.",
                              _capacity(vllm_log) if vllm_log is not None else None))


@check(id="vllm-kv-pinned", cause=Cause.PREEMPTION,
       purpose="vLLM's KV cache is full: usage pinned near 100 %, or requests waiting while it is >= 80 % full")
def kv_pinned(vllm_log=None, vllm_metrics=None, vllm_cmdline=None):
    for scan in (vllm_log.scans if vllm_log is not None else ()):
        kind, ev = classify_waiting(scan=scan)
        if kind == "kv":
            seqs = setting(vllm_cmdline, vllm_log, "max_num_seqs")
            if seqs:
                ev.append(Evidence(scan.source, f"max_num_seqs {seqs}: the batch had room, the KV cache did not"))
            run = scan.longest_kv_full_run
            yield Finding(Cause.PREEMPTION, Severity.WARNING,
                          "Requests wait while vLLM's KV cache is full: it cannot admit them, and it preempts running "
                          "requests (recomputing them later) to make room", ev,
                          kv_room_fix(vllm_cmdline, "The scheduler admits a waiting request only when the KV cache "
                                                    "has blocks for it, and evicts running ones when it fills. V0 logs "
                                                    "every 50th preemption; V1 logs none (vllm:num_preemptions_total "
                                                    "counts them). --swap-space does not help: V0 swaps only "
                                                    "multi-sequence groups (n > 1, beam search).", scan.kv_capacity),
                          confidence="high" if run is not None and run.length >= KV_PINNED_LINES else "medium")
            return
        run = scan.longest_kv_full_run
        if run is not None and run.length >= KV_PINNED_LINES:
            ev = stats_evidence(scan.source, [run.first, run.last] if run.last is not run.first else [run.first])
            ev.append(Evidence(scan.source, f"{run.length} consecutive stats lines with KV cache usage >= 95 % "
                                            f"(peak {run.peak:.1f} %)"))
            yield Finding(Cause.PREEMPTION, Severity.WARNING,
                          f"vLLM's KV cache stayed full for {run.length} stats intervals", ev,
                          kv_room_fix(vllm_cmdline, "A full KV cache forces new requests to wait and running "
                                                    "ones to be preempted.", scan.kv_capacity))
            return
    if vllm_metrics is not None:
        m, f = vllm_metrics.latest, vllm_metrics.first
        if m.kv_usage is not None and m.kv_usage >= 0.80 and (vllm_metrics.second is None or (f.kv_usage or 0) >= 0.80) \
                and (m.waiting or 0) > 0:
            text = f"{m.kv_usage_name} {m.kv_usage:.3f} with {m.waiting:g} request(s) waiting"
            yield Finding(Cause.PREEMPTION, Severity.WARNING, "vLLM's KV cache is full and requests wait",
                          [Evidence(vllm_metrics.source, text)],
                          kv_room_fix(vllm_cmdline, "A full KV cache forces new requests to wait and running "
                                                    "ones to be preempted."),
                          confidence="medium" if vllm_metrics.second is None else "high")
