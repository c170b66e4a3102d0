"""How llama-server's KV cache is laid out (per-slot contexts or one unified pool, read from its
log and command line), and which of its requests waited for a slot."""
from __future__ import annotations

from llmdoctor.judge import thresholds as T


def queued_launches(scan) -> tuple[int, tuple[str, ...]]:
    """(requests that took a slot within LLAMACPP_BACK_TO_BACK_S of its release while every
    other slot was busy, the release and launch lines of the first): each had been waiting."""
    n = sum(1 for gap in scan.reuse_gaps if gap <= T.LLAMACPP_BACK_TO_BACK_S)
    first = next(((release, launch) for gap, release, launch in scan.reuse_lows if gap <= T.LLAMACPP_BACK_TO_BACK_S), ())
    return n, first


def slot_scan(log):
    """The first scan of the log that saw the slots and their context."""
    for scan in (log.scans if log is not None else ()):
        if scan.n_slots and scan.slot_n_ctx:
            return scan
    return None


def kv_unified(scan, cmdline) -> tuple[bool | None, str]:
    """Whether the slots share one pool: as logged, or inferred (and why)."""
    if scan is not None and scan.kv_unified is not None:
        return scan.kv_unified, ""
    if cmdline is not None and cmdline.ctx_size:
        if scan is not None and (scan.n_slots or 0) > 1 and scan.slot_n_ctx and scan.slot_n_ctx >= cmdline.ctx_size:
            return True, "each slot is told the whole -c, which only a unified pool does"
        return cmdline.unified, ""
    return None, ""


def slot_context(log, cmdline, state) -> tuple[int | None, int | None]:
    """(each slot's context now, the model's trained context) from the richest source. A fix
    that adds slots keeps each slot's context (never more than the model was trained for:
    llama.cpp caps a sequence at n_ctx_train, so a larger -c per slot is memory for nothing)."""
    scan = slot_scan(log)
    train = next((s.n_ctx_train for s in (log.scans if log is not None else ()) if s.n_ctx_train), None) \
        or (state.n_ctx_train if state is not None else None)
    if scan is not None:
        return scan.slot_n_ctx, train
    if cmdline is not None and cmdline.per_slot_ctx:
        return cmdline.per_slot_ctx, train
    if state is not None and state.props is not None and state.props.n_ctx:
        return state.props.n_ctx, train
    return None, train


def slot_tokens_for(want: int, train: int | None) -> int:
    """`want` tokens per slot, capped at the trained context where the server said it."""
    return min(want, train) if train else want
