"""AMD GPUs: pure parsers for `amd-smi`, `rocm-smi` and the amdgpu sysfs counters, giving the
same GpuFact as NVIDIA's (llmdoctor.knowledge.nvidia); the I/O is in facts/gpu_amd.py.

Formats, as the tools print them (samples with their sources in tests/fixtures/amd/):
- `amd-smi metric --mem-usage --json`: a list of {"gpu": N, "mem_usage": {"total_vram":
  {"value": 8176, "unit": "MB"}, ...}} (ROCm 6.x), or the same list under "gpu_data" (newer
  releases). "MB" is MiB: amdsmi_cli divides the library's bytes by 1024*1024. Any figure may be
  the string "N/A".
- `amd-smi static --asic --driver --json`: asic.market_name and driver.version per gpu.
- `rocm-smi --showmeminfo vram gtt --showproductname --json`: {"card0": {"VRAM Total Memory
  (B)": "21458059264", "VRAM Total Used Memory (B)": ..., "GTT Total Memory (B)": ...,
  "Card Series": "Radeon RX 7900 XT", ...}}: strings, in bytes.
- sysfs /sys/class/drm/cardN/device/mem_info_{vram,gtt}_{total,used}: one integer, in bytes;
  `vendor` is 0x1002 for AMD.

Unified memory (Strix Halo and other APUs): the BIOS carve-out shows as a small VRAM (512 MiB to
a few GiB) while what the GPU can really allocate is GTT, system RAM it maps (ROCm's HIP reports
the GTT size as the device's memory there). When GTT is at least 8x VRAM the GPU's memory is
counted as GTT and the device says so; on a discrete card VRAM alone is counted (its GTT is
host memory reached over PCIe, not where a model should live).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from llmdoctor.knowledge.memory import human_bytes
from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact
from llmdoctor.parsing import ParseError

MIB = 1024 * 1024
AMD_VENDOR = "0x1002"
UNIFIED_RATIO = 8  # GTT >= 8 x VRAM: an APU whose carve-out is not where models go (LocalAI #12094 uses the same)


@dataclass(frozen=True)
class AmdCard:
    """One AMD GPU's memory counters as a tool or sysfs reported them (bytes, None = not shown)."""
    index: int
    name: str = ""
    vram_total: int | None = None
    vram_used: int | None = None
    gtt_total: int | None = None
    gtt_used: int | None = None
    driver: str | None = None

    @property
    def unified(self) -> bool:
        """A small VRAM carve-out next to a large GTT: an APU with unified memory."""
        return bool(self.gtt_total and self.vram_total is not None and self.gtt_total >= UNIFIED_RATIO * max(self.vram_total, 1))

    def device(self) -> GpuDevice:
        """The GpuDevice of this card: VRAM, or GTT on unified memory (and `memory` says which)."""
        if self.unified:
            total, used = self.gtt_total, self.gtt_used
            memory = (f"GTT (unified memory: system RAM the GPU maps, shared with the CPU; "
                      f"the {human_bytes(self.vram_total or 0)} VRAM carve-out is not added)")
        else:
            total, used, memory = self.vram_total, self.vram_used, "VRAM"
        free = total - used if total is not None and used is not None else None
        return GpuDevice(self.index, self.name, total, used, free, self.driver, memory=memory)


def fact(cards: list[AmdCard] | tuple[AmdCard, ...], source: str, notes: tuple[str, ...] = ()) -> GpuFact:
    drivers = {c.driver for c in cards if c.driver}
    extra = ("GPU processes are not read on AMD GPUs",) if cards else ()
    return GpuFact(source, tuple(c.device() for c in cards), (), drivers.pop() if len(drivers) == 1 else None,
                   tuple(notes) + extra, vendor="amd")


# -- values ---------------------------------------------------------------------------------------

