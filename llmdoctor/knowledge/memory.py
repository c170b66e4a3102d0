"""RAM, swap and paging figures: pure parsers for /proc/meminfo, /proc/vmstat and `vmstat` text.

Swap activity is what matters for a model server: a machine that
pages the model's working set in and out of swap serves tokens at disk speed.
The cumulative counters say nothing by themselves, so every rate here is a delta
over an interval: two /proc/vmstat reads, or one `vmstat` row. The first data row
of `vmstat N` is the average since boot and is never "activity now".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from llmdoctor.knowledge.units import GIB, KIB, MIB, human_bytes  # noqa: F401 - (re-exported)
from llmdoctor.parsing import LazyPattern, ParseError

# `vmstat -S` unit letters -> bytes (procps: k=1000, K=1024, m=1000000, M=1048576).
VMSTAT_UNITS = {"k": 1000, "K": 1024, "m": 1000 * 1000, "M": 1024 * 1024}
DEFAULT_PAGE_SIZE = 4096


# -- /proc/meminfo --------------------------------------------------------------


@dataclass(frozen=True)
class MemInfo:
    """Selected /proc/meminfo figures, in bytes."""

    mem_total: int
    mem_available: int | None
    swap_total: int | None
    swap_free: int | None

    @property
    def swap_used(self) -> int | None:
        if self.swap_total is None or self.swap_free is None:
            return None
        return max(self.swap_total - self.swap_free, 0)


def parse_meminfo(text: str) -> MemInfo:
    """`MemTotal:  24684096 kB` lines -> MemInfo. Lines that are not `Key: N [kB]` are ignored."""
    values: dict[str, int] = {}
    for m in re.finditer(r"^\s*([A-Za-z0-9_()]+):\s+(\d+)(?:\s*(kB))?\s*$", text, re.M):
        values[m.group(1)] = int(m.group(2)) * (KIB if m.group(3) else 1)
    if "MemTotal" not in values:
        raise ParseError("no MemTotal line (expected /proc/meminfo content)")
    available = values.get("MemAvailable")
    if available is None and "MemFree" in values:  # kernels before 3.14
        available = values["MemFree"] + values.get("Buffers", 0) + values.get("Cached", 0)
    return MemInfo(values["MemTotal"], available, values.get("SwapTotal"), values.get("SwapFree"))


# -- /proc/vmstat -----------------------------------------------------------------

SWAP_COUNTERS = ("pswpin", "pswpout", "pgmajfault")


def parse_proc_vmstat(text: str) -> dict[str, int]:
    """`pswpin 243805` lines -> {name: value}; raises ParseError without the swap counters."""
    counters = {m.group(1): int(m.group(2)) for m in re.finditer(r"^([a-z_0-9]+) (\d+)\s*$", text, re.M)}
    missing = [c for c in ("pswpin", "pswpout") if c not in counters]
    if missing:
        raise ParseError(f"no {', '.join(missing)} counter (expected /proc/vmstat content)")
    return counters


@dataclass(frozen=True)
class SwapInterval:
    """Swap traffic during one interval, as rates (bytes per second).

    `text` is the evidence: the vmstat row as printed, or the counter deltas.
    """

    swap_in_bps: float
    swap_out_bps: float
    seconds: float | None = None
    major_faults_per_s: float | None = None
    text: str = ""


def interval_from_counters(
    before: dict[str, int], after: dict[str, int], seconds: float, page_size: int = DEFAULT_PAGE_SIZE
) -> SwapInterval:
    """Rates between two /proc/vmstat reads. Counters that went backwards (a reboot between
    the reads, or a wrapped counter) count as zero rather than as negative traffic."""
    seconds = max(seconds, 1e-6)
    d_in = max(after["pswpin"] - before["pswpin"], 0)
    d_out = max(after["pswpout"] - before["pswpout"], 0)
    d_maj = None
    if "pgmajfault" in before and "pgmajfault" in after:
        d_maj = max(after["pgmajfault"] - before["pgmajfault"], 0)
    text = f"pswpin +{d_in}, pswpout +{d_out}" + (f", pgmajfault +{d_maj}" if d_maj is not None else "")
    text += f" in {seconds:.1f} s ({human_bytes(d_in * page_size / seconds)}/s in, {human_bytes(d_out * page_size / seconds)}/s out)"
    return SwapInterval(
        swap_in_bps=d_in * page_size / seconds,
        swap_out_bps=d_out * page_size / seconds,
        seconds=seconds,
        major_faults_per_s=None if d_maj is None else d_maj / seconds,
        text=text,
    )


# -- `vmstat` text ------------------------------------------------------------------

# Column names procps vmstat prints (plain, -a, -w, -t adds a time zone name).
VMSTAT_COLUMNS = frozenset(
    "r b swpd free buff cache inact active si so bi bo in cs us sy id wa st gu".split()
)
_DATE_OR_TIME = LazyPattern(r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}(?:\.\d+)?|\d{4}/\d{2}/\d{2})$")
_GROUP_LINE = LazyPattern(r"^\s*(?:-*time-*\s+)?-*procs\b.*-{2,}")
_UNIT_FLAG = LazyPattern(r"vmstat\b[^\n]*?(?:-S\s*|--unit[=\s]+|-\w*S)([kKmM])\b")


@dataclass(frozen=True)
class VmstatRow:
    values: dict[str, int]
    since_boot: bool  # the first row after a run's header: averages since boot
    line: str

    def bytes_per_s(self, column: str, unit_bytes: int) -> float:
        return float(self.values.get(column, 0)) * unit_bytes


@dataclass(frozen=True)
class VmstatTable:
    rows: tuple[VmstatRow, ...]
    unit_bytes: int = 1024  # si/so/swpd/free... unit: KiB unless `-S` says otherwise
    header: str = ""
    skipped: int = 0  # lines that looked like data but did not fit the header
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def live_rows(self) -> tuple[VmstatRow, ...]:
        """Rows that describe the sampled interval (not the since-boot averages)."""
        return tuple(r for r in self.rows if not r.since_boot)

    def intervals(self) -> tuple[SwapInterval, ...]:
        return tuple(
            SwapInterval(
                swap_in_bps=r.bytes_per_s("si", self.unit_bytes),
                swap_out_bps=r.bytes_per_s("so", self.unit_bytes),
                text=r.line.strip(),
            )
            for r in self.live_rows
        )


def _is_header(tokens: list[str]) -> bool:
    names = {t for t in tokens if t in VMSTAT_COLUMNS}
    return {"si", "so", "r", "b"} <= names


def parse_vmstat(text: str) -> VmstatTable:
    """Parse `vmstat [-w] [-a] [-t] [-S unit] DELAY COUNT` output, keyed by header names.

    Tolerates pasted shell prompts and other text around the table, repeated headers,
    several pasted runs, and rows wrapped onto two lines. A header that follows data
    rows directly continues the run (vmstat repeats its header); a header after any
    other line starts a new run whose first row is again the since-boot average.
    """
    unit_bytes = 1024
    header_tokens: list[str] | None = None
    header_line = ""
    rows: list[VmstatRow] = []
    skipped = 0
    notes: list[str] = []
    pending: list[str] = []
    pending_lines: list[str] = []
    first_row_of_run = False
    previous_was_data = False
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _UNIT_FLAG.search(line)
        if m:
            unit_bytes = VMSTAT_UNITS[m.group(1)]
            notes.append(f"units from `-S {m.group(1)}`")
        tokens = line.split()
        if not tokens:
            previous_was_data = False
            continue
        if _GROUP_LINE.match(line):  # `procs -----memory----- ---swap-- ...` above the header
            continue
        if _is_header(tokens):
            header_tokens = [t for t in tokens if t in VMSTAT_COLUMNS]
            header_line = line
            if not previous_was_data:
                first_row_of_run = True
            pending, pending_lines = [], []
            previous_was_data = False
            continue
        numbers = [t for t in tokens if not _DATE_OR_TIME.match(t)]
        if header_tokens is None or not numbers or not all(t.isdecimal() for t in numbers):
            if pending:
                skipped += 1
                pending, pending_lines = [], []
            previous_was_data = False
            continue
        pending += numbers
        pending_lines.append(line)
        if len(pending) < len(header_tokens):
            continue  # a row wrapped onto the next line
        if len(pending) > len(header_tokens):
            skipped += 1
            pending, pending_lines = [], []
            previous_was_data = False
            continue
        rows.append(
            VmstatRow(
                values=dict(zip(header_tokens, (int(t) for t in pending))),
                since_boot=first_row_of_run,
                line=" ".join(pending_lines) if len(pending_lines) > 1 else pending_lines[0],
            )
        )
        first_row_of_run = False
        previous_was_data = True
        pending, pending_lines = [], []
    if pending:
        skipped += 1
    if header_tokens is None:
        raise ParseError("no vmstat header line (`r  b   swpd ... si   so ...`)")
    return VmstatTable(tuple(rows), unit_bytes, header_line, skipped, tuple(dict.fromkeys(notes)))
