"""How llama-server's KV cache is laid out: per-slot contexts or one unified pool, read from its log and command line."""
from __future__ import annotations


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
