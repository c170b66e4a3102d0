"""llama-server's slots share one unified KV pool smaller than the context each slot is promised."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import llama, remedy_fix
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import LLAMACPP_KV_PURGES_ALONE

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog
    from llmdoctor.knowledge.llamacpp.cmdline import LlamaCmdline




def _exhausted(log):
    """(scan, lines) where llama-server said the KV cache ran out, or cleared idle slots' caches to make
    room in a unified pool (b7xxx-: `purging slot N with M tokens`; those conversations recompute)."""
    for scan in (log.scans if log is not None else ()):
        if scan.cpp.kv_full_count:
            return scan, [Evidence(scan.source, l) for l in scan.cpp.kv_full[:2]] + _purges(scan)
    for scan in (log.scans if log is not None else ()):
        if scan.cpp.slot_purges >= LLAMACPP_KV_PURGES_ALONE:
            return scan, _purges(scan)
    return None, []


def _purges(scan) -> list:
    c = scan.cpp
    if not c.slot_purges:
        return []
    return [Evidence(scan.source, c.purge_lines[0]),
            Evidence(scan.source, f"{c.slot_purges} idle slot(s) purged to make room in the shared KV pool: "
                                  f"their next requests recompute the whole prompt")]


def _pool(scan, cmdline):
    """Tokens in the unified KV pool, and where that figure came from."""
    if scan is not None and scan.n_ctx:
        return scan.n_ctx, Evidence(scan.source, f"llama_context: n_ctx = {scan.n_ctx}")
    if cmdline is not None and cmdline.ctx_size:
        return cmdline.ctx_size, Evidence("command line", f"-c {cmdline.ctx_size}"
                                          + ("" if cmdline.n_parallel else " (-np not given: auto, 4 slots sharing one pool)"))
    if scan is not None and scan.n_ctx_seq and scan.kv_unified:
        return scan.n_ctx_seq, Evidence(scan.source, f"n_ctx_seq {scan.n_ctx_seq} (unified: the whole pool)")
    if scan is not None and scan.kv_unified and scan.slot_n_ctx:
        # a slot sees min(pool, training context): the pool holds at least that, and with -c left to the
        # model's training context (the auto default) exactly that
        return scan.slot_n_ctx, None
    return None, None


@check(id="llamacpp-kv-overcommit", cause=Cause.KV_CAPACITY,
       purpose="llama-server's slots share one unified KV pool smaller than the context each slot is promised",
       engines=("llamacpp",), needs=("llamacpp_log", "llamacpp_cmdline"))
def kv_overcommit(llamacpp_log: LlamaLog | None = None, llamacpp_cmdline: LlamaCmdline | None = None):
    from llmdoctor.judge.llamacpp import slot_scan, kv_unified

    scan = slot_scan(llamacpp_log)
    full_scan, full_ev = _exhausted(llamacpp_log)
    n = scan.n_slots if scan is not None else None
    per_slot = scan.slot_n_ctx if scan is not None else None
    pool, pool_ev = _pool(scan, llamacpp_cmdline)
    unified, inferred = kv_unified(scan, llamacpp_cmdline)
    promised = n * per_slot if n and per_slot else None
    over = bool(unified) and n is not None and n > 1 and promised and pool and promised > pool
    if not over and not full_ev:
        return
    ev = []
    if scan is not None and (over or full_ev):
        ev.append(Evidence(scan.source, scan.slots_line))
    if over and pool_ev is not None:
        ev.append(pool_ev)
    if inferred:
        ev.append(Evidence(scan.source, inferred))
    ev += full_ev
    if over:
        title = (f"llama-server's {n} slots share one {pool:,}-token KV pool but each may use {per_slot:,}: "
                 f"overlapping long requests ask for up to {promised:,} tokens")
        if full_ev:
            title += ", and the pool has already run out"
    elif full_scan is not None and not full_scan.cpp.kv_full_count:
        title = (f"llama-server's shared KV pool is too small for its slots: it purged idle slots' cached prompts "
                 f"{full_scan.cpp.slot_purges} times to fit new requests")
    else:
        title = "llama-server's KV cache ran out while requests were running"
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING, title, ev,
        remedy_fix("On a unified cache (--kv-unified, or -np left on auto, which runs 4 slots) every slot may use all "
            "-c tokens of one shared pool; when requests overlap, the pool fills ('failed to find free space in the KV cache'), batches "
            "shrink and requests are aborted ('Context size has been exceeded'). Set the slots yourself and give "
            "the pool room for all of them: -np N with -c = N x the longest request (each slot then gets its own "
            "share), or -np 1 if one request at a time is enough.",
            llama({"-np": n or 4, "-c": (n or 4) * (per_slot or 8192)},
                  alternatives=(llama({"-np": 1, "-c": per_slot or pool or 8192}),))),
        confidence=Confidence.HIGH if full_ev or pool_ev is not None and (scan.kv_unified is not None or inferred) else Confidence.MEDIUM)
