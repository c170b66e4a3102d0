"""NVIDIA GPUs as values, and pure parsers for nvidia-smi output (NVML is read by
hosts/nvml.py, on the machine llmdoctor runs on).

Three shapes of nvidia-smi output are read:
`--query-gpu=... --format=csv[,noheader][,nounits]`, `--query-compute-apps=...
--format=csv[...]`, and the default table with its Processes section (old narrow
and new wide layouts). CSV is keyed by header names, so extra columns are fine;
without a header the caller passes the field list it asked for.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from llmdoctor.knowledge.units import human_bytes
from llmdoctor.parsing import LazyPattern, ParseError

MIB = 1024 * 1024


class GpuUnavailable(Exception):
    """No GPU information here; str() is the line for the report."""


@dataclass(frozen=True)
class GpuDevice:
    index: int
    name: str
    total_bytes: int | None = None
    used_bytes: int | None = None
    free_bytes: int | None = None
    driver: str | None = None
    uuid: str | None = None
    memory: str = ""  # what total_bytes counts where it is not plainly the card's own memory (AMD: "VRAM", "GTT (unified ...)")


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    name: str = ""
    used_bytes: int | None = None  # None: not reported (e.g. Windows WDDM)
    gpu_index: int | None = None
    gpu_uuid: str | None = None


@dataclass(frozen=True)
class GpuFact:
    source: str  # "NVML", "nvidia-smi", "nvidia_smi.txt", "amd-smi", "rocm-smi", "amdgpu sysfs", ...
    gpus: tuple[GpuDevice, ...] = ()
    processes: tuple[GpuProcess, ...] = ()
    driver: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    vendor: str = "nvidia"  # "amd" for the GPUs of llmdoctor.knowledge.amd
    health: tuple = ()  # knowledge.nvidia_query.GpuHealth per GPU, where NVML read them with the memory

    @property
    def total_bytes(self) -> int | None:
        """Summed memory of the GPUs that report it; None when none does."""
        return sum(g.total_bytes for g in self.gpus if g.total_bytes and g.total_bytes > 0) or None

    def process_memory(self, pid: int) -> int | None:
        """GPU memory a process holds across all GPUs (bytes), None when not reported."""
        found = [p.used_bytes for p in self.processes if p.pid == pid]
        if not found or all(v is None for v in found):
            return None
        return sum(v for v in found if v is not None)

    def summary(self) -> list[tuple[str, str]]:
        if not self.gpus:
            return [("GPU", f"none found ({self.source})")]
        lines = []
        for g in self.gpus:
            label = "GPU" if len(self.gpus) == 1 else f"GPU {g.index}"
            parts = [g.name or "unknown GPU"]
            if g.total_bytes is not None:
                parts.append(f"{human_bytes(g.total_bytes)} total" + (f" {g.memory}" if g.memory else ""))
            if g.used_bytes is not None:
                parts.append(f"{human_bytes(g.used_bytes)} used")
            driver = g.driver or self.driver
            if driver:
                parts.append(f"driver {driver}")
            lines.append((label, ", ".join(parts)))
        shown = 8
        for p in self.processes[:shown]:
            where = f"GPU {p.gpu_index}" if p.gpu_index is not None and len(self.gpus) > 1 else "GPU"
            lines.append((f"{where} process {p.pid}", f"{p.name or '?'}, {human_bytes(p.used_bytes) if p.used_bytes is not None else 'memory not reported'}"))
        if len(self.processes) > shown:
            lines.append(("GPU processes", f"{len(self.processes) - shown} more not shown"))
        return lines


# -- values ---------------------------------------------------------------------------------------

_MISSING = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]"}


def _missing(value: str) -> bool:
    return value.strip().lower() in _MISSING or value.strip().startswith("[")


def _mib(value: str, unitless_mib: bool = True) -> int | None:
    """'16376 MiB' / '16376' (nounits: MiB) -> bytes; N/A forms -> None."""
    if _missing(value):
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(MiB|GiB|KiB|B)?\s*", value)
    if not m:
        raise ParseError(f"not a memory size: {value!r}")
    number, unit = float(m.group(1)), m.group(2)
    scale = {"GiB": 1024 * MIB, "MiB": MIB, "KiB": 1024, "B": 1}.get(unit or "", MIB if unitless_mib else 1)
    try:
        return int(number * scale)
    except OverflowError:  # some 300 digits: float() gives inf
        raise ParseError(f"not a memory size: {value[:40]!r}...") from None


def _int(value: str) -> int | None:
    value = value.strip()
    return int(value) if value.isdecimal() else None


def _key(header: str) -> str:
    """'memory.total [MiB]' -> 'memory.total'; aliases folded to the query names."""
    name = re.sub(r"\s*\[.*?\]\s*$", "", header.strip()).lower()
    return {"used_gpu_memory": "used_memory", "name": "name", "gpu_name": "gpu_name"}.get(name, name)


def _rows(text: str, fields: tuple[str, ...] | None, must_have: str) -> list[dict[str, str]]:
    lines = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith(("$", "#"))]
    if not lines:
        return []
    try:
        reader = list(csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True))
    except csv.Error as e:  # e.g. a field over csv's size limit
        raise ParseError(f"not CSV: {e}") from None
    first = [_key(h) for h in reader[0]]
    if must_have in first:
        header, body = first, reader[1:]
    elif fields is not None:
        header, body = [_key(f) for f in fields], reader
    else:
        raise ParseError(f"no CSV header with {must_have!r} (and no field list for --format=csv,noheader)")
    rows = []
    for cells in body:
        if len(cells) != len(header):
            raise ParseError(f"{len(cells)} values under {len(header)} columns: {','.join(cells)[:120]!r}")
        rows.append(dict(zip(header, (c.strip() for c in cells))))
    return rows


def parse_query_gpu_csv(text: str, fields: tuple[str, ...] | None = None) -> tuple[GpuDevice, ...]:
    gpus = []
    for i, row in enumerate(_rows(text, fields, "memory.total")):
        index = _int(row.get("index", "")) if "index" in row else i
        gpus.append(GpuDevice(
            index=i if index is None else index,
            name=row.get("name", "") if not _missing(row.get("name", "")) else "",
            total_bytes=_mib(row["memory.total"]) if "memory.total" in row else None,
            used_bytes=_mib(row["memory.used"]) if "memory.used" in row else None,
            free_bytes=_mib(row["memory.free"]) if "memory.free" in row else None,
            driver=None if _missing(row.get("driver_version", "")) else row.get("driver_version"),
            uuid=None if _missing(row.get("uuid", "")) else row.get("uuid"),
        ))
    return tuple(gpus)


def parse_compute_apps_csv(text: str, fields: tuple[str, ...] | None = None,
                           gpus: tuple[GpuDevice, ...] = ()) -> tuple[GpuProcess, ...]:
    by_uuid = {g.uuid: g.index for g in gpus if g.uuid}
    procs = []
    for row in _rows(text, fields, "pid"):
        pid = _int(row.get("pid", ""))
        if pid is None:
            raise ParseError(f"not a pid: {row.get('pid')!r}")
        uuid = row.get("gpu_uuid")
        procs.append(GpuProcess(
            pid=pid,
            name=row.get("process_name", ""),
            used_bytes=_mib(row["used_memory"]) if "used_memory" in row else None,
            gpu_index=by_uuid.get(uuid) if uuid else None,
            gpu_uuid=uuid,
        ))
    return tuple(procs)


# -- the default table ----------------------------------------------------------------------------

_DRIVER = LazyPattern(r"Driver Version:\s*(\S+)")
_GPU_ROW = LazyPattern(r"^\|\s+(\d+)\s+(.+?)\s+(On|Off)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")
_MEMORY = LazyPattern(r"(\d+)MiB\s*/\s*(\d+)MiB")
_PROCESS_ROW = LazyPattern(
    r"^\|\s+(\d+|N/A)\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(\d+)\s+(C\+G|G\+C|M\+C|C|G|M)\s+(.*?)\s+(\d+MiB|N/A)\s*\|\s*$"
)


def parse_smi_table(text: str) -> GpuFact:
    """The default `nvidia-smi` table: GPUs (index, name as shown - long names are cut
    with '...' - memory used/total) and the Processes section."""
    m = _DRIVER.search(text)
    driver = m.group(1) if m else None
    gpus: list[GpuDevice] = []
    procs: list[GpuProcess] = []
    section = "gpus"
    waiting_memory: tuple[int, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("| Processes:"):
            section = "processes"
            continue
        if stripped.startswith("| MIG devices:"):
            section = "mig"
            continue
        if section == "gpus":
            row = _GPU_ROW.match(stripped)
            if row:
                waiting_memory = (int(row.group(1)), row.group(2).strip())
                continue
            mem = _MEMORY.search(stripped)
            if mem and waiting_memory:
                used, total = int(mem.group(1)) * MIB, int(mem.group(2)) * MIB
                gpus.append(GpuDevice(waiting_memory[0], waiting_memory[1], total, used, total - used, driver))
                waiting_memory = None
        elif section == "processes":
            row = _PROCESS_ROW.match(stripped)
            if row:
                gpu = None if row.group(1) == "N/A" else int(row.group(1))
                used = None if row.group(5) == "N/A" else int(row.group(5)[:-3]) * MIB
                procs.append(GpuProcess(int(row.group(2)), row.group(4).strip(), used, gpu))
    if not gpus and driver is None:
        raise ParseError("no GPU rows and no `Driver Version:` (expected the nvidia-smi table)")
    return GpuFact("nvidia-smi", tuple(gpus), tuple(procs), driver)


def parse_nvidia_smi(text: str) -> GpuFact:
    """Whatever a person saved as nvidia_smi.txt: the table, or --query-gpu CSV optionally
    followed by --query-compute-apps CSV (separated by a blank line)."""
    if "NVIDIA-SMI" in text or "Driver Version:" in text:
        return parse_smi_table(text)
    from llmdoctor.knowledge.nvidia_query import looks_like_query

    if looks_like_query(text):  # `nvidia-smi -q` saved as nvidia_smi.txt
        return parse_query_memory(text)
    if re.search(r"Failed to initialize NVML|couldn't communicate with the NVIDIA driver|NVIDIA-SMI has failed", text):
        first = next(l for l in text.splitlines() if l.strip())
        raise ParseError(f"nvidia-smi failed on that host: {first.strip()[:160]}")
    parts = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    gpus: tuple[GpuDevice, ...] = ()
    procs: tuple[GpuProcess, ...] = ()
    for part in parts:
        header = part.strip().splitlines()[0]
        if "memory.total" in header:
            gpus = parse_query_gpu_csv(part)
        elif "pid" in header:
            procs = parse_compute_apps_csv(part, gpus=gpus)
    if not gpus and not procs:
        raise ParseError("neither the nvidia-smi table nor --query-gpu CSV with memory.total")
    drivers = {g.driver for g in gpus if g.driver}
    return GpuFact("nvidia-smi", gpus, procs, drivers.pop() if len(drivers) == 1 else None)


def parse_query_memory(text: str) -> GpuFact:
    """The GPUs' memory from `nvidia-smi -q` (FB Memory Usage): for an nvidia_smi.txt that holds
    `-q` output rather than the table (the tree is read by knowledge.nvidia_query)."""
    from llmdoctor.knowledge.nvidia_query import num_int, tree

    driver, blocks = tree(text)
    if not blocks:
        raise ParseError("`nvidia-smi -q` output without a `GPU 0000:...` block")
    gpus = []
    for i, (_, t) in enumerate(blocks):
        total, used, free = (num_int(t.get(("fb memory usage", k))) for k in ("total", "used", "free"))
        gpus.append(GpuDevice(i, t.get(("product name",), ""), None if total is None else total * MIB,
                              None if used is None else used * MIB, None if free is None else free * MIB,
                              driver, t.get(("gpu uuid",))))
    return GpuFact("nvidia-smi", tuple(gpus), (), driver)
