"""Loaded models as Ollama reports them: `ollama ps` text and `GET /api/ps` JSON.

`ollama ps` is a tablewriter table whose cells contain single spaces (`8.3 GB`,
`13%/87% CPU/GPU`, `4 minutes from now`) and whose spacing users mangle when pasting,
so rows are matched per column with a value pattern keyed on the header names
, never on fixed positions.

Two paste forms carry no full header: a row quoted on its own (`0.7.0: gemma3:27b  29eb0b9aeda3
25 GB  11%/89% CPU/GPU  4 minutes from now`: NAME ID SIZE PROCESSOR are fixed by cmd/cmd.go
since v0.1.38, so a row is found by its ID and PROCESSOR cells wherever it starts), and a cut-out
of some columns (a header line of column names alone, such as just `PROCESSOR`, over its values).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern, ParseError, parse_size


@dataclass(frozen=True)
class LoadedModel:
    """One model Ollama has loaded, as `ollama ps` or /api/ps shows it."""

    name: str
    size: int | None  # bytes (text: decimal units, rounded as printed)
    size_vram: int | None  # bytes on GPU (JSON only; estimated from PROCESSOR for text)
    processor: str  # "100% GPU", "100% CPU", "13%/87% CPU/GPU", "Unknown"
    cpu_percent: int | None  # share in system memory, None when Unknown
    context_length: int | None = None
    until: str | None = None  # `ollama ps` UNTIL text
    expires_at: str | None = None  # /api/ps RFC 3339
    id: str = ""
    source: str = ""
    line: str = ""  # the row as printed (text) or a compact summary (JSON)

    @property
    def stopping(self) -> bool:
        return (self.until or "").startswith("Stopping")

    @property
    def forever(self) -> bool:
        return (self.until or "") == "Forever" or (self.expires_at or "")[:4] >= "2200"


def processor_label(size: int, size_vram: int) -> str:
    """The PROCESSOR text Ollama prints for these sizes (cmd/cmd.go ListRunningHandler)."""
    if size_vram == 0:
        return "100% CPU"
    if size_vram == size:
        return "100% GPU"
    if size_vram > size or size == 0:
        return "Unknown"
    ratio = (size - size_vram) / size * 100
    cpu = int(ratio + 0.5)  # Go math.Round, positive values
    return f"{cpu}%/{100 - cpu}% CPU/GPU"


def cpu_percent_of(processor: str) -> int | None:
    """Share of the model in system memory; None for Unknown or a share that is no percentage (> 100)."""
    p = processor.strip()
    m = re.fullmatch(r"(\d+)%/(\d+)% CPU/GPU", p)
    if m:
        n = int(m.group(1))
        return n if n <= 100 else None
    m = re.fullmatch(r"(\d+)% (CPU|GPU)", p)
    if m:
        n = int(m.group(1))
        if n > 100:
            return None
        return n if m.group(2) == "CPU" else 100 - n
    return None


# value patterns per header; unknown headers take one token
_COLUMN = {
    "NAME": r"\S+",
    "ID": r"[0-9a-f]{6,64}",
    "SIZE": r"\d+(?:\.\d+)?\s?[KMGTP]?i?B",
    "PROCESSOR": r"\d+%/\d+%\s+CPU/GPU|\d+%\s+(?:CPU|GPU)|Unknown",
    "CONTEXT": r"\d+",
}
_HEADER = LazyPattern(r"\bNAME\s+ID\s+SIZE\s+PROCESSOR\b.*\bUNTIL\b")
# a header cut down to some of the columns (a fragment of the table): known names only, PROCESSOR among them
_PART_HEADER = LazyPattern(r"^\s*(?:(?:NAME|ID|SIZE|CONTEXT|UNTIL)\s+)*PROCESSOR(?:\s+(?:NAME|ID|SIZE|CONTEXT|UNTIL))*\s*$")
# a row quoted without its header (after a label, a prompt or a bullet): the printed columns in order
_BARE_ROW = LazyPattern(
    r"(?P<c0>[\w.:/-]*[\w-])\s+(?P<c1>[0-9a-f]{12})\s+(?P<c2>\d+(?:\.\d+)?\s?[KMGTP]?i?B)\s+"
    r"(?P<c3>\d+%/\d+%\s+CPU/GPU|\d+%\s+(?:CPU|GPU)|Unknown)(?:\s+(?P<c4>\d+)\b(?!\s+(?:second|minute|hour|day|week|month|year)))?"
    r"\s+(?P<c5>\S.*?)\s*$")
_BARE_HEADERS = ("NAME", "ID", "SIZE", "PROCESSOR", "CONTEXT", "UNTIL")
_PROMPT = LazyPattern(r"^\s*(?:\S*[$#%>]\s|>>>\s)")


def _row_regex(headers: list[str]) -> re.Pattern[str]:
    parts = []
    for i, h in enumerate(headers):
        last = i == len(headers) - 1
        pat = r".*?" if (last and h == "UNTIL") else _COLUMN.get(h, r".+?" if h == "UNTIL" else r"\S+")
        parts.append(f"(?P<c{i}>{pat})")
    return re.compile(r"^\s*" + r"\s+".join(parts) + r"\s*$")


def parse_ps_text(text: str, source: str = "ollama ps") -> tuple[LoadedModel, ...]:
    """All rows of every `ollama ps` table in `text` (several tables may be pasted), or of the
    paste forms above. Header only -> (). Neither a header nor a row -> ParseError."""
    models: list[LoadedModel] = []
    rx: re.Pattern[str] | None = None
    headers: list[str] = []
    bad: list[str] = []
    saw_header = False
    for raw in text.splitlines():
        line = raw.rstrip()
        hm = _HEADER.search(line) or _PART_HEADER.match(line)
        if hm:
            headers = hm.group(0).split()
            rx = _row_regex(headers)
            saw_header = True
            continue
        if not line.strip():
            continue
        if rx is None:
            bare = None if saw_header else _BARE_ROW.search(line)
            if bare:
                cells = {h: (bare.group(f"c{i}") or "").strip() for i, h in enumerate(_BARE_HEADERS)}
                models.append(_from_cells(cells, source, line.strip()))
            continue
        if _PROMPT.match(line) and "ollama" in line:
            rx = None
            continue
        m = rx.match(line)
        if not m:
            bad.append(line.strip())
            continue
        cells = {h: m.group(f"c{i}").strip() for i, h in enumerate(headers)}
        models.append(_from_cells(cells, source, line.strip()))
    if not saw_header and not models:
        if text.strip():
            raise ParseError("no `ollama ps` header (NAME ID SIZE PROCESSOR ... UNTIL) found")
        raise ParseError("empty output")
    if bad and not models:
        raise ParseError(f"row does not match the header: {bad[0][:120]!r}")
    return tuple(models)


def _from_cells(cells: dict[str, str], source: str, line: str) -> LoadedModel:
    size = None
    if cells.get("SIZE"):
        try:
            size = parse_size(cells["SIZE"].replace(" ", ""))
        except ParseError:
            size = None
    processor = " ".join(cells.get("PROCESSOR", "Unknown").split())  # (a paste may widen its space)
    cpu = cpu_percent_of(processor)
    size_vram = None if size is None or cpu is None else int(round(size * (100 - cpu) / 100))
    ctxv = cells.get("CONTEXT")
    return LoadedModel(
        name=cells.get("NAME", ""), size=size, size_vram=size_vram, processor=processor,
        cpu_percent=cpu, context_length=int(ctxv) if ctxv and ctxv.isdecimal() else None,
        until=cells.get("UNTIL") or None, id=cells.get("ID", ""), source=source, line=line,
    )


def parse_api_ps(data: bytes | str | dict, source: str = "GET /api/ps") -> tuple[LoadedModel, ...]:
    """`{"models": [...]}` -> LoadedModel per entry; ParseError on anything else."""
    if data is None:
        raise ParseError('expected an object with a "models" list, got null')
    if not isinstance(data, dict):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            several = _several(data) if e.msg == "Extra data" else None
            if several is None:
                raise ParseError(f"not JSON: {e}") from None
            return tuple(m for one in several for m in parse_api_ps(one, source))
        except (TypeError, ValueError, UnicodeDecodeError) as e:  # TypeError: a JSON null read before us
            raise ParseError(f"not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models", []), list):
        raise ParseError('expected an object with a "models" list')
    out = []
    for i, m in enumerate(data.get("models") or []):
        if not isinstance(m, dict):
            raise ParseError(f"models[{i}] is not an object")
        size, vram = _int(m.get("size")), _int(m.get("size_vram"))
        if size is None:
            raise ParseError(f"models[{i}] has no integer size")
        vram = 0 if vram is None else vram  # omitted = 0 (omitempty)
        proc = processor_label(size, vram)
        name = str(m.get("name") or m.get("model") or "")
        ctx = _int(m.get("context_length"))
        line = f"{name}: size={size} size_vram={vram}" + (f" context_length={ctx}" if ctx else "")
        out.append(LoadedModel(
            name=name, size=size, size_vram=vram, processor=proc, cpu_percent=cpu_percent_of(proc),
            context_length=ctx, expires_at=str(m["expires_at"]) if m.get("expires_at") else None,
            id=str(m.get("digest") or "")[:12], source=source, line=line,
        ))
    return tuple(out)


def _several(data: bytes | str) -> list[dict] | None:
    """Several /api/ps answers one after another (a ticket with `curl .../api/ps` run twice):
    each object, in order, so that compare() sees them as snapshots; None if any is not one."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    dec, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out or None
        try:
            obj, i = dec.raw_decode(text, i)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        out.append(obj)


