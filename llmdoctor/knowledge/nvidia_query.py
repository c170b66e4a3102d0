"""The health of NVIDIA GPUs beyond memory, as values: clocks against their maximum and what
holds them down, power against the limit, temperature against the slowdown threshold, the PCIe
link against the card's maximum, ECC and row-remap state, persistence mode. Read from
`nvidia-smi -q` text here (every layout since the 4xx drivers: "Clocks Throttle Reasons",
renamed "Clocks Event Reasons" in 535+, "Power Readings" -> "GPU Power Readings", "Power Draw"
-> "Instantaneous Power Draw"), and from NVML in hosts/nvml.py into the same record.

`nvidia-smi -q` is an indented tree of `Name : value` lines under section headers; it is read
as paths (section, subsection, name) -> value per GPU block, so sections a driver adds or
drops do not matter and a repeated name (the "Clocks Event Reasons Counters" after the flags,
the memory's "Power Readings" after the GPU's) is never taken for another.
"""
from __future__ import annotations

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern, ParseError

# Clock throttle ("event") reasons by the names NVML's bit masks and nvidia-smi's lines use.
# The bits: nvml.h nvmlClocksEventReason* / nvmlClocksThrottleReason* (same values).
REASON_BITS = {
    "idle": 0x1, "applications_clocks": 0x2, "sw_power_cap": 0x4, "hw_slowdown": 0x8, "sync_boost": 0x10,
    "sw_thermal": 0x20, "hw_thermal": 0x40, "hw_power_brake": 0x80, "display_clocks": 0x100,
}
_REASON_LINES = {
    "idle": "idle", "applications clocks setting": "applications_clocks", "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown", "hw thermal slowdown": "hw_thermal", "hw power brake slowdown": "hw_power_brake",
    "sync boost": "sync_boost", "sw thermal slowdown": "sw_thermal", "display clock setting": "display_clocks",
}
REASON_TEXT = {
    "idle": "idle", "applications_clocks": "applications clocks setting", "sw_power_cap": "SW power cap",
    "hw_slowdown": "HW slowdown", "hw_thermal": "HW thermal slowdown", "hw_power_brake": "HW power brake slowdown",
    "sync_boost": "sync boost", "sw_thermal": "SW thermal slowdown", "display_clocks": "display clock setting",
}


def reasons_from_mask(mask: int) -> tuple[str, ...]:
    """NVML's clocks event reasons bit mask -> the reason names, in REASON_BITS order."""
    return tuple(name for name, bit in REASON_BITS.items() if mask & bit)


@record
class GpuHealth(Record):
    """One GPU's readings; None wherever the source does not report it."""

    index: int
    name: str = ""
    bus_id: str = ""
    persistence: bool | None = None
    driver_model: str | None = None  # "WDDM"/"TCC" on Windows, None on Linux
    util_pct: int | None = None  # time a kernel ran over the last sample period
    sm_mhz: int | None = None
    sm_max_mhz: int | None = None
    reasons: tuple[str, ...] | None = None  # active clocks event reasons (REASON_BITS names); None: not reported
    power_w: float | None = None
    power_limit_w: float | None = None  # the enforced limit
    power_default_w: float | None = None
    temp_c: int | None = None
    slowdown_temp_c: int | None = None
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None  # the most this card and this slot allow
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    ecc_uncorrected: int | None = None  # volatile (since the driver loaded) uncorrectable ECC errors
    remap_pending: bool | None = None  # a row remap waits for a GPU reset
    remap_failure: bool | None = None  # a remap failed: no spare row left
    retire_pending: bool | None = None  # a page retirement waits for a reset (pre-Ampere)
    pstate: str | None = None

    @property
    def label(self) -> str:
        return f"GPU {self.index}" + (f" ({self.name})" if self.name else "")


@record
class GpuHealthFact(Record):
    """The readings of every GPU, and where they came from ("NVML", "nvidia-smi -q", a file)."""

    source: str
    gpus: tuple[GpuHealth, ...]
    driver: str | None = None
    notes: tuple[str, ...] = ()


# -- nvidia-smi -q ------------------------------------------------------------------------------

