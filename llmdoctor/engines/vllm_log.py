"""Streaming scanner for vLLM server logs (FACTS.md §5.2-§5.4).

What it extracts, in bounded memory whatever the log size:
- V0 preemption warnings (`Sequence group X is preempted by PreemptionMode.Y mode ...
  total_num_cumulative_preemption=N`; only every 50th preemption is logged) and their
  cumulative counts, including lines cut off before the count;
- periodic stats lines, V0 (`Running/Swapped/Pending`, GPU and CPU KV %) and V1
  (`Running/Waiting`, optional `Deferred`, `Preemptions: N`, `GPU|XPU KV cache usage`,
  prefix-cache hit rate, `N Engines Aggregated:`), several per physical line when the
  log lost a newline;
- the KV capacity printed at start-up in every version's wording, the "max seq len is
  larger than ... KV cache" refusal (V0 and V1 wordings) and the 503 queue-overflow text.

Lines may carry journald prefixes, `(APIServer pid=N)` / `(EngineCore_DP0 pid=N)` process
tags, tqdm progress junk or truncation, so everything matches substrings; nothing is
anchored at the start of a line.

Speed: every interesting line contains "KV cache", "#" or the 503 text, except the
"Maximum concurrency" and V0 "Prefix cache hit rate: GPU" lines, which vLLM prints
right after a trigger line and are read by looking at the next few lines. `feed_bytes`
finds trigger lines in large chunks with bytes.find (C speed) and decodes only those;
`feed_line` applies the same pre-filter per line, so both give the same result.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import BinaryIO, Iterable

KV_MARK = "KV cache"
HASH_MARK = "#"
BUSY_MARK = "cannot accept new requests"
OVERFLOW_MARK = "QueueOverflowError"
_STR_MARKS = (KV_MARK, HASH_MARK, BUSY_MARK, OVERFLOW_MARK)
_BYTE_MARKS = tuple(m.encode() for m in _STR_MARKS)
PEEK_LINES = 3  # lines after a trigger that may hold "Maximum concurrency" / V0 prefix rate
MAX_LINE = 64 * 1024  # longer lines are cut (bounded memory on a log without newlines)
EVIDENCE_CHARS = 400

_TS = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)")
_PREEMPT = re.compile(r"is preempted (?:by|in) (?:PreemptionMode\.)?(\w+) mode")
_PREEMPT_ID = re.compile(r"Sequence group (\S+) is preempted")
_CUMULATIVE = re.compile(r"(?:total_num_cumulative_preemption|total_cumulative_preemption_cnt)=(\d+)")
_STATS = re.compile(
    r"Running: (\d+) reqs, (?:Swapped: (\d+) reqs, )?(Pending|Waiting): (\d+) reqs, "
    r"((?:[A-Za-z][A-Za-z ]*: [^,%]*, )*?)"  # Deferred, KV fetch, Preemptions, future fields
    r"(\w+) KV cache usage: (\d+(?:\.\d+)?)%"
    r"(?:, CPU KV cache usage: (\d+(?:\.\d+)?)%)?"
    r"(?:, Prefix cache hit rate: (\d+(?:\.\d+)?)%)?"
)
_THROUGHPUT = re.compile(
    r"(?:(\d+) Engines Aggregated: )?(?:Engine \d+: )?Avg prompt throughput: (\d+(?:\.\d+)?) tokens/s, "
    r"Avg generation throughput: (\d+(?:\.\d+)?) tokens/s, $"
)
_DEFERRED = re.compile(r"Deferred: (\d+) reqs")
_PREEMPTIONS = re.compile(r"Preemptions: (\d+)")
_V0_PREFIX = re.compile(r"Prefix cache hit rate: GPU: (\d+(?:\.\d+)?)%")
_BLOCKS = re.compile(r"(\w+) blocks: (\d+)(?:, # CPU blocks: (\d+))?")
_KV_TOKENS = re.compile(r"KV cache size: (\d[\d,]*) tokens")
_MAX_CONC = re.compile(r"Maximum concurrency for (\d[\d,]*) tokens per request: (\d+(?:\.\d+)?)x")
_AVAILABLE = re.compile(r"Available KV cache memory: (\d+(?:\.\d+)?) ?GiB")
_MAX_SEQ_V0 = re.compile(
    r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)")
_MAX_SEQ_V1 = re.compile(
    r"max seq len \((\d+)\), \((\d+(?:\.\d+)?) GiB KV cache is needed, which is larger than the available KV cache "
    r"memory \((\d+(?:\.\d+)?) GiB\)")
_ESTIMATED = re.compile(r"estimated maximum model length is (\d+)")


def _int(text: str | None) -> int | None:
    return int(text.replace(",", "")) if text else None


def _short(line: str) -> str:
    line = line.strip()
    return line if len(line) <= EVIDENCE_CHARS else line[: EVIDENCE_CHARS - 1] + "…"


@dataclass(frozen=True)
class StatsLine:
    """One periodic stats record. `waiting` is V1 Waiting or V0 Pending."""

    engine_version: str  # "v0" (Pending/Swapped form) or "v1"
    running: int
    waiting: int
    kv_usage_pct: float
    kv_device: str = "GPU"
    swapped: int | None = None
    deferred: int | None = None
    preemptions: int | None = None  # V1 >= 0.12: preemptions during this interval
    cpu_kv_usage_pct: float | None = None
    prefix_hit_pct: float | None = None
    prompt_tps: float | None = None
    generation_tps: float | None = None
    engines_aggregated: int | None = None
    time: str | None = None  # "MM-DD HH:MM:SS" from the log prefix
    text: str = ""


@dataclass(frozen=True)
class KvCapacity:
    """What vLLM printed about its KV cache at one start-up."""

    gpu_blocks: int | None = None
    cpu_blocks: int | None = None
    kv_tokens: int | None = None
    available_gib: float | None = None
    max_concurrency: float | None = None
    tokens_per_request: int | None = None  # max_model_len the concurrency refers to
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class MaxSeqLenError:
    max_seq_len: int
    kv_tokens: int | None = None  # V0 wording
    needed_gib: float | None = None  # V1 wording
    available_gib: float | None = None
    estimated_max_len: int | None = None
    text: str = ""


@dataclass(frozen=True)
class Run:
    """A stretch of consecutive stats lines that all met a condition."""

    length: int
    first: StatsLine
    last: StatsLine
    peak: float


@dataclass(frozen=True)
class VllmLogSummary:
    source: str
    lines_examined: int  # lines that passed the pre-filter
    preemption_warnings: int
    preemptions_at_least: int  # from cumulative counts (every 50th is logged)
    preemption_modes: tuple[tuple[str, int], ...]
    first_preemption: str | None
    last_preemption: str | None
    last_cumulative: int | None
    max_cumulative: int | None  # highest total_num_cumulative_preemption seen (since that start-up)
    stats_lines: int
    recent_stats: tuple[StatsLine, ...]  # the last ones, oldest first
    v1_preemptions: int  # sum of `Preemptions: N` over all stats lines
    stats_with_preemptions: int
    first_stats_preemption: StatsLine | None
    last_stats_preemption: StatsLine | None
    longest_waiting_run: Run | None
    longest_kv_full_run: Run | None
    max_running: int
    max_waiting: int
    max_in_flight: int  # max Running + Waiting on one line
    prompt_heavy_waiting_lines: int  # Waiting > 0 while prompt tokens/s >> generation tokens/s
    waiting_lines: int
    kv_capacity: KvCapacity | None  # the last start-up
    startups: int
    max_seq_len_error: MaxSeqLenError | None
    queue_overflows: int
    queue_overflow_example: str | None
    engine_version: str | None  # "v0" / "v1" / None when unknown

    @property
    def empty(self) -> bool:
        return not (self.preemption_warnings or self.stats_lines or self.kv_capacity
                    or self.max_seq_len_error or self.queue_overflows)

    def summary(self) -> list[tuple[str, str]]:
        out = []
        if self.kv_capacity and self.kv_capacity.max_concurrency is not None:
            out.append(("vLLM max concurrency (start-up)", f"{self.kv_capacity.max_concurrency:.2f}x"))
        if self.stats_lines:
            last = self.recent_stats[-1]
            out.append(("vLLM last stats", f"Running {last.running}, Waiting {last.waiting}, "
                                           f"KV {last.kv_usage_pct:.1f}%"))
        return out


KV_FULL_PCT = 95.0


class VllmLogScanner:
    """Feed lines (`feed_line`) or raw bytes (`feed_bytes`/`scan_stream`), then `result()`."""

    def __init__(self, source: str = "vllm.log", keep_stats: int = 360, kv_full_pct: float = KV_FULL_PCT) -> None:
        self.source = source
        self.kv_full_pct = kv_full_pct
        self.lines_examined = 0
        self.preempt_warnings = 0
        self.preempt_modes: dict[str, int] = {}
        self.first_preempt: str | None = None
        self.last_preempt: str | None = None
        self._segment_first: int | None = None
        self._segment_last: int | None = None
        self._closed_segments = 0
        self._uncounted = 0  # warnings whose count was cut off
        self._max_cumulative: int | None = None
        self.stats_count = 0
        self.recent: deque[StatsLine] = deque(maxlen=keep_stats)
        self.v1_preemptions = 0
        self.stats_preempt_lines = 0
        self.first_stats_preempt: StatsLine | None = None
        self.last_stats_preempt: StatsLine | None = None
        self._wait_run: list = [0, None, None, 0.0]
        self._kv_run: list = [0, None, None, 0.0]
        self.best_wait: Run | None = None
        self.best_kv: Run | None = None
        self.max_running = self.max_waiting = self.max_in_flight = 0
        self.prompt_heavy_waiting = 0
        self.waiting_lines = 0
        self._kv: dict = {}
        self._kv_lines: list[str] = []
        self.kv_capacity: KvCapacity | None = None
        self.startups = 0
        self.max_seq: MaxSeqLenError | None = None
        self.overflows = 0
        self.overflow_example: str | None = None
        self.version: str | None = None
        self._peek_left = 0
        self._tail = b""

    # -- feeding -------------------------------------------------------------------
    def feed_line(self, line: str) -> None:
        if self._peek_left:
            self._peek_left -= 1
            self._handle_follow_up(line)
        if KV_MARK in line or HASH_MARK in line or BUSY_MARK in line or OVERFLOW_MARK in line:
            self._handle(line)

    def feed_lines(self, lines: Iterable[str]) -> "VllmLogScanner":
        for line in lines:
            self.feed_line(line)
        return self

    def feed_bytes(self, data: bytes, final: bool = False) -> None:
        """Feed a chunk of the raw log; lines may span chunks. `final` flushes the last line."""
        buf = self._tail + data if self._tail else data
        end = buf.rfind(b"\n") + 1
        if final:
            end = len(buf)
        self._tail = buf[end:]
        if len(self._tail) > MAX_LINE:  # a runaway line: keep its start, drop the rest
            self._tail = self._tail[:MAX_LINE]
        if end:
            self._scan_region(buf, end)

    def scan_stream(self, stream: BinaryIO, chunk_size: int = 8 * 1024 * 1024) -> "VllmLogScanner":
        while True:
            data = stream.read(chunk_size)
            if not data:
                break
            self.feed_bytes(data)
        self.feed_bytes(b"", final=True)
        return self

    def feed_block(self, text: str) -> None:
        """Feed newline-joined whole lines (LogSource.blocks()); same result as feed_line on each."""
        if text:
            self._scan_region(text, len(text), _STR_MARKS, "\n")

    def _scan_region(self, buf, end: int, marks=_BYTE_MARKS, nl=b"\n") -> None:
        """Handle the lines in buf[:end] exactly as feed_line would, in order, but look only
        at trigger lines (found with C-speed find) and the follow-up lines after them."""
        starts: set[int] = set()
        find, rfind = buf.find, buf.rfind
        for mark in marks:
            pos = find(mark, 0, end)
            while pos != -1:
                starts.add(rfind(nl, 0, pos) + 1)
                le = find(nl, pos, end)
                if le == -1:
                    break
                pos = find(mark, le + 1, end)
        hits = sorted(starts)
        is_bytes = isinstance(buf, (bytes, bytearray))
        i, pos = 0, 0
        while True:
            while i < len(hits) and hits[i] < pos:
                i += 1
            if not self._peek_left:  # jump to the next trigger line
                if i == len(hits):
                    break
                pos = hits[i]
                i += 1
            elif pos >= end:
                break
            le = find(nl, pos, end)
            le = end if le == -1 else le
            line = buf[pos: min(le, pos + MAX_LINE)]
            pos = le + 1
            self.feed_line(line.decode("utf-8", "replace") if is_bytes else line)

    # -- line handlers ----------------------------------------------------------------
    def _handle(self, line: str) -> None:
        self.lines_examined += 1
        if KV_MARK in line:
            if "is preempted" in line:
                self._preemption(line)
                return
            if " KV cache usage: " in line:
                self._stats(line)
                return
            if "KV cache size:" in line or "Available KV cache memory" in line:
                self._kv_line(line)
                return
            if "max seq len" in line:
                self._max_seq(line)
                return
        if " blocks: " in line and _BLOCKS.search(line):
            self._kv_line(line)
            return
        if BUSY_MARK in line or OVERFLOW_MARK in line:
            self.overflows += 1
            if self.overflow_example is None:
                self.overflow_example = _short(line)

    def _handle_follow_up(self, line: str) -> None:
        """A line right after a trigger: `Maximum concurrency` or V0 prefix-cache rate."""
        if KV_MARK in line:
            return  # handled as a trigger line itself
        if "Maximum concurrency" in line:
            self._kv_line(line)
        elif "Prefix cache hit rate: GPU" in line and self.recent:
            m = _V0_PREFIX.search(line)
            last = self.recent[-1]
            if m and last.engine_version == "v0" and last.prefix_hit_pct is None:
                from dataclasses import replace

                self.recent[-1] = replace(last, prefix_hit_pct=float(m.group(1)))

    def _preemption(self, line: str) -> None:
        m = _PREEMPT.search(line)
        if not m:
            return
        self.version = self.version or "v0"
        self.preempt_warnings += 1
        mode = m.group(1)
        self.preempt_modes[mode] = self.preempt_modes.get(mode, 0) + 1
        text = _short(line)
        if self.first_preempt is None:
            self.first_preempt = text
        self.last_preempt = text
        c = _CUMULATIVE.search(line)
        if not c:
            self._uncounted += 1
            return
        n = int(c.group(1))
        self._max_cumulative = max(self._max_cumulative or 0, n)
        if self._segment_last is not None and n < self._segment_last:  # restarted: a new count
            self._closed_segments += self._segment_last - self._segment_first + 1  # type: ignore[operator]
            self._segment_first = None
        if self._segment_first is None:
            self._segment_first = n
        self._segment_last = n

    def _stats(self, line: str) -> None:
        prev_end = 0
        for m in _STATS.finditer(line):
            head = line[max(prev_end, m.start() - 160): m.start()]
            tp = _THROUGHPUT.search(head)
            mid = m.group(5) or ""
            d = _DEFERRED.search(mid) if mid else None
            p = _PREEMPTIONS.search(mid) if mid else None
            ts = _TS.findall(line, prev_end, m.start())  # the prefix of this record
            self._add_stats(StatsLine(
                engine_version="v0" if m.group(3) == "Pending" else "v1",
                running=int(m.group(1)),
                waiting=int(m.group(4)),
                kv_usage_pct=float(m.group(7)),
                kv_device=m.group(6),
                swapped=_int(m.group(2)),
                deferred=_int(d.group(1)) if d else None,
                preemptions=_int(p.group(1)) if p else None,
                cpu_kv_usage_pct=float(m.group(8)) if m.group(8) else None,
                prefix_hit_pct=float(m.group(9)) if m.group(9) else None,
                prompt_tps=float(tp.group(2)) if tp else None,
                generation_tps=float(tp.group(3)) if tp else None,
                engines_aggregated=_int(tp.group(1)) if tp else None,
                time=ts[-1] if ts else None,
                text=_short(line[prev_end: m.end()]),
            ))
            prev_end = m.end()
        if self.version is None and self.recent:
            self.version = self.recent[-1].engine_version
        if prev_end and self.recent[-1].engine_version == "v0":
            self._peek_left = PEEK_LINES

    def _add_stats(self, s: StatsLine) -> None:
        self.stats_count += 1
        self.recent.append(s)
        self.max_running = max(self.max_running, s.running)
        self.max_waiting = max(self.max_waiting, s.waiting)
        self.max_in_flight = max(self.max_in_flight, s.running + s.waiting)
        if s.preemptions:
            self.v1_preemptions += s.preemptions
            self.stats_preempt_lines += 1
            if self.first_stats_preempt is None:
                self.first_stats_preempt = s
            self.last_stats_preempt = s
        if s.waiting > 0:
            self.waiting_lines += 1
            if s.prompt_tps is not None and s.generation_tps is not None and s.prompt_tps > 10 * max(s.generation_tps, 1.0):
                self.prompt_heavy_waiting += 1
        self.best_wait = self._extend(self._wait_run, s, s.waiting > 0, float(s.waiting), self.best_wait)
        self.best_kv = self._extend(self._kv_run, s, s.kv_usage_pct >= self.kv_full_pct, s.kv_usage_pct, self.best_kv)

    @staticmethod
    def _extend(run: list, s: StatsLine, ok: bool, value: float, best: Run | None) -> Run | None:
        if not ok:
            run[0] = 0
            return best
        if run[0] == 0:
            run[1], run[3] = s, value
        run[0] += 1
        run[2] = s
        run[3] = max(run[3], value)
        if best is None or run[0] > best.length:
            return Run(run[0], run[1], run[2], run[3])
        if best.first is run[1]:  # same run, update its peak
            return Run(run[0], run[1], run[2], run[3])
        return best

    def _kv_line(self, line: str) -> None:
        b = _BLOCKS.search(line) if " blocks: " in line else None
        t = _KV_TOKENS.search(line)
        a = _AVAILABLE.search(line)
        c = _MAX_CONC.search(line)
        if not (b or t or a or c):
            return
        # vLLM prints available memory, then size (blocks or tokens), then concurrency; a line
        # that does not come later in that order than what we hold begins a new start-up.
        rank = 0 if a else (1 if (b or t) else 2)
        held = max([{"available_gib": 0, "gpu_blocks": 1, "kv_tokens": 1, "max_concurrency": 2}[k]
                    for k in self._kv if k in ("available_gib", "gpu_blocks", "kv_tokens", "max_concurrency")],
                   default=-1)
        if held == -1 or rank <= held:
            self._kv, self._kv_lines = {}, []
            self.startups += 1
        if b:
            self._kv["gpu_blocks"] = int(b.group(2))
            if b.group(3):
                self._kv["cpu_blocks"] = int(b.group(3))
            self.version = self.version or ("v0" if b.group(3) else None)
        if t:
            self._kv["kv_tokens"] = _int(t.group(1))
        if a:
            self._kv["available_gib"] = float(a.group(1))
        if c:
            self._kv["tokens_per_request"] = _int(c.group(1))
            self._kv["max_concurrency"] = float(c.group(2))
        self._kv_lines.append(_short(line))
        self._kv_lines = self._kv_lines[-4:]
        self.kv_capacity = KvCapacity(lines=tuple(self._kv_lines), **self._kv)
        if (b or t) and not c:
            self._peek_left = PEEK_LINES

    def _max_seq(self, line: str) -> None:
        m0 = _MAX_SEQ_V0.search(line)
        m1 = _MAX_SEQ_V1.search(line) if not m0 else None
        if not (m0 or m1):
            return
        est = _ESTIMATED.search(line)
        if m0:
            err = MaxSeqLenError(int(m0.group(1)), kv_tokens=int(m0.group(2)), text=_short(line))
        else:
            err = MaxSeqLenError(int(m1.group(1)), needed_gib=float(m1.group(2)),  # type: ignore[union-attr]
                                 available_gib=float(m1.group(3)),  # type: ignore[union-attr]
                                 estimated_max_len=int(est.group(1)) if est else None, text=_short(line))
        self.max_seq = err

    # -- result -------------------------------------------------------------------------
    def result(self) -> VllmLogSummary:
        at_least = self._closed_segments + self._uncounted
        if self._segment_first is not None:
            at_least += self._segment_last - self._segment_first + 1  # type: ignore[operator]
        return VllmLogSummary(
            source=self.source,
            lines_examined=self.lines_examined,
            preemption_warnings=self.preempt_warnings,
            preemptions_at_least=max(at_least, self.preempt_warnings),
            preemption_modes=tuple(sorted(self.preempt_modes.items())),
            first_preemption=self.first_preempt,
            last_preemption=self.last_preempt,
            last_cumulative=self._segment_last,
            max_cumulative=self._max_cumulative,
            stats_lines=self.stats_count,
            recent_stats=tuple(self.recent),
            v1_preemptions=self.v1_preemptions,
            stats_with_preemptions=self.stats_preempt_lines,
            first_stats_preemption=self.first_stats_preempt,
            last_stats_preemption=self.last_stats_preempt,
            longest_waiting_run=self.best_wait,
            longest_kv_full_run=self.best_kv,
            max_running=self.max_running,
            max_waiting=self.max_waiting,
            max_in_flight=self.max_in_flight,
            prompt_heavy_waiting_lines=self.prompt_heavy_waiting,
            waiting_lines=self.waiting_lines,
            kv_capacity=self.kv_capacity,
            startups=self.startups,
            max_seq_len_error=self.max_seq,
            queue_overflows=self.overflows,
            queue_overflow_example=self.overflow_example,
            engine_version=self.version,
        )


def scan_vllm_lines(lines: Iterable[str], source: str = "vllm.log") -> VllmLogSummary:
    return VllmLogScanner(source).feed_lines(lines).result()


def scan_vllm_stream(stream: BinaryIO, source: str = "vllm.log") -> VllmLogSummary:
    return VllmLogScanner(source).scan_stream(stream).result()


def looks_like_vllm(text: str) -> bool:
    """Sniff a log excerpt: vLLM-specific wording."""
    return any(k in text for k in ("Avg prompt throughput", "vllm.entrypoints", "PreemptionMode",
                                   "EngineCore_DP", "(APIServer pid=", "Maximum concurrency for",
                                   "GPU KV cache size", "# GPU blocks", "vLLM API server"))
