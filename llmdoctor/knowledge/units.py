"""Byte sizes as people read them (binary units, as free -h and nvidia-smi print them). A
module of its own: checks that only format a size need not load the memory parsers."""
from __future__ import annotations

KIB = 1024
MIB = 1024 * 1024
GIB = 1024 * 1024 * 1024


def human_bytes(n: float | None) -> str:
    """1610612736 -> '1.5 GiB' (binary units, as free -h and nvidia-smi use)."""
    if n is None:
        return "unknown"
    n = float(n)
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"