BANNER = "NVSMI LOG"
_GPU_BLOCK = LazyPattern(r"GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_NUMBER = LazyPattern(r"\s*(-?\d+(?:\.\d+)?)\s*(?:x|%|W|C|MHz|MiB|bank\(s\))?\s*$")


def looks_like_query(text: str) -> bool:
    """Is this `nvidia-smi -q` output (not the table, not CSV)?"""
    return BANNER in text[:4096] or "Attached GPUs" in text[:4096]


def tree(text: str) -> tuple[str | None, list[tuple[str, dict[tuple[str, ...], str]]]]:
    """(driver, [(bus id, {path: value})]) of `nvidia-smi -q` text."""
    driver = None
    blocks: list[tuple[str, dict[tuple[str, ...], str]]] = []
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        line = raw.expandtabs(8).rstrip()
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            m = _GPU_BLOCK.match(body)
            if m:
                blocks.append((m.group(1), {}))
                stack = []
                continue
        key, sep, value = body.partition(":")
        key = " ".join(key.split()).lower()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if sep and value.strip():
            if not blocks:
                if key == "driver version":
                    driver = value.split("[", 1)[0].strip() or None  # 610+: "610.57.04 [Deprecated; ...]"
                continue
            blocks[-1][1][tuple(name for _, name in stack) + (key,)] = value.strip()
        elif key:
            stack.append((indent, key))
    return driver, blocks


def _num(value: str | None) -> float | None:
    if value is None:
        return None
    m = _NUMBER.match(value)
    return float(m.group(1)) if m else None


def num_int(value: str | None) -> int | None:
    n = _num(value)
    return None if n is None else int(n)


def _yes(value: str | None) -> bool | None:
    v = (value or "").strip().lower()
    return True if v in ("yes", "enabled") else False if v in ("no", "disabled") else None


def _first(t: dict[tuple[str, ...], str], *paths: tuple[str, ...]) -> str | None:
    for p in paths:
        if p in t:
            return t[p]
    return None


def _reasons(t: dict[tuple[str, ...], str]) -> tuple[str, ...] | None:
    active, seen = [], False
    for section in ("clocks event reasons", "clocks throttle reasons"):
        for line, name in _REASON_LINES.items():
            value = t.get((section, line))
            if value is None:
                continue
            seen = True
            if value.lower() == "active" and name not in active:
                active.append(name)
    return tuple(n for n in REASON_BITS if n in active) if seen else None


def _ecc_uncorrected(t: dict[tuple[str, ...], str]) -> int | None:
    """Volatile uncorrectable ECC errors: SRAM and DRAM "Uncorrectable" (Ampere+), or the
    older "Double Bit" totals; None where ECC is off or not reported."""
    counts = [num_int(v) for p, v in t.items() if p[:2] == ("ecc errors", "volatile")
              and ("uncorrectable" in p[-1] or p[2:] == ("double bit", "total"))]
    found = [c for c in counts if c is not None]
    return sum(found) if found else None


def _health(index: int, bus_id: str, t: dict[tuple[str, ...], str]) -> GpuHealth:
    link = ("pci", "gpu link info")
    power = ("gpu power readings",) if any(p[0] == "gpu power readings" for p in t) else ("power readings",)
    remapped = t.get(("remapped rows", "pending"))
    model = t.get(("driver model", "current"))
    return GpuHealth(
        index=index, name=t.get(("product name",), ""), bus_id=bus_id,
        persistence=_yes(t.get(("persistence mode",))),
        driver_model=model if model and model != "N/A" else None,
        util_pct=num_int(_first(t, ("utilization", "gpu"))),
        sm_mhz=num_int(t.get(("clocks", "sm"))), sm_max_mhz=num_int(t.get(("max clocks", "sm"))),
        reasons=_reasons(t),
        power_w=_num(_first(t, power + ("power draw",), power + ("instantaneous power draw",),
                            power + ("average power draw",))),
        power_limit_w=_num(_first(t, power + ("current power limit",), power + ("gpu ceiling power limit", "current power limit"),
                                  power + ("enforced power limit",), power + ("power limit",))),
        power_default_w=_num(_first(t, power + ("default power limit",),
                                    power + ("gpu ceiling power limit", "default power limit"))),
        temp_c=num_int(t.get(("temperature", "gpu current temp"))),
        slowdown_temp_c=num_int(t.get(("temperature", "gpu slowdown temp"))),
        pcie_gen=num_int(t.get(link + ("pcie generation", "current"))),
        pcie_gen_max=num_int(t.get(link + ("pcie generation", "max"))),
        pcie_width=num_int(t.get(link + ("link width", "current"))),
        pcie_width_max=num_int(t.get(link + ("link width", "max"))),
        ecc_uncorrected=_ecc_uncorrected(t),
        remap_pending=_yes(remapped),
        remap_failure=_yes(t.get(("remapped rows", "remapping failure occurred"))),
        retire_pending=_yes(_first(t, ("retired pages", "pending page blacklist"), ("retired pages", "pending"))),
        pstate=t.get(("performance state",)),
    )


def parse_query(text: str) -> GpuHealthFact:
    """`nvidia-smi -q` (any -d selection of it) -> GpuHealthFact; ParseError when it is not."""
    if not looks_like_query(text):
        raise ParseError("not `nvidia-smi -q` output (no 'NVSMI LOG' banner or 'Attached GPUs')")
    driver, blocks = tree(text)
    if not blocks:
        raise ParseError("`nvidia-smi -q` output without a `GPU 0000:...` block")
    gpus = tuple(_health(i, bus, t) for i, (bus, t) in enumerate(blocks))
    return GpuHealthFact("nvidia-smi -q", gpus, driver)
