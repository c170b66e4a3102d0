"""GPU_DEGRADED: the NVIDIA driver logged XID errors - a GPU fault, a memory error, a card gone
from the bus. Each code with its meaning and what to do (knowledge/nvidia_xid.py); codes an
application usually causes (13, 31, 43, 45) are warnings, the others critical."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia_xid import KernelXids

SHOWN = 3  # lines shown per code


@check(id="gpu-xid-errors", cause=Cause.GPU_DEGRADED,
       purpose="the NVIDIA driver logged XID errors (GPU faults, ECC errors, a GPU fallen off the bus)",
       needs=("gpu_xid",))
def gpu_xid_errors(gpu_xid: KernelXids | None = None):
    from llmdoctor.knowledge.nvidia_xid import describe

    if gpu_xid is None or not gpu_xid.events:
        return
    by_code: dict[int, list] = {}
    for e in gpu_xid.events:
        by_code.setdefault(e.code, []).append(e)
    for code, events in by_code.items():
        meaning, origin, action = describe(code)
        gpus = sorted({e.pci for e in events})
        lines = [Evidence(gpu_xid.source, e.line) for e in events[:SHOWN]]
        if events[SHOWN:]:
            lines.append(Evidence(gpu_xid.source, f"... {len(events[SHOWN:])} more XID {code} line(s)"))
        yield Finding(
            Cause.GPU_DEGRADED, Severity.WARNING if origin == "application" else Severity.CRITICAL,
            f"XID {code} on {', '.join(p if p.startswith('GPU') else 'PCI:' + p for p in gpus)} ({len(events)}x): {meaning}",
            lines,
            Fix(action, ("nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE",
                         "sudo journalctl -k -b --grep 'NVRM: Xid'")),
        )