def _json(text: str, what: str):
    """The JSON document in a tool's output; warnings printed before it (rocm-smi does) are skipped."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        first = next((l.strip() for l in text.splitlines() if l.strip()), "empty output")
        raise ParseError(f"no JSON in {what} output: {first[:120]!r}")
    try:
        return json.loads(text[min(starts):])
    except (ValueError, RecursionError) as e:
        raise ParseError(f"{what} output is not JSON: {str(e)[:120]}") from None


def _mib_value(item) -> int | None:
    """{"value": 8176, "unit": "MB"} -> bytes (amd-smi's MB is MiB); "N/A" and odd shapes -> None."""
    if not isinstance(item, dict):
        return None
    value, unit = item.get("value"), str(item.get("unit", "MB")).upper()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        return None
    scale = {"B": 1, "KB": 1024, "MB": MIB, "GB": 1024 * MIB}.get(unit)
    if scale is None or value > 2**60 / scale:
        return None
    return int(value * scale)


def _bytes(value) -> int | None:
    """'21458059264' (rocm-smi, sysfs) -> int; anything else -> None."""
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return int(text) if text.isdecimal() and len(text) < 20 else None


def _gpu_list(doc, what: str) -> list[dict]:
    if isinstance(doc, dict) and isinstance(doc.get("gpu_data"), list):
        doc = doc["gpu_data"]
    if not isinstance(doc, list):
        raise ParseError(f"{what}: expected a list of GPUs (or gpu_data), got {type(doc).__name__}")
    return [g for g in doc if isinstance(g, dict)]


def _index(entry: dict, default: int) -> int:
    gpu = entry.get("gpu")
    return gpu if isinstance(gpu, int) and not isinstance(gpu, bool) and 0 <= gpu < 4096 else default


# -- amd-smi --------------------------------------------------------------------------------------

def parse_amd_smi_static(text: str) -> dict[int, tuple[str, str | None]]:
    """`amd-smi static --asic --driver --json` -> {gpu: (market name, driver version)}."""
    names = {}
    for i, entry in enumerate(_gpu_list(_json(text, "amd-smi static"), "amd-smi static")):
        asic = entry.get("asic") if isinstance(entry.get("asic"), dict) else {}
        driver = entry.get("driver") if isinstance(entry.get("driver"), dict) else {}
        name = asic.get("market_name")
        version = driver.get("version")
        names[_index(entry, i)] = (name if isinstance(name, str) and name != "N/A" else "",
                                   version if isinstance(version, str) and version != "N/A" else None)
    return names


def parse_amd_smi_metric(text: str, static: dict[int, tuple[str, str | None]] | None = None) -> list[AmdCard]:
    """`amd-smi metric --mem-usage --json` (names and drivers from parse_amd_smi_static)."""
    cards = []
    for i, entry in enumerate(_gpu_list(_json(text, "amd-smi metric"), "amd-smi metric")):
        mem = entry.get("mem_usage")
        if not isinstance(mem, dict):
            continue
        index = _index(entry, i)
        name, driver = (static or {}).get(index, ("", None))
        cards.append(AmdCard(index, name, _mib_value(mem.get("total_vram")), _mib_value(mem.get("used_vram")),
                             _mib_value(mem.get("total_gtt")), _mib_value(mem.get("used_gtt")), driver))
    if not cards:
        raise ParseError("amd-smi metric: no GPU with mem_usage (asked without --mem-usage?)")
    return cards


# -- rocm-smi -------------------------------------------------------------------------------------

def parse_rocm_smi(text: str) -> list[AmdCard]:
    """`rocm-smi --showmeminfo vram gtt --showproductname --json`: {"cardN": {...}}."""
    doc = _json(text, "rocm-smi")
    if not isinstance(doc, dict):
        raise ParseError(f"rocm-smi: expected an object of cards, got {type(doc).__name__}")
    cards = []
    for key, values in doc.items():
        if not (isinstance(key, str) and key.startswith("card") and key[4:].isdecimal() and isinstance(values, dict)):
            continue  # "system" holds the driver version, not a card
        low = {str(k).strip().lower(): v for k, v in values.items()}
        vram = _bytes(low.get("vram total memory (b)"))
        if vram is None and "vram total memory (b)" not in low:
            continue
        name = low.get("card series") or low.get("device name") or ""
        cards.append(AmdCard(int(key[4:]) if len(key) < 9 else len(cards), name if isinstance(name, str) else "",
                             vram, _bytes(low.get("vram total used memory (b)")),
                             _bytes(low.get("gtt total memory (b)")), _bytes(low.get("gtt total used memory (b)"))))
    if not cards:
        raise ParseError("rocm-smi: no card with `VRAM Total Memory (B)` (asked without --showmeminfo vram?)")
    return sorted(cards, key=lambda c: c.index)


# -- sysfs ----------------------------------------------------------------------------------------

SYSFS_FILES = ("vendor", "device", "mem_info_vram_total", "mem_info_vram_used", "mem_info_gtt_total", "mem_info_gtt_used")


def parse_sysfs_card(card: str, files: dict[str, str]) -> AmdCard | None:
    """The amdgpu counters of /sys/class/drm/<card>/device (file name -> content); None when the
    card is not an AMD GPU with memory counters (another vendor, a connector, no amdgpu driver)."""
    if files.get("vendor", "").strip().lower() != AMD_VENDOR or not card.startswith("card") or not card[4:].isdecimal():
        return None
    vram = _bytes(files.get("mem_info_vram_total", ""))
    if vram is None:
        return None
    device = files.get("device", "").strip()
    name = f"AMD GPU {device}" if device.startswith("0x") and len(device) <= 8 else "AMD GPU"
    return AmdCard(int(card[4:]) if len(card) < 9 else 0, name, vram, _bytes(files.get("mem_info_vram_used", "")),
                   _bytes(files.get("mem_info_gtt_total", "")), _bytes(files.get("mem_info_gtt_used", "")))


# -- health (GPU_DEGRADED): the amdgpu power-management files ------------------------------------
# drivers/gpu/drm/amd/pm/amdgpu_pm.c: pp_dpm_sclk lists the shader clock's DPM levels, the one in
# use marked `*` ("1: 1233Mhz *"); pp_dpm_pcie the link levels ("1: 16.0GT/s, x8 1143Mhz *");
# gpu_busy_percent the share of time the GPU was busy. No throttle reasons are exposed there.

HEALTH_FILES = ("pp_dpm_sclk", "pp_dpm_pcie", "gpu_busy_percent")
_GTS_GEN = {"2.5": 1, "5.0": 2, "8.0": 3, "16.0": 4, "32.0": 5, "64.0": 6}


def _levels(text: str, pattern: str) -> tuple[list[tuple], tuple | None]:
    """(every level's groups, the current level's groups) of a pp_dpm_* file."""
    import re

    levels, current = [], None
    for line in text.splitlines():
        m = re.match(r"\s*(?:\d+:\s*)?" + pattern, line)  # the level number, unless a paste repair took it
        if m is None:
            continue
        levels.append(m.groups())
        if line.rstrip().endswith("*"):
            current = m.groups()
    return levels, current


def parse_sysfs_health(index: int, name: str, files: dict[str, str]):
    """knowledge.nvidia_query.GpuHealth of one amdgpu card from its pp_dpm_* and busy files;
    None when none of them says anything."""
    from llmdoctor.knowledge.nvidia_query import GpuHealth

    sclk, sclk_now = _levels(files.get("pp_dpm_sclk", ""), r"(\d+)\s*Mhz")
    pcie, pcie_now = _levels(files.get("pp_dpm_pcie", ""), r"([\d.]+)GT/s,\s*x(\d+)")
    busy = files.get("gpu_busy_percent", "").strip()
    if not sclk and not pcie and not busy.isdecimal():
        return None
    gens = [(_GTS_GEN.get(s), int(w)) for s, w in pcie]
    now = (_GTS_GEN.get(pcie_now[0]), int(pcie_now[1])) if pcie_now else (None, None)
    return GpuHealth(
        index=index, name=name,
        util_pct=int(busy) if busy.isdecimal() else None,
        sm_mhz=int(sclk_now[0]) if sclk_now else None,
        sm_max_mhz=max(int(s[0]) for s in sclk) if sclk else None,
        pcie_gen=now[0], pcie_width=now[1],
        pcie_gen_max=max((g for g, _ in gens if g), default=None) if gens else None,
        pcie_width_max=max(w for _, w in gens) if gens else None,
    )
