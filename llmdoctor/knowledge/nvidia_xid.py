"""XID errors: the NVIDIA kernel driver's report of a GPU fault, and what each common code means.

The driver prints them to the kernel log as
`NVRM: Xid (PCI:0000:0a:00): 31, pid=13332, name=cuda_plot_k32_v, Ch 00000010, ...` (pid and
name since the 4xx drivers; older drivers print `NVRM: Xid (PCI:0000:01:00): 32, Channel ID ...`),
read from `journalctl -k` or `dmesg` with any prefix they carry. The table is NVIDIA's XID
catalogue (docs.nvidia.com/deploy/xid-errors/), reduced to the codes a serving host meets:
what the code means, whether the application or the GPU is the usual cause, and what to do.
"""
from __future__ import annotations

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

_XID = LazyPattern(
    r"NVRM: Xid \(PCI:(?P<pci>[0-9A-Fa-f:.]+)\): (?P<code>\d{1,4})"
    r"(?:, pid=(?P<pid>'<unknown>'|<unknown>|\d+))?(?:, name=(?P<name>[^,]*))?,?\s*(?P<detail>.*)$"
)

# code -> (meaning, usual origin "application" | "hardware" | "driver", what to do)
XID_CODES: dict[int, tuple[str, str, str]] = {
    8: ("GPU stopped processing (a channel timed out)", "driver",
        "Usually a hung kernel or driver problem: restart the engine; if it repeats, update the driver and run GPU diagnostics."),
    13: ("Graphics engine exception (an illegal instruction or out-of-range access in a kernel)", "application",
         "Usually the application's kernel (or a CUDA/driver mismatch): check the engine's log for the CUDA error; if it repeats with different software on the same GPU, run `dcgmi diag -r 3`."),
    31: ("GPU memory page fault (MMU fault: a kernel touched an address it does not own)", "application",
         "Usually the application (a kernel bug, mismatched CUDA/driver); repeated faults on the same GPU from different software point at the GPU: run `dcgmi diag -r 3`."),
    32: ("Invalid or corrupted push buffer stream", "driver",
         "Driver or PCIe corruption: update the driver; if it repeats, check the PCIe link and run GPU diagnostics."),
    43: ("GPU stopped processing (the application's channel was stopped after a fault)", "application",
         "Follows an application fault or a killed process; the GPU itself is fine. Look at the error before it."),
    45: ("Preemptive cleanup, due to previous errors (a process using the GPU was killed)", "application",
         "Follows a process exit or kill (or another XID); on its own it is not a GPU fault. Look at the XID before it."),
    48: ("Double-bit ECC error (uncorrectable memory error)", "hardware",
         "Uncorrectable memory error: reset the GPU (`nvidia-smi -r` with no process on it, or reboot); if it repeats, the card needs service (RMA)."),
    61: ("Internal micro-controller breakpoint/warning", "driver",
         "GPU firmware fault: reset the GPU or reboot; update the driver; if it repeats, the card needs service."),
    62: ("Internal micro-controller halt", "driver",
         "GPU firmware halted: the GPU must be reset or the host rebooted; update the driver; if it repeats, the card needs service."),
    63: ("ECC page retirement or row remapping recorded", "hardware",
         "A bad memory row was recorded for remapping: it takes effect at the next GPU reset. Reset the GPU (or reboot) when it is drained."),
    64: ("ECC page retirement or row remapping failed", "hardware",
         "The GPU could not retire or remap a bad row (spares exhausted): drain it and have it serviced (RMA)."),
    74: ("NVLink error", "hardware",
         "An NVLink failed: reset the GPUs (or reboot); if it repeats, check the NVLink bridge or baseboard and run `dcgmi diag -r 3`."),
    79: ("GPU has fallen off the bus (it no longer answers on PCIe)", "hardware",
         "The GPU is gone until the host reboots. Check power delivery, seating, cooling and PCIe risers; update the system BIOS; if it repeats, the card or slot needs service."),
    92: ("High single-bit ECC error rate", "hardware",
         "Memory is wearing out: watch for remapped rows or double-bit errors; plan service of the card."),
    94: ("Contained ECC error (only the process that hit it was affected)", "hardware",
         "An uncorrectable memory error was contained: the process using it was stopped. Reset the GPU when drained so the row remap takes effect."),
    95: ("Uncontained ECC error (every process on the GPU is affected)", "hardware",
         "Uncorrectable memory error not contained: stop the work on this GPU and reset it (or reboot); if it repeats, the card needs service."),
    109: ("Context switch timeout", "driver",
          "A context did not switch out in time (a hung kernel, or a driver fault): restart the engine; if it repeats, update the driver."),
    119: ("GSP RPC timeout (the GPU System Processor firmware did not answer)", "driver",
          "GSP firmware hung: reset the GPU or reboot; update the driver (many 5xx GSP timeouts were fixed in later releases)."),
    120: ("GSP error", "driver",
          "GSP firmware error: reset the GPU or reboot; update the driver; if it repeats, the card needs service."),
    154: ("GPU recovery action changed (reset or reboot required)", "driver",
          "The driver asks for a GPU reset, a drain or a node reboot (`nvidia-smi -q`: GPU Recovery Action): do it."),
}


def describe(code: int) -> tuple[str, str, str]:
    """(meaning, origin, action) of an XID code; unknown codes point at the catalogue."""
    return XID_CODES.get(code, (f"XID {code}", "unknown",
                                "Look the code up in NVIDIA's XID catalogue (docs.nvidia.com/deploy/xid-errors/)."))


@record
class XidEvent(Record):
    """One XID line of the kernel log."""

    code: int
    pci: str
    pid: int | None
    process: str
    detail: str
    line: str


@record
class KernelXids(Record):
    """The XID lines of the kernel log and where they were read."""

    source: str
    events: tuple[XidEvent, ...]


def parse_xid_line(line: str) -> XidEvent | None:
    if "Xid (" not in line:  # the cheap test first: a kernel log is mostly other lines
        return None
    m = _XID.search(line)
    if m is None:
        return None
    pid = m.group("pid")
    return XidEvent(int(m.group("code")), m.group("pci"), int(pid) if pid and pid.isdigit() else None,
                    (m.group("name") or "").strip(), m.group("detail").strip(), line.strip()[:400])


def parse_xids(text: str) -> tuple[XidEvent, ...]:
    """Every XID line of a kernel log (dmesg, journalctl -k, or lines grepped from either)."""
    if "Xid (" not in text:
        return ()
    found = (parse_xid_line(line) for line in text.splitlines())
    return tuple(e for e in found if e is not None)
