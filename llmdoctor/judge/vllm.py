"""Shared figures and fixes for the vLLM checks: evidence lines, KV-room levers, telling pure
queueing from prefill interference, and vLLM's refusals for want of KV memory."""
from __future__ import annotations

from llmdoctor.judge.fixes import MEMORY_ORDER, remedy_fix, vllm
from llmdoctor.judge.thresholds import VLLM_KV_FULL_PCT
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

from llmdoctor.judge.thresholds import (VLLM_DEEP_QUEUE_MIN, VLLM_FEW_LONG_KV_PCT as FEW_LONG_KV_PCT,
                                        VLLM_KV_BOUND_PCT as KV_BOUND_PCT, VLLM_KV_BOUND_SHARE,
                                        VLLM_KV_HOG_PCT as KV_HOG_PCT, VLLM_MAX_GPU_UTIL as MAX_GPU_UTIL,
                                        VLLM_PREFILL_HEAVY_SHARE, VLLM_PREFILL_OVER_GENERATION,
                                        VLLM_PREFILL_TPS as PREFILL_TPS, VLLM_ROOM_KV_PCT as ROOM_KV_PCT,
                                        VLLM_SMALLEST_DEFAULT_SEQS as SMALLEST_DEFAULT_SEQS,
                                        VLLM_STARVED_TPS as STARVED_TPS, VLLM_WAITING_RUN_LINES)


def setting(cmdline, logs, key):
    """A vLLM setting from the command line, else from the log's start-up line (non-default args)."""
    value = cmdline.get(key) if cmdline is not None else None
    if value is None:
        for scan in (logs.scans if logs is not None else ()):
            if scan.settings.get(key) is not None:
                return scan.settings[key]
    return value


def kv_full_run(scan):
    """The longest run of consecutive stats lines on which the KV cache was full (usage at or
    above VLLM_KV_FULL_PCT), from the runs the log scanner noted at each level; None without one."""
    for level, run in scan.kv_high_runs:
        if level == VLLM_KV_FULL_PCT:
            return run
    return None


def kv_bound_lines(scan):
    """Stats lines on which requests waited while the KV cache was at least KV_BOUND_PCT full."""
    return [s for s in scan.recent_stats if s.waiting > 0 and s.kv_usage_pct >= KV_BOUND_PCT]


