"""KV_CAPACITY in llama-server: the context -c is the KV cache, and the slots ask more of it than it holds.

Explicit -np splits -c between the slots (each gets n_ctx / np); -np left on auto (newer
builds) makes 4 slots share one unified pool of -c tokens and tells each it may use all
of it, so overlapping long requests run the pool dry (FACTS.md §6.1, llama.cpp PR #16736).
"""
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

SMALL_SLOT = 8192


def _from_log(log):
    for scan in (log.scans if log is not None else ()):
        if scan.n_slots and scan.slot_n_ctx:
            return scan
    return None


def _unified(scan, cmdline) -> tuple[bool | None, str]:
    """Whether the slots share one pool: as logged, or inferred (and why)."""
    if scan is not None and scan.kv_unified is not None:
        return scan.kv_unified, ""
    if cmdline is not None and cmdline.ctx_size:
        if scan is not None and (scan.n_slots or 0) > 1 and scan.slot_n_ctx and scan.slot_n_ctx >= cmdline.ctx_size:
            return True, "each slot is told the whole -c, which only a unified pool does"
        return cmdline.unified, ""
    return None, ""


def _split(log, cmdline, state):
    """(slots, per-slot ctx, unified, evidence, n_ctx_train) from the richest source."""
    scan = _from_log(log)
    if scan is not None:
        ev = [Evidence(scan.source, scan.slots_line)]
        if scan.ctx_warning:
            ev.append(Evidence(scan.source, scan.ctx_warning))
        return scan.n_slots, scan.slot_n_ctx, _unified(scan, cmdline)[0], ev, scan.n_ctx_train
    if cmdline is not None and cmdline.n_parallel and cmdline.ctx_size:
        return (cmdline.slots, cmdline.per_slot_ctx, cmdline.unified,
                [Evidence("command line", f"-c {cmdline.ctx_size} -np {cmdline.n_parallel}"
                          + (" --kv-unified" if cmdline.kv_unified else ""))], None)
    if state is not None and state.props and state.props.total_slots and state.props.n_ctx:
        return (state.props.total_slots, state.props.n_ctx, None,
                [Evidence(state.sources.get("props", "/props"),
                          f"total_slots {state.props.total_slots}, n_ctx {state.props.n_ctx} per slot")], None)
    return None, None, None, [], None


def _exhausted(log):
    """(scan, lines) where llama-server said the KV cache ran out."""
    for scan in (log.scans if log is not None else ()):
        if scan.cpp.kv_full_count:
            return scan, [Evidence(scan.source, l) for l in scan.cpp.kv_full[:2]]
    return None, []


@check(id="llamacpp-slot-context", cause=Cause.KV_CAPACITY,
       purpose="llama-server splits -c across explicit -np slots, leaving each conversation a small KV cache")
def slot_context(llamacpp_log=None, llamacpp_cmdline=None, llamacpp_state=None):
    n, per_slot, unified, ev, train = _split(llamacpp_log, llamacpp_cmdline, llamacpp_state)
    if not n or n < 2 or not per_slot or unified:
        return
    errors = next((s for s in (llamacpp_log.scans if llamacpp_log is not None else ()) if s.context_exceeded), None)
    if per_slot >= SMALL_SLOT and errors is None:
        return
    if train and per_slot >= train:
        return
    if errors is not None:
        ev.append(Evidence(errors.source, errors.context_exceeded_examples[-1].text))
    total = n * per_slot
    want = max(SMALL_SLOT, per_slot * 4)
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING,
        f"llama-server gives each of its {n} slots only {per_slot:,} tokens of KV cache (-c {total:,} split {n} ways)",
        ev,
        Fix(f"With an explicit -np, llama-server divides -c between the slots, so a request longer than "
            f"{per_slot:,} tokens is refused or shifted. Size -c as slots x the longest request (-c {n * want}), "
            f"or run fewer slots; --kv-unified lets any slot use the whole -c instead (then watch for the pool "
            f"running dry under load).",
            (f"llama-server -m MODEL -np {n} -c {n * want}", f"llama-server -m MODEL -np {n} -c {total} --kv-unified")),
        confidence="high" if errors is not None or unified is False else "medium")


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
       purpose="llama-server's slots share one unified KV pool smaller than the context each slot is promised")
def kv_overcommit(llamacpp_log=None, llamacpp_cmdline=None):
    scan = _from_log(llamacpp_log)
    full_scan, full_ev = _exhausted(llamacpp_log)
    n = scan.n_slots if scan is not None else None
    per_slot = scan.slot_n_ctx if scan is not None else None
    pool, pool_ev = _pool(scan, llamacpp_cmdline)
    unified, inferred = _unified(scan, llamacpp_cmdline)
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
    else:
        title = "llama-server's KV cache ran out while requests were running"
    yield Finding(
        Cause.KV_CAPACITY, Severity.WARNING, title, ev,
        Fix("On a unified cache (--kv-unified, or -np left on auto, which runs 4 slots) every slot may use all "
            "-c tokens of one shared pool; when requests overlap, the pool fills ('failed to find free space in the KV cache'), batches "
            "shrink and requests are aborted ('Context size has been exceeded'). Set the slots yourself and give "
            "the pool room for all of them: -np N with -c = N x the longest request (each slot then gets its own "
            "share), or -np 1 if one request at a time is enough.",
            (f"llama-server -m MODEL -np {n or 4} -c {(n or 4) * (per_slot or 8192)}",
             f"llama-server -m MODEL -np 1 -c {per_slot or pool or 8192}")),
        confidence="high" if full_ev or pool_ev is not None and (scan.kv_unified is not None or inferred) else "medium")