def _int(v) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def merge(api: tuple[LoadedModel, ...], text: tuple[LoadedModel, ...]) -> tuple[LoadedModel, ...]:
    """JSON sizes are exact; the text adds UNTIL (`Stopping...`, `Forever`). Models only in
    the text are kept as they are."""
    from dataclasses import replace

    by_name = {m.name: m for m in text}
    out = [replace(m, until=by_name[m.name].until) if m.name in by_name else m for m in api]
    names = {m.name for m in api}
    out += [m for m in text if m.name not in names]
    return tuple(out)


# -- several snapshots -------------------------------------------------------------------
# A ticket (or an evidence dir) often holds `ollama ps` run more than once: before and after a
# client connected, or a minute apart. The rows then come flattened in the order they were
# printed, and a model can appear in one table only once, so each repeat of a name is a later
# snapshot of the same model.

@record
class PsChange(Record):
    """What changed for one model between two snapshots (`kind`: keep_alive_shortened,
    context_changed, size_changed, moved_to_cpu), with both rows as evidence."""

    kind: str
    model: str
    before: LoadedModel
    after: LoadedModel


# A size that moved by less than this share is the same load printed with rounding (`31 GB`).
SIZE_CHANGE_SHARE = 0.05


def _countdown(m: LoadedModel) -> bool:
    """An expiry that counts down (`4 minutes from now`, an RFC 3339 time before 2200)."""
    if m.until:
        return m.until.endswith("from now") or m.until.endswith("ago")
    return bool(m.expires_at) and (m.expires_at or "")[:4] < "2200"


def compare(models: tuple[LoadedModel, ...]) -> tuple[PsChange, ...]:
    """Changes between successive snapshots of each model; none where only the countdown moved."""
    last: dict[str, LoadedModel] = {}
    out: list[PsChange] = []
    for m in models:
        b = last.get(m.name)
        last[m.name] = m
        if b is None or not m.name:
            continue
        if b.forever and not m.forever and _countdown(m):
            out.append(PsChange("keep_alive_shortened", m.name, b, m))
        if b.context_length and m.context_length and b.context_length != m.context_length:
            out.append(PsChange("context_changed", m.name, b, m))
        elif b.size and m.size and abs(m.size - b.size) > SIZE_CHANGE_SHARE * b.size:
            out.append(PsChange("size_changed", m.name, b, m))
        if b.cpu_percent is not None and m.cpu_percent is not None and m.cpu_percent > b.cpu_percent:
            out.append(PsChange("moved_to_cpu", m.name, b, m))
    return tuple(out)