def kv_room_fix(cmdline, summary: str, capacity=None) -> Fix:
    """More KV room: memory fraction, shorter max length, fewer sequences, more GPUs, fp8 cache."""
    util = cmdline.get("gpu_memory_utilization") if cmdline is not None else None
    target = MAX_GPU_UTIL if util is None or util < MAX_GPU_UTIL else min(0.98, round(util + 0.02, 2))
    fixed = cmdline.kv_cache_bytes if cmdline is not None else None
    # a fixed --kv-cache-memory-bytes makes vLLM ignore --gpu-memory-utilization: raise that instead
    flags: dict = {"kv_cache_memory_bytes": fixed * 2} if fixed else {"gpu_memory_utilization": target}
    max_len = cmdline.max_model_len_tokens if cmdline is not None else None
    per_req = capacity.tokens_per_request if capacity is not None else None
    if max_len or per_req:
        flags["max_model_len"] = max(1024, (max_len or per_req) // 2)
    seqs = cmdline.get("max_num_seqs") if cmdline is not None else None
    if capacity is not None and capacity.max_concurrency:
        flags["max_num_seqs"] = max(1, int(capacity.max_concurrency * 2)) if not seqs else max(1, seqs // 2)
    elif seqs:
        flags["max_num_seqs"] = max(1, seqs // 2)
    room = ("Its size is fixed with --kv-cache-memory-bytes, which makes vLLM ignore --gpu-memory-utilization: "
            "raise it as far as the memory allows" if fixed else
            "Use the memory the GPU has: raise --gpu-memory-utilization (default 0.9, 0.92 from v0.20)")
    levers = (f"Give the KV cache more room. {room} and lower --max-num-seqs. Beyond that, "
              f"{MEMORY_ORDER[0].lower()}{MEMORY_ORDER[1:]} "
              "For vLLM: --max-model-len, then --kv-cache-dtype fp8 (about twice the tokens), then "
              "--tensor-parallel-size 2.")
    return remedy_fix(f"{summary} {levers}", vllm(cmdline, **flags))


def stats_evidence(source: str, stats, limit: int = 2) -> list[Evidence]:
    return [Evidence(source, s.text) for s in stats[:limit] if s is not None]


def _between(metrics, name: str):
    """A histogram's change between the two scrapes; its lifetime value when no request
    finished in between (or with one scrape)."""
    last = getattr(metrics.latest, name)
    if last is None:
        return None
    if metrics.second is not None:
        delta = last.minus(getattr(metrics.first, name))
        if delta.count > 0:
            return delta
    return last


def _waiting_matters(scan) -> bool:
    """Requests waited in two stats lines in a row (>= 10 s at the default interval), or one
    line shows a queue as deep as the running batch (a pasted excerpt is often that short)."""
    run = scan.longest_waiting_run
    if run is None:
        return False
    return run.length >= VLLM_WAITING_RUN_LINES or run.peak >= max(VLLM_DEEP_QUEUE_MIN, scan.max_running or 0)


def classify_waiting(scan=None, metrics=None, first=None) -> tuple[str | None, list[Evidence]]:
    """'queue' (requests wait for a free place; inter-token latency unaffected) or 'prefill'
    (long prompts hog the engine: prompt tokens/s dwarf generation, or prefill time exceeds
    queue time), with the figures that decided it; None when nothing waited."""
    ev: list[Evidence] = []
    kind = None
    bound = kv_bound_lines(scan) if scan is not None else []
    waiting = [s for s in scan.recent_stats if s.waiting > 0] if scan is not None else []
    seqs = scan.settings.get("max_num_seqs") if scan is not None else None
    if bound and len(bound) >= VLLM_KV_BOUND_SHARE * len(waiting) and not (seqs and all(s.running >= seqs for s in bound)):
        peak = max(bound, key=lambda s: s.kv_usage_pct)
        ev += [Evidence(scan.source, s.text) for s in ([bound[0]] if peak is bound[0] else [bound[0], peak])]
        ev.append(Evidence(scan.source, f"{len(bound)} of {len(waiting)} stats line(s) with waiting requests had the "
                                        f"KV cache at least {KV_BOUND_PCT:.0f} % full (peak {peak.kv_usage_pct:.1f} %, "
                                        f"{peak.running} running)"))
        return "kv", ev
    if scan is not None and _waiting_matters(scan):
        run = scan.longest_waiting_run
        heavy = scan.waiting_prompt_over(VLLM_PREFILL_OVER_GENERATION) or 0
        kind = "prefill" if heavy > VLLM_PREFILL_HEAVY_SHARE * scan.waiting_lines else "queue"
        ev += [Evidence(scan.source, run.first.text)]
        if run.last is not run.first:
            ev.append(Evidence(scan.source, run.last.text))
        ev.append(Evidence(scan.source, f"{run.length} consecutive stats lines with Waiting > 0 (peak {run.peak:g}); "
                                        f"{heavy} of {scan.waiting_lines} lines with waiting requests had prompt "
                                        f"throughput over {VLLM_PREFILL_OVER_GENERATION}x generation throughput"))
    if metrics is not None:
        m = metrics.latest
        both = metrics.second is None or (metrics.first.waiting or 0) > 0
        if m.waiting and m.waiting > 0 and both:
            q, p = _between(metrics, "queue_time"), _between(metrics, "prefill_time")
            text = f"vllm:num_requests_waiting {m.waiting:g}, vllm:num_requests_running {m.running or 0:g}"
            kv_pct = None if m.kv_usage is None else m.kv_usage * 100
            if kind is None and kv_pct is not None and kv_pct >= KV_BOUND_PCT:
                ev.append(Evidence(metrics.source, f"{text}, {m.kv_usage_name} {m.kv_usage:.3f}"))
                return "kv", ev
            if q is not None and p is not None and q.mean is not None and p.mean is not None:
                text += f"; mean queue time {q.mean:.2f} s vs mean prefill time {p.mean:.2f} s per request"
                kind = kind or ("prefill" if p.mean > q.mean else "queue")
            else:
                kind = kind or "queue"
            itl = _between(metrics, "itl")
            if itl is not None and itl.mean is not None:
                text += f"; mean inter-token latency {itl.mean * 1000:.0f} ms ({m.itl_name})"
            ev.append(Evidence(metrics.source, text))
    return kind, ev


def decode_starved(scan):
    """(starved line, prefill line) when running requests all but stopped generating next to an
    interval in which the engine prefilled a long prompt: the prefill took the steps."""
    lines = list(scan.recent_stats)
    for i, s in enumerate(lines):
        if s.running <= 1 or s.waiting or s.generation_tps is None or s.generation_tps / s.running >= STARVED_TPS:
            continue
        for other in lines[max(0, i - 1): i + 2]:
            p, g = other.prompt_tps or 0.0, other.generation_tps or 0.0
            if p >= PREFILL_TPS and p >= VLLM_PREFILL_OVER_GENERATION * max(g, 1.0) and other.running > 1:
                return s, other
    return None


def _capacity(vllm_log):
    return next((s.kv_capacity for s in vllm_log.scans if s.kv_capacity), None)


def _waiting_kv(vllm_log, vllm_metrics) -> list[float]:
    """KV cache use (%) on the stats lines and the scrape where requests waited."""
    kvs = [s.kv_usage_pct for scan in (vllm_log.scans if vllm_log is not None else ()) for s in scan.recent_stats
           if s.waiting > 0]
    if vllm_metrics is not None and (vllm_metrics.latest.waiting or 0) > 0 and vllm_metrics.latest.kv_usage is not None:
        kvs.append(vllm_metrics.latest.kv_usage * 100)
    return kvs


def kv_share_per_request(vllm_log, vllm_metrics) -> float | None:
    """The largest share (%) of the KV cache one running request held, on a stats line or a scrape
    (KV use / Running): the request sizes this server carries, as against max_model_len's worst case."""
    shares = [s.kv_usage_pct / s.running for scan in (vllm_log.scans if vllm_log is not None else ())
              for s in scan.recent_stats if s.running > 0 and s.kv_usage_pct > 0]
    if vllm_metrics is not None:
        shares += [m.kv_usage * 100 / m.running for m in (vllm_metrics.first, vllm_metrics.second)
                   if m is not None and m.running and m.kv_usage]
    return max(shares, default=None)


def seqs_for_demand(vllm_log, vllm_metrics, seqs: int) -> tuple[int, str]:
    """--max-num-seqs sized to the demand seen, so that one change is enough: the most requests in
    the server at once (Running + Waiting on one stats line or scrape), bounded by how many running
    requests fit in KV_BOUND_PCT of the KV cache at the largest share one of them held; at least one
    place more than now. Without a KV share to bound it, at most twice the cap. (value, why)"""
    demand = max((scan.max_in_flight for scan in (vllm_log.scans if vllm_log is not None else ())), default=0)
    if vllm_metrics is not None:
        demand = max([demand] + [int((m.running or 0) + (m.waiting or 0))
                                 for m in (vllm_metrics.first, vllm_metrics.second) if m is not None])
    share = kv_share_per_request(vllm_log, vllm_metrics)
    if share is None:
        want = max(seqs + 1, min(demand, 2 * seqs))
        return want, (f"Up to {demand} requests were in the server at once (running + waiting); with no KV cache use "
                      f"seen to size it by, --max-num-seqs {want} at most doubles the batch: watch the KV cache "
                      f"before raising it further.")
    fit = max(1, int(KV_BOUND_PCT // share))
    want = max(seqs + 1, min(demand, fit))
    return want, (f"Up to {demand} requests were in the server at once (running + waiting), and one running "
                  f"request held up to {share:.1f} % of the KV cache, so {fit} fit in {KV_BOUND_PCT:.0f} % of it: "
                  f"--max-num-seqs {want}.")


def kv_bound(vllm_log, vllm_metrics, running: int, seqs: int | None) -> str | None:
    """Why requests wait when few run and those few fill the KV cache (intel/llm-scaler#391:
    Running 1, Waiting 14, KV 77 % for an hour): they wait for cache space, not for a place in a
    full batch; None otherwise."""
    kvs = _waiting_kv(vllm_log, vllm_metrics)
    if not kvs or max(kvs) < FEW_LONG_KV_PCT or running >= (seqs or SMALLEST_DEFAULT_SEQS) \
            or max(kvs) / max(running, 1) < KV_HOG_PCT:
        return None
    limit = f"--max-num-seqs {seqs}" if seqs else "--max-num-seqs"
    return (f"Requests wait for KV cache space, not for a place in the batch: at most {running} ran (below {limit}) "
            f"and held up to {max(kvs):.0f} % of the KV cache, about {max(kvs) / max(running, 1):.0f} % each, so a "
            f"waiting request's context does not fit in the rest. Long contexts fill the cache: cap what one request "
            f"may hold (--max-model-len; max_tokens at the client), give the cache more room (--kv-cache-dtype fp8 "
            f"about doubles it, --gpu-memory-utilization), or add a replica. If one request runs alone for long while "
            f"the queue stands still, it is one long generation holding the cache (or the engine is stuck: restart "
            f"it and report the version).")


def batch_room(vllm_log, vllm_metrics, running: int, seqs: int | None) -> str | None:
    """Why requests wait although neither limit is reached — fewer run than --max-num-seqs and
    the KV cache is under half full — so that "the batch is full" would be untrue; None when a
    limit is reached or the KV use is unknown."""
    kvs = _waiting_kv(vllm_log, vllm_metrics)
    if not kvs or max(kvs) >= ROOM_KV_PCT or running >= (seqs or SMALLEST_DEFAULT_SEQS):
        return None
    idle = [s for scan in (vllm_log.scans if vllm_log is not None else ()) for s in scan.recent_stats
            if s.waiting > 0 and s.running == 0]
    if idle:  # nothing ran at all while requests waited (vllm#8378: Running 0, Pending 12, then 22)
        return (f"Requests wait while nothing runs: on {len(idle)} stats line(s) Running was 0 with up to "
                f"{max(s.waiting for s in idle)} waiting and the KV cache {max(s.kv_usage_pct for s in idle):.0f} % "
                f"full, so the engine admitted no request. It is stuck (restart it, and report the version and the "
                f"request that came before), or one request needs more KV cache than there is (a warning in the "
                f"log says so).")
    limit = f"--max-num-seqs {seqs}" if seqs else f"--max-num-seqs, {SMALLEST_DEFAULT_SEQS} or more by default"
    return (f"Requests wait although the batch has room: at most {running} ran (below {limit}) and the KV "
            f"cache was at most {max(kvs):.0f} % full. Something else holds them back: a --max-num-seqs set as "
            f"low as {running} where this log does not show it (raise it), requests for more LoRA adapters at "
            f"once than --max-loras (default 1), a long prompt's chunked prefill taking the step's token budget "
            f"(--max-num-batched-tokens), or a request that never finishes (then the engine is stuck: restart it "
            f"and report the version).")


def _memory_short(scan, vllm_cmdline) -> Finding:
    """The GPU had less free memory at start-up than --gpu-memory-utilization asks for."""
    short = scan.gpu_memory_short
    fits = round(max(0.05, short.free_gib / short.total_gib - 0.03), 2) if short.total_gib else None
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        f"vLLM cannot start: the GPU has {short.free_gib:g} GiB free of {short.total_gib:g} GiB, and "
        f"gpu_memory_utilization {short.utilization:g} asks for {short.requested_gib:g} GiB",
        [Evidence(scan.source, short.text)],
        remedy_fix("vLLM reserves gpu_memory_utilization x the whole GPU at start-up and needs that much free: another "
            "process holds the rest (a second vLLM or another engine, a notebook, a server that has not exited yet; "
            "nvidia-smi lists them). Stop it, or lower --gpu-memory-utilization to the share that is free"
            + (f" (at most {fits})" if fits else "") + ", which also shrinks the KV cache.",
            vllm(vllm_cmdline, gpu_memory_utilization=fits)) if fits else
        Fix("vLLM reserves gpu_memory_utilization x the whole GPU at start-up and needs that much free: another "
            "process holds the rest (a second vLLM or another engine, a notebook, a server that has not exited yet; "
            "nvidia-smi lists them). Stop it, or lower --gpu-memory-utilization to the share that is free, which "
            "also shrinks the KV cache.", ("nvidia-smi",)))


def _no_kv_memory(scan, vllm_cmdline) -> Finding:
    return Finding(
        Cause.KV_CAPACITY, Severity.CRITICAL,
        "vLLM cannot start: no memory is left for the KV cache after the weights and the activations",
        [Evidence(scan.source, scan.no_kv_memory)],
        remedy_fix("The model weights, the activation peak of one batch and the CUDA graphs fill the share of GPU memory "
            "vLLM may use. Give it a larger share (--gpu-memory-utilization), make the batch peak smaller "
            "(--max-num-batched-tokens, --max-num-seqs) or skip the CUDA graphs (--enforce-eager), or make the "
            "weights smaller (a quantized model, --tensor-parallel-size across GPUs).",
            vllm(vllm_cmdline, gpu_memory_utilization=0.95)))


def _over_kv(scan) -> Finding:
    n = scan.prompts_over_kv_capacity
    return Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"vLLM ignored {n} request(s) whose prompt needs more KV blocks than its whole KV cache holds",
        [Evidence(scan.source, line) for line in scan.prompt_too_long_examples if "block_manager" in line]
        + [Evidence(scan.source, line) for line in (scan.kv_capacity.lines[-2:] if scan.kv_capacity else ())],
        Fix("The V0 scheduler can never place such a prompt and drops it. Give the KV cache more room "
            "(--gpu-memory-utilization, --kv-cache-dtype fp8, --tensor-parallel-size) or cap prompts below what the "
            "cache holds (--max-model-len)."))


def kv_memory_refusals(scan, cmdline) -> list[Finding]:
    """vLLM's refusals for want of KV memory other than the max-seq-len one: less free GPU memory
    at start-up than gpu_memory_utilization asks for, no memory for any KV block (both: it does
    not start), a V0 prompt larger than the whole cache (that request is dropped)."""
    out = []
    if scan.gpu_memory_short is not None:
        out.append(_memory_short(scan, cmdline))
    if scan.no_kv_memory is not None:
        out.append(_no_kv_memory(scan, cmdline))
    if scan.prompts_over_kv_capacity:
        out.append(_over_kv(scan))
    return out
