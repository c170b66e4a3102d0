"""Shared figures and fixes for the SGLang checks: the settings in effect, the backlog in its
batch lines or gauges, and the memory levers in the order they cost."""
from __future__ import annotations

from llmdoctor.judge.fixes import MEMORY_ORDER, either, remedy_fix, sglang
from llmdoctor.judge.thresholds import (SGLANG_DEEP_QUEUE_MIN, SGLANG_KV_FULL, SGLANG_KV_FULL_SHARE, SGLANG_LONG_PROMPT,
                                        SGLANG_QUEUE_LINES, SGLANG_QUEUE_SUSTAINED_LINES)
from llmdoctor.model import Evidence, Fix


def setting(key, cmdline=None, server_info=None, log=None):
    """(value, where) of a server argument: the log's start-up summary (the value in effect,
    after SGLang's own caps), /get_server_info, the command line; (None, "") when unknown."""
    for scan in (log.scans if log is not None else ()):
        if scan.settings.get(key) is not None:
            return scan.settings[key], scan.source
    if server_info and server_info.get(key) is not None:
        return server_info[key], server_info.get("_source", "/get_server_info")
    if cmdline is not None and cmdline.get(key) is not None:
        return cmdline.get(key), "command line"
    return None, ""


def backlog(scan):
    """(kind, evidence) for requests that waited in this log: 'kv' when the KV pool was full
    (token usage >= 0.9 on most such lines), 'queue' otherwise; (None, []) when none waited long."""
    run = scan.longest_queue_run
    if run is None or not (run.length >= SGLANG_QUEUE_LINES or run.peak >= max(SGLANG_DEEP_QUEUE_MIN, run.first.running)):
        return None, []
    waiting = [b for b in scan.recent if b.queue > 0]
    full = [b for b in waiting if b.token_usage is not None and b.token_usage >= SGLANG_KV_FULL]
    kind = "kv" if waiting and len(full) >= SGLANG_KV_FULL_SHARE * len(waiting) else "queue"
    ev = [Evidence(scan.source, run.first.text)]
    if run.last is not run.first:
        ev.append(Evidence(scan.source, run.last.text))
    ev.append(Evidence(scan.source, f"{run.length} consecutive batch line(s) with #queue-req > 0 (peak {run.peak:g}); "
                                    f"{len(full)} of {len(waiting)} with token usage >= {SGLANG_KV_FULL}"))
    return kind, ev


def metrics_backlog(metrics):
    """The same from one /metrics scrape."""
    m = metrics.latest if metrics is not None else None
    if m is None or not m.queued:
        return None, []
    usage = f", sglang:token_usage {m.token_usage:.2f}" if m.token_usage is not None else ""
    text = f"sglang:num_queue_reqs {m.queued:g}, sglang:num_running_reqs {m.running or 0:g}{usage}"
    if m.ttft is not None and m.ttft.mean is not None:
        text += f"; mean time to first token {m.ttft.mean:.2f} s"
    kind = "kv" if m.token_usage is not None and m.token_usage >= SGLANG_KV_FULL else "queue"
    return kind, [Evidence(metrics.source, text)]


def backlogs(log, metrics):
    """(kind, evidence, sustained) for each source that shows requests waiting: every log scan,
    then the /metrics scrape (a recording may hold each from a different moment)."""
    for scan in (log.scans if log is not None else ()):
        kind, ev = backlog(scan)
        if kind:
            yield kind, ev, scan.longest_queue_run.length >= SGLANG_QUEUE_SUSTAINED_LINES
    kind, ev = metrics_backlog(metrics)
    if kind:
        yield kind, ev, False


def memory_fix(summary: str, cmdline=None, server_info=None, log=None, cap_context: bool = True) -> Fix:
    """More requests in the same KV pool, cheapest first: cap --context-length, then
    --kv-cache-dtype fp8_e5m2, then --tp (more GPUs). Without `cap_context` (a prompt that must
    fit whole), the pool itself has to grow: the last two."""
    context, _ = setting("context_length", cmdline, server_info, log)
    if context is None:
        context, _ = setting("context_len", cmdline, server_info, log)
    dtype, _ = setting("kv_cache_dtype", cmdline, server_info, log)
    tp, _ = setting("tp_size", cmdline, server_info, log)
    steps = [sglang(cmdline, context_length=max(4096, int(context) // 2) if context else 32768)] \
        if cap_context else []
    if not str(dtype or "auto").startswith("fp8"):
        steps.append(sglang(cmdline, kv_cache_dtype="fp8_e5m2"))
    steps.append(sglang(cmdline, tp=int(tp or 1) * 2))
    grow = ("--kv-cache-dtype fp8_e5m2 (or fp8_e4m3; about twice the tokens in the same memory, where the "
            "attention backend supports it), then more GPUs with --tp (the weights split over them leave each "
            "more room for KV).")
    levers = (f"{MEMORY_ORDER} For SGLang: --context-length (bounds what one request may hold of the pool "
              f"--mem-fraction-static sized), then {grow}" if cap_context else
              f"Cheapest first: {grow}")
    return remedy_fix(f"{summary} {levers}", either(*steps))


def prompt_tokens(batch) -> float | None:
    """Prompt tokens per sequence in one prefill batch (computed + cached)."""
    if batch.new_tokens is None or not batch.new_seq:
        return None
    return (batch.new_tokens + (batch.cached_tokens or 0)) / batch.new_seq


def long_prefills(scan):
    """The prefill batches of this log whose prompts average SGLANG_LONG_PROMPT tokens or more."""
    return [b for b in scan.recent if b.kind == "prefill" and (prompt_tokens(b) or 0) >= SGLANG_LONG_PROMPT]
