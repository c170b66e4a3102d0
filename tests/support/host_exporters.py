"""node_exporter and dcgm-exporter expositions for tests, written from real readings.

No node_exporter or dcgm-exporter runs here (no GPU): these write the lines those exporters
expose, in their formats, from this project's real captures. node_exporter's vmstat collector
(collector/vmstat_linux.go) exposes each /proc/vmstat field as `node_vmstat_<field>`, untyped,
with the help "/proc/vmstat information field <field>."; the values are those of
tests/fixtures/vmstat/proc-vmstat-{before,during-swap}.txt. dcgm-exporter exposes its
default counters as gauges labelled gpu, UUID, pci_bus_id, device, modelName, Hostname; the
values are those of tests/fixtures/nvidia_smi/query-590-h100-load.txt (an H100 at 1980 MHz,
19818 MiB used), the clocks event reasons mask given by the test (nvml.h bits).
"""
from __future__ import annotations

from pathlib import Path

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def vmstat_fields(name: str) -> dict[str, int]:
    out = {}
    for line in (FIX / "vmstat" / name).read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def node_exporter_text(swapping: bool, base: dict[str, int] | None = None, extra_in: int = 0) -> str:
    """node_vmstat_pswpin/out (and the other vmstat fields node_exporter keeps by default)."""
    v = vmstat_fields("proc-vmstat-during-swap.txt" if swapping else "proc-vmstat-before.txt")
    lines = []
    for field in ("oom_kill", "pgfault", "pgmajfault", "pgpgin", "pgpgout", "pswpin", "pswpout"):
        if field in v:
            value = v[field] + (extra_in if field in ("pswpin", "pswpout") else 0)
            lines += [f"# HELP node_vmstat_{field} /proc/vmstat information field {field}.",
                      f"# TYPE node_vmstat_{field} untyped", f"node_vmstat_{field} {value}"]
    return "\n".join(lines) + "\n"


def dcgm_exporter_text(reasons: int, hostname: str = "gpu-node-1") -> str:
    labels = (f'gpu="0",UUID="GPU-5e2b7c1a-0000-0000-0000-000000000000",pci_bus_id="00000000:18:00.0",'
              f'device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="{hostname}"')
    rows = [("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", 1980 if not reasons & 0xEC else 1410),
            ("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", 61263),
            ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", 19818),
            ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "Current clock throttle reasons.", reasons)]
    out = []
    for name, help_, value in rows:
        out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge", f"{name}{{{labels}}} {value}"]
    return "\n".join(out) + "\n"
