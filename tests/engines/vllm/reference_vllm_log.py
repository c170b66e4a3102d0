"""The vLLM log scanner as it was before the fast path (issue 15), kept as the reference that
tests/engines/vllm/test_vllm_log_reference.py holds the package's scanner to: same input, same result.

Streaming scanner for vLLM server logs.

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

Speed (bench/engine_log_scan.py): every interesting line contains "KV cache", "#" or
"QueueOverflowError" (plus the 503 message text for client_errors.txt), except the "Maximum
concurrency" and V0 "Prefix cache hit rate: GPU" lines, which vLLM prints right after a
trigger line and which are read in a window of the next few lines. The chunk readers
(`feed_bytes`, `scan_stream`, `feed_block`, `feed_raw_block`) find trigger lines with memchr
on a rare character ('V' of "KV", 'Q', '#') and touch no other line; `feed_line` applies the
same pre-filter per line. A property test holds all of them to the same result.
"""
from __future__ import annotations

import math
import re
from collections import deque
from typing import BinaryIO, Iterable

from llmdoctor.knowledge.evidence_line import short_line
from llmdoctor.knowledge.vllm.log import PROMPT_RATIOS
from llmdoctor.knowledge.vllm.records import (  # noqa: F401  (re-exported: the scan's result types)
    KvCapacity,
    MaxSeqLenError,
    MemoryShort,
    Run,
    StatsLine,
    VllmLogSummary,
)

KV_MARK = "KV cache"
HASH_MARK = "#"
BUSY_MARK = "cannot accept new requests"
OVERFLOW_MARK = "QueueOverflowError"
# Searched in whole chunks at memchr speed: a rare character, then the word it starts or ends.
# Access and request lines carry no capital 'V' or 'Q', so nearly every hit is a real one.
_RARE = (("V", KV_MARK, 1), ("Q", OVERFLOW_MARK, 0), ("#", HASH_MARK, 0))
_RARE_B = tuple((c.encode(), w.encode(), o) for c, w, o in _RARE)
# Rare lines found by a plain substring search per chunk (no per-line work): requests refused
# for max_model_len (V0 scheduler, input processor, OpenAI server wordings) and the start-up
# line that names the engine's settings (V1 `non-default args: {...}`, V0 `with config: ...`).
CONTEXT_MARKS = ("exceeds limit of", "maximum model length of", "maximum context length is",
                 "cannot be greater than max_model_len", "to fit into the model (context length",
                 "exceeds the capacity of block_manager")
SETTINGS_MARKS = ("non-default args: {", "engine with config: ", "engine (v", "Chunked prefill is enabled with",
                  "Using max model len", "x gpu_memory_utilization (", "User-specified max_model_len")
# (later additions, the message catalogue's: a "Maximum concurrency" line apart from its size
# line, the refusal to start without memory for any KV block)
START_MARKS = ("Maximum concurrency for", "No available memory for the cache blocks", "esired GPU memory utilization",
               "Memory profiling results: ")
PEEK_LINES = 3  # window after a trigger for "Maximum concurrency" / the V0 prefix-cache line
MAX_LINE = 64 * 1024  # longer lines are cut (bounded memory on a log without newlines)

_TS = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)")
_PREEMPT = re.compile(r"is preempted (?:by|in) (?:PreemptionMode\.)?(\w+) mode")
_CUMULATIVE = re.compile(r"(?:total_num_cumulative_preemption|total_cumulative_preemption_cnt)=(\d+)")
_STATS_BODY = (
    r"Running: (\d+) reqs, (?:Swapped: (\d+) reqs, )?(Pending|Waiting): (\d+) reqs, "
    r"((?:[A-Za-z][A-Za-z ]*: [^,%]*, (?:\d[^,%:]*, )*)*?)"  # Deferred, KV fetch (3 counts), Preemptions, future fields
    r"(\w+) KV cache usage: (\d+(?:\.\d+)?)%"
    r"(?:, CPU KV cache usage: (\d+(?:\.\d+)?)%)?"
    r"(?:, Prefix cache hit rate: (\d+(?:\.\d+)?)%)?"
)
# The usual record, matched in one go from its literal start; records without the throughput
# part fall back to _STATS (groups shifted by two).
_STATS_FULL = re.compile(
    r"Avg prompt throughput: (\d+(?:\.\d+)?) tokens/s, Avg generation throughput: (\d+(?:\.\d+)?) tokens/s, "
    + _STATS_BODY)
_STATS = re.compile(_STATS_BODY)
_AGGREGATED = re.compile(r"(\d+) Engines Aggregated: ")
_DEFERRED = re.compile(r"Deferred: (\d+) reqs")
_PREEMPTIONS = re.compile(r"Preemptions: (\d+)")
_V0_PREFIX = re.compile(r"Prefix cache hit rate: GPU: (\d+(?:\.\d+)?)%")
_BLOCKS = re.compile(r"(\w+) blocks: (\d+)(?:, # CPU blocks: (\d+))?")
_KV_TOKENS = re.compile(r"KV cache size: (\d[\d,]*) tokens")
_MAX_CONC = re.compile(r"Maximum concurrency for (\d[\d,]*) tokens per request: (\d+(?:\.\d+)?)x")
_AVAILABLE = re.compile(r"(?:Available KV cache memory: |Memory profiling results: .*\bkv_cache_size=)(\d+(?:\.\d+)?) ?GiB")
_MAX_SEQ_V0 = re.compile(
    r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)")
_MAX_SEQ_V1 = re.compile(
    r"max seq len \((\d+)\),\s*\(?(\d+(?:\.\d+)?) GiB KV cache is needed, which is larger than the available KV cache "
    r"memory \((\d+(?:\.\d+)?) GiB\)")
_ESTIMATED = re.compile(r"estimated maximum model length is (\d+)")
_TOO_LONG = (
    re.compile(r"Input prompt \((\d+) tokens\) is too long and exceeds limit of (\d+)"),
    re.compile(r"prompt \(length (\d+)\) is longer than the maximum model length of (\d+)"),
    re.compile(r"Prompt length of (\d+) is longer than the maximum model length of (\d+)"),
    re.compile(r"maximum context length is (\d+) tokens\. However, you requested (\d+) tokens"),
    re.compile(r"maximum context length is (\d+) tokens\..*?(?:prompt contains (?:at least )?|your request has )(\d+) "
               r"input tokens"),
    re.compile(r"prompt \(total length (\d+)\) is too long to fit into the model \(context length (\d+)\)"),
)
# refusals without a prompt token count: a character pre-check, output tokens beyond the limit
_TOO_LONG_OTHER = re.compile(r"maximum context length is (\d+) tokens\.|max_(?:completion_)?tokens=\d+ cannot be "
                             r"greater than max_model_len=(\d+)")
_MEMORY_SHORT = re.compile(r"ree memory on device (?:\S+ )?\((\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) GiB\) on startup is less "
                           r"than desired GPU memory utilization \((\d+(?:\.\d+)?), (\d+(?:\.\d+)?) GiB\)")
_USER_MAX_LEN = re.compile(r"User-specified max_model_len \((\d+)\) is greater than the derived max_model_len"
                           r"(?: \(\w+=(\d+))?")
_EFFECTIVE = ((re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)"), "max_num_batched_tokens"),
              (re.compile(r"Using max model len (\d+)"), "max_model_len"),
              (re.compile(r"x gpu_memory_utilization \((\d+(?:\.\d+)?)\)"), "gpu_memory_utilization"))
_CONFIG_PAIR = re.compile(r"\b(max_seq_len|max_model_len|tensor_parallel_size|pipeline_parallel_size|"
                          r"enable_prefix_caching|block_size|max_num_seqs|max_num_batched_tokens|"
                          r"gpu_memory_utilization|kv_cache_dtype|enable_chunked_prefill|quantization)=([^,)\s]+)")


_SETTING_KEYS = frozenset({"max_model_len", "max_num_seqs", "max_num_batched_tokens", "gpu_memory_utilization",
                           "tensor_parallel_size", "pipeline_parallel_size", "enable_prefix_caching",
                           "enable_chunked_prefill", "kv_cache_dtype", "block_size", "kv_cache_memory_bytes",
                           "swap_space", "preemption_mode", "quantization", "model", "dtype"})


def _config_value(v: str):
    """A value of V0's `with config:` line as Python: ints, floats, booleans, else the text."""
    v = v.strip("'\"")
    if v in ("True", "False"):
        return v == "True"
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def _int(text: str | None) -> int | None:
    return int(text.replace(",", "")) if text else None


# The KV usage from which the scanner notes runs of stats lines, at every whole percent up to
# 100 (kv_levels): a reading, not a verdict. Which level is "full" is the judge's
# (judge/thresholds.py VLLM_KV_FULL_PCT, one of these levels); a line below the floor ends them all.
KV_RUN_FLOOR_PCT = 90.0


def kv_levels(floor_pct: float) -> tuple[int, ...]:
    """The whole percentages from `floor_pct` up to 100 at which KV runs are noted."""
    return tuple(range(max(0, math.ceil(floor_pct)), 101))


class VllmLogScanner:
    """Feed lines (`feed_line`) or raw bytes (`feed_bytes`/`scan_stream`), then `result()`."""

    def __init__(self, source: str = "vllm.log", keep_stats: int = 360, kv_floor_pct: float = KV_RUN_FLOOR_PCT,
                 client_errors: bool = False) -> None:
        """`client_errors`: the lines are what clients received (client_errors.txt), so the 503
        message text itself counts; in server logs only the logged QueueOverflowError does
        (looking for the message would cost a slow extra pass over every byte)."""
        self.source = source
        self._busy = client_errors
        self._marks = ((BUSY_MARK,) if client_errors else ()) + CONTEXT_MARKS + SETTINGS_MARKS + START_MARKS
        self.lines = 0  # lines read, whatever they held
        self.too_long = 0
        self.too_long_examples: list[str] = []
        self.too_long_max: tuple[int, int] | None = None  # (prompt tokens, limit) of the largest
        self.over_kv_capacity = 0
        self.no_kv_memory = None
        self.memory_short = None
        self.max_len_over_model = None
        self.settings: dict = {}
        self.kv_floor_pct = kv_floor_pct
        self._kv_levels = kv_levels(kv_floor_pct)
        self._kv_low = self._kv_levels[0] if self._kv_levels else math.inf
        self._best_kvs: list = [None] * len(self._kv_levels)  # the longest run at each level
        self._kv_alone: tuple | None = None  # (KV %, record): the fullest cache while one request ran alone
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
        self.recent: deque[list] = deque(maxlen=keep_stats)  # raw records, see _materialize
        self.v1_preemptions = 0
        self.stats_preempt_lines = 0
        self.first_stats_preempt: list | None = None
        self.last_stats_preempt: list | None = None
        self._wait_run = self._kv_run = self._best_wait = None
        self.max_running = self.max_waiting = self.max_in_flight = 0
        self.prompt_over = [0] * len(PROMPT_RATIOS)
        self.waiting_lines = 0
        self._kv: dict = {}
        self._kv_lines: list[str] = []
        self.kv_capacity: KvCapacity | None = None
        self.startups = 0
        self.max_seq: MaxSeqLenError | None = None
        self.overflows = 0
        self.overflow_example: str | None = None
        self._saw_v0 = False  # V0-only wording seen (preemption warning, CPU blocks, Pending)
        self._last_version: str | None = None  # of the last stats record
        self._prefix_left = 0  # lines left in which a V0 prefix-cache line may follow
        self._prefix_target: list | None = None
        self._conc_left = 0  # lines left in which "Maximum concurrency" may follow
        self._tail = b""

    # -- feeding -------------------------------------------------------------------
    def feed_line(self, line: str) -> None:
        self.lines += 1
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE]
        if self._prefix_left:  # the V0 prefix-cache line follows its stats line
            self._prefix_window_line(line)
        read = False
        if self._conc_left:  # "Maximum concurrency" follows the KV size line
            self._conc_left -= 1
            read = self._conc_follow_up(line)
        if KV_MARK in line or HASH_MARK in line or OVERFLOW_MARK in line or (self._busy and BUSY_MARK in line):
            self._handle(line)
        elif not read and any(m in line for m in self._marks):
            self._rare(line)

    def feed_lines(self, lines: Iterable[str]) -> "VllmLogScanner":
        for line in lines:
            self.feed_line(line)
        return self

    def feed_bytes(self, data: bytes, final: bool = False) -> None:
        """Feed a chunk of the raw log; lines may span chunks. `final` flushes the last line."""
        self._feed_buffer(data, len(data), final)

    def _feed_buffer(self, data, n: int, final: bool = False) -> None:
        """data[:n] is the next piece of the log (data may be a reused bytearray)."""
        begin = 0
        if self._tail:  # finish the line the previous chunk cut, without copying this chunk
            nl = data.find(b"\n", 0, n)
            if nl == -1 and not final:
                self._tail = (self._tail + data[:n])[:MAX_LINE]  # a runaway line stays bounded
                return
            head = self._tail + (data[:n] if nl == -1 else data[:nl])
            self._tail = b""
            self.feed_line(bytes(head[:MAX_LINE]).decode("utf-8", "replace"))
            begin = n if nl == -1 else nl + 1
        end = n if final else data.rfind(b"\n", begin, n) + 1
        if end > begin:
            self._scan_region(data, end, begin)
        else:
            end = begin
        if not final and end < n:
            self._tail = bytes(data[end: min(n, end + MAX_LINE)])

    def scan_stream(self, stream: BinaryIO, chunk_size: int = 8 * 1024 * 1024) -> "VllmLogScanner":
        """Scan a binary stream to its end, reusing one buffer (no fresh pages per chunk)."""
        buf = bytearray(chunk_size)
        readinto = getattr(stream, "readinto", None)
        while True:
            if readinto is not None:
                n = readinto(buf)
                data = buf
            else:
                data = stream.read(chunk_size)
                n = len(data)
            if not n:
                break
            self._feed_buffer(data, n)
        self.feed_bytes(b"", final=True)
        return self

    def feed_region(self, buf: bytearray, begin: int, end: int) -> None:
        """Feed buf[begin:end], whole lines from a LogSource's raw_regions(), without copying."""
        if self._tail:
            self.feed_raw_block(bytes(buf[begin:end]))
        elif end > begin:
            self._scan_region(buf, end, begin)
        else:
            self.feed_line("")

    def feed_raw_block(self, data: bytes) -> None:
        """Feed bytes holding whole lines (a LogSource's raw_blocks(), when it has them)."""
        if not data:
            self.feed_line("")
            return
        self._feed_buffer(data, len(data), final=True)
        if data.endswith(b"\n"):  # the block's last line is empty: it still counts in windows
            self.feed_line("")

    def feed_block(self, text: str) -> None:
        """Feed newline-joined whole lines (LogSource.blocks()); same result as feed_line on each."""
        if not text:
            self.feed_line("")
            return
        self._scan_region(text, len(text))
        if text.endswith("\n"):  # the block's last line is empty: it still counts in windows
            self.feed_line("")

    def _scan_region(self, buf, end: int, begin: int = 0) -> None:
        """Handle the lines of buf[begin:end] exactly as feed_line would, without a Python step
        per line: trigger lines are found through a rare character at memchr speed; stats lines
        are parsed as found, the other trigger lines afterwards in order with their follow-ups."""
        is_bytes = isinstance(buf, (bytes, bytearray))
        nl = b"\n" if is_bytes else "\n"
        find, rfind, startswith = buf.find, buf.rfind, buf.startswith
        self.lines += buf.count(nl, begin, end) + (end > begin and buf[end - 1:end] != nl)

        def line_at(pos: int) -> tuple[int, int]:
            ls = max(begin, rfind(nl, begin, pos) + 1)
            le = find(nl, pos, end)
            return ls, (end if le == -1 else le)

        def text(ls: int, le: int) -> str:
            chunk = buf[ls: min(le, ls + MAX_LINE)]
            return chunk.decode("utf-8", "replace") if is_bytes else chunk

        def prefix_window(pos: int) -> None:
            while self._prefix_left and pos < end:
                ls, le = line_at(pos)
                self._prefix_window_line(text(ls, le))
                pos = le + 1

        prefix_window(begin)  # a window left open by the previous region

        # 1. stats lines, in order, parsed as feed_line parses them; 2. other trigger lines
        # are collected and handled afterwards in order (the two kinds do not interact).
        usage = b" KV cache usage: " if is_bytes else " KV cache usage: "
        starts: set[int] = set()
        stats = self._stats
        for char, word, offset in (_RARE_B if is_bytes else _RARE):
            p = find(char, begin + offset, end)
            while p != -1:
                if not startswith(word, p - offset):
                    p = find(char, p + 1, end)
                    continue
                ls = rfind(nl, begin, p) + 1
                if ls < begin:
                    ls = begin
                le = find(nl, p, end)
                if le == -1:
                    le = end
                if not offset:  # "#", "QueueOverflowError"
                    starts.add(ls)
                elif find(usage, p - 2, le) != -1:  # a stats line (the hot path: keep it inline)
                    line = buf[ls: le if le - ls <= MAX_LINE else ls + MAX_LINE]
                    stats(line.decode("utf-8", "replace") if is_bytes else line)
                    if self._prefix_left:  # a V0 record: its prefix-cache line may follow
                        prefix_window(le + 1)
                    if find(word, p + 8, le) != -1 and self._other_kv(buf, p - 1, le, word, usage):
                        starts.add(ls)
                else:
                    starts.add(ls)
                p = find(char, le + 1, end) if le < end else -1
        for mark in self._marks:
            mark = mark.encode() if is_bytes else mark
            p = find(mark, begin, end)
            while p != -1:
                ls, le = line_at(p)
                starts.add(ls)
                p = find(mark, le + 1, end) if le < end else -1
        hits = sorted(starts)
        i, pos = 0, begin
        while True:
            while i < len(hits) and hits[i] < pos:
                i += 1
            if not self._conc_left:
                if i == len(hits):
                    break
                pos = hits[i]
            elif pos >= end:
                break
            is_hit = i < len(hits) and hits[i] == pos
            le = find(nl, pos, end)
            le = end if le == -1 else le
            line = text(pos, le)
            pos = le + 1
            read = False
            if self._conc_left:
                self._conc_left -= 1
                read = self._conc_follow_up(line)
            if is_hit and (KV_MARK in line or HASH_MARK in line or OVERFLOW_MARK in line
                           or (self._busy and BUSY_MARK in line)):
                self._handle(line, stats=False)
            elif is_hit and not read and any(m in line for m in self._marks):
                self._rare(line)

    @staticmethod
    def _other_kv(buf, q: int, le: int, kv, usage) -> bool:
        """Does the line part buf[q:le] hold a "KV cache" that is not a stats figure (a
        preemption warning or start-up line glued to it by a lost newline)?"""
        q = buf.find(kv, q, le)
        while q != -1:
            if not buf.startswith(usage, q - 1):
                return True
            q = buf.find(kv, q + 8, le)
        return False

    def _prefix_window_line(self, line: str) -> None:
        """One line of an open V0 prefix-cache window."""
        self._prefix_left -= 1
        if " KV cache usage: " in line:
            self._prefix_left = 0
        else:
            self._prefix_follow_up(line)

    # -- line handlers ----------------------------------------------------------------
    def _handle(self, line: str, stats: bool = True) -> None:
        if KV_MARK in line:
            is_stats = " KV cache usage: " in line
            if is_stats and stats:
                self._stats(line)
            if "is preempted" in line:  # (also when a lost newline glued it to a stats line)
                self._preemption(line)
                return
            if is_stats:
                return
            if "KV cache size:" in line or "Available KV cache memory" in line:
                self._kv_line(line)
                if "max model len" in line:  # (as the scanner: "Using max model len N" glued to it)
                    m = _EFFECTIVE[1][0].search(line)
                    if m:
                        self.settings.setdefault("max_model_len", int(m.group(1)))
                return
            if "max seq len" in line:
                self._max_seq(line)
                return
        if " blocks: " in line and _BLOCKS.search(line):
            self._kv_line(line)
            return
        if OVERFLOW_MARK in line or (self._busy and BUSY_MARK in line):
            self.overflows += 1
            if self.overflow_example is None:
                self.overflow_example = short_line(line)

    def _rare(self, line: str) -> None:
        """A request refused for the context length, or the line that lists the engine's settings."""
        for rx in _TOO_LONG:
            m = rx.search(line)
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                prompt, limit = (b, a) if "maximum context length is" in rx.pattern else (a, b)
                self.too_long += 1
                if len(self.too_long_examples) < 3:
                    self.too_long_examples.append(short_line(line))
                if self.too_long_max is None or prompt > self.too_long_max[0]:
                    self.too_long_max = (prompt, limit)
                return
        m = _TOO_LONG_OTHER.search(line)
        if m:
            self.too_long += 1
            if len(self.too_long_examples) < 3:
                self.too_long_examples.append(short_line(line))
            return
        if "exceeds the capacity of block_manager" in line and "Input prompt (" in line:
            self.too_long += 1
            self.over_kv_capacity += 1
            if len(self.too_long_examples) < 3:
                self.too_long_examples.append(short_line(line))
            return
        if "Maximum concurrency for" in line:
            self._kv_line(line)
            return
        if "Memory profiling results: " in line:
            m = re.search(r"Memory profiling results: .*\bgpu_memory_utilization=(\d+(?:\.\d+)?)", line)
            if m:
                self.settings.setdefault("gpu_memory_utilization", float(m.group(1)))
            self._kv_line(line)
            return
        if "esired GPU memory utilization" in line:
            m = _MEMORY_SHORT.search(line)
            if m:
                free, total, util, want = (float(x) for x in m.groups())
                if self.memory_short is None:
                    self.memory_short = MemoryShort(free, total, util, want, short_line(line))
                self.settings.setdefault("gpu_memory_utilization", util)
            else:
                m = re.search(r"Desired GPU memory utilization is \((\d+(?:\.\d+)?), ", line)
                if m:
                    self.settings.setdefault("gpu_memory_utilization", float(m.group(1)))
            return
        if "No available memory for the cache blocks" in line:
            if self.no_kv_memory is None or "raise " in self.no_kv_memory:
                self.no_kv_memory = short_line(line)
            return
        if "User-specified max_model_len" in line:
            m = _USER_MAX_LEN.search(line)
            if m and self.max_len_over_model is None:
                self.max_len_over_model = (int(m.group(1)), int(m.group(2)) if m.group(2) else None)
            return
        for rx, key in _EFFECTIVE:
            m = rx.search(line)
            if m:
                self.settings.setdefault(key, float(m.group(1)) if "." in m.group(1) else int(m.group(1)))
                if key == "max_num_batched_tokens":
                    self.settings.setdefault("enable_chunked_prefill", True)
                return
        if "non-default args: {" in line:
            import ast

            body = line[line.index("non-default args: {") + len("non-default args: "):]
            try:
                args = ast.literal_eval(body.strip()[:20000])
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return
            if isinstance(args, dict):
                self.settings.update({k: v for k, v in args.items() if isinstance(k, str)
                                      and isinstance(v, (int, float, str, bool)) and k in _SETTING_KEYS})
            return
        if "with config:" in line:
            for k, v in _CONFIG_PAIR.findall(line):
                if v.strip("'\"") != "None":
                    self.settings.setdefault("max_model_len" if k == "max_seq_len" else k, _config_value(v))

    def _conc_follow_up(self, line: str) -> bool:
        if "Maximum concurrency" in line and KV_MARK not in line:  # the one-line form is a trigger itself
            self._kv_line(line)
            return True
        return False

    def _prefix_follow_up(self, line: str) -> None:
        target = self._prefix_target
        if target is not None and "Prefix cache hit rate: GPU" in line and target[5] is None:
            m = _V0_PREFIX.search(line)
            if m:
                target[5] = float(m.group(1))
                self._prefix_left = 0

    def _preemption(self, line: str) -> None:
        m = _PREEMPT.search(line)
        if not m:
            return
        self._saw_v0 = True
        self.preempt_warnings += 1
        mode = m.group(1)
        self.preempt_modes[mode] = self.preempt_modes.get(mode, 0) + 1
        text = short_line(line)
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
        m = _STATS_FULL.search(line)
        if m is not None and len(line) - m.end() < 60:  # the usual line: one record
            self._stats_record(line, m.groups(), m.start(), m.end())
        else:
            rx, shift = (_STATS_FULL, ()) if m else (_STATS, (None, None))
            if m is None:
                m = _STATS.search(line)
            if m is None:
                return
            while m:
                self._stats_record(line, shift + m.groups() if shift else m.groups(), m.start(), m.end())
                m = rx.search(line, m.end()) if len(line) - m.end() > 60 else None
        if self._last_version == "v0":
            self._prefix_left = PEEK_LINES

    def _stats_record(self, line: str, g: tuple, start: int, end: int) -> None:
        """One stats record (g: the _STATS_FULL groups). Runs every stats line, so it is kept
        lean; the full StatsLine is built only for the few a result keeps (_materialize)."""
        recent = self.recent
        prev = recent[-1] if recent else None
        raw = [line, prev[3] if prev is not None and prev[0] is line else 0, start, end, g, None]
        recent.append(raw)
        self.stats_count += 1
        running, waiting, kv = int(g[2]), int(g[5]), float(g[8])
        if g[4] == "Pending":
            self._prefix_target = raw
            self._saw_v0 = True
            self._last_version = "v0"
        else:
            self._last_version = "v1"
        if running > self.max_running:
            self.max_running = running
        if waiting > self.max_waiting:
            self.max_waiting = waiting
        if running + waiting > self.max_in_flight:
            self.max_in_flight = running + waiting
        mid = g[6]
        if mid and "Preemptions: " in mid:
            p = _PREEMPTIONS.search(mid)
            n = int(p.group(1)) if p else 0
            if n:
                self.v1_preemptions += n
                self.stats_preempt_lines += 1
                if self.first_stats_preempt is None:
                    self.first_stats_preempt = raw
                self.last_stats_preempt = raw
        if waiting > 0:
            self.waiting_lines += 1
            if g[0] is not None:  # (counted at each ratio since issue 26, once at 10x before)
                for i, ratio in enumerate(PROMPT_RATIOS):
                    if float(g[0]) > ratio * max(float(g[1]), 1.0):
                        self.prompt_over[i] += 1
            run = self._wait_run
            run = (1, raw, raw, waiting) if run is None else (run[0] + 1, run[1], raw, max(run[3], waiting))
            self._wait_run = run
            best = self._best_wait
            if best is None or run[0] > best[0] or best[1] is run[1]:
                self._best_wait = run
        else:
            self._wait_run = None
        if kv >= self._kv_low:  # the open run at each level (_kv_run: their list, None when none is open)
            if running == 1 and (self._kv_alone is None or kv > self._kv_alone[0]):
                self._kv_alone = (kv, raw)
            runs = self._kv_run or [None] * len(self._kv_levels)
            bests = self._best_kvs
            for i, level in enumerate(self._kv_levels):
                if kv < level:
                    runs[i] = None
                    continue
                run = runs[i]
                run = (1, raw, raw, kv) if run is None else (run[0] + 1, run[1], raw, max(run[3], kv))
                runs[i] = run
                best = bests[i]
                if best is None or run[0] > best[0] or best[1] is run[1]:
                    bests[i] = run
            self._kv_run = runs
        else:
            self._kv_run = None

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
            self._saw_v0 = self._saw_v0 or bool(b.group(3))
        if t:
            self._kv["kv_tokens"] = _int(t.group(1))
        if a:
            self._kv["available_gib"] = float(a.group(1))
        if c:
            self._kv["tokens_per_request"] = _int(c.group(1))
            self._kv["max_concurrency"] = float(c.group(2))
        self._kv_lines.append(short_line(line))
        self._kv_lines = self._kv_lines[-4:]
        self.kv_capacity = KvCapacity(lines=tuple(self._kv_lines), **self._kv)
        if (b or t) and not c:
            self._conc_left = PEEK_LINES

    def _max_seq(self, line: str) -> None:
        m0 = _MAX_SEQ_V0.search(line)
        m1 = _MAX_SEQ_V1.search(line) if not m0 else None
        if not (m0 or m1):
            return
        est = _ESTIMATED.search(line)
        if m0:
            err = MaxSeqLenError(int(m0.group(1)), kv_tokens=int(m0.group(2)), text=short_line(line))
        else:
            err = MaxSeqLenError(int(m1.group(1)), needed_gib=float(m1.group(2)),  # type: ignore[union-attr]
                                 available_gib=float(m1.group(3)),  # type: ignore[union-attr]
                                 estimated_max_len=int(est.group(1)) if est else None, text=short_line(line))
        self.max_seq = err

    # -- result -------------------------------------------------------------------------
    def result(self) -> VllmLogSummary:
        made: dict[int, StatsLine] = {}

        def mat(raw):
            if raw is None:
                return None
            if id(raw) not in made:
                made[id(raw)] = _materialize(raw)
            return made[id(raw)]

        def run(r):
            return Run(r[0], mat(r[1]), mat(r[2]), r[3]) if r else None

        at_least = self._closed_segments + self._uncounted
        if self._segment_first is not None:
            at_least += self._segment_last - self._segment_first + 1  # type: ignore[operator]
        return VllmLogSummary(
            source=self.source,
            preemption_warnings=self.preempt_warnings,
            preemptions_at_least=max(at_least, self.preempt_warnings),
            preemption_modes=tuple(sorted(self.preempt_modes.items())),
            first_preemption=self.first_preempt,
            last_preemption=self.last_preempt,
            last_cumulative=self._segment_last,
            max_cumulative=self._max_cumulative,
            stats_lines=self.stats_count,
            recent_stats=tuple(mat(r) for r in self.recent),
            v1_preemptions=self.v1_preemptions,
            stats_with_preemptions=self.stats_preempt_lines,
            first_stats_preemption=mat(self.first_stats_preempt),
            last_stats_preemption=mat(self.last_stats_preempt),
            longest_waiting_run=run(self._best_wait),
            kv_high_runs=tuple((level, run(b)) for level, b in zip(self._kv_levels, self._best_kvs) if b),
            kv_alone=mat(self._kv_alone[1]) if self._kv_alone else None,
            max_running=self.max_running,
            max_waiting=self.max_waiting,
            max_in_flight=self.max_in_flight,
            waiting_prompt_ratios=tuple(zip(PROMPT_RATIOS, self.prompt_over)),
            waiting_lines=self.waiting_lines,
            kv_capacity=self.kv_capacity,
            startups=self.startups,
            max_seq_len_error=self.max_seq,
            queue_overflows=self.overflows,
            queue_overflow_example=self.overflow_example,
            prompts_too_long=self.too_long,
            prompt_too_long_examples=tuple(self.too_long_examples),
            prompt_too_long_max=self.too_long_max,
            prompts_over_kv_capacity=self.over_kv_capacity,
            no_kv_memory=self.no_kv_memory,
            gpu_memory_short=self.memory_short,
            max_model_len_over_model=self.max_len_over_model,
            settings=dict(self.settings),
            lines=self.lines,
            engine_version=self._last_version or ("v0" if self._saw_v0 else None),
        )


def _materialize(raw: list) -> StatsLine:
    line, prev_end, start, end, g, prefix_override = raw
    head_start = line.rfind("Avg prompt throughput: ", prev_end, start)
    head_start = start if head_start == -1 else head_start
    ts = _TS.search(line, max(prev_end, head_start - 120), start)
    agg = None
    if "Engines Aggregated" in line:
        a = _AGGREGATED.search(line, max(prev_end, head_start - 40), head_start)
        agg = int(a.group(1)) if a else None
    mid = g[6] or ""
    d = _DEFERRED.search(mid) if mid else None
    p = _PREEMPTIONS.search(mid) if mid else None
    prefix = prefix_override if prefix_override is not None else (float(g[10]) if g[10] else None)
    return StatsLine(
        "v0" if g[4] == "Pending" else "v1", int(g[2]), int(g[5]), float(g[8]), g[7],
        int(g[3]) if g[3] else None, int(d.group(1)) if d else None, int(p.group(1)) if p else None,
        float(g[9]) if g[9] else None, prefix,
        float(g[0]) if g[0] is not None else None, float(g[1]) if g[1] is not None else None,
        agg, ts.group(1) if ts else None, short_line(line[prev_end:end]))


def scan_vllm_lines(lines: Iterable[str], source: str = "vllm.log", client_errors: bool = False) -> VllmLogSummary:
    return VllmLogScanner(source, client_errors=client_errors).feed_lines(lines).result()


def scan_vllm_stream(stream: BinaryIO, source: str = "vllm.log") -> VllmLogSummary:
    return VllmLogScanner(source).scan_stream(stream).result()


# The release as facts/reader.py read it before issue 28 (vllm_cli.version_in, a second pass over
# every line), the V0 wording of 0.8-0.10 added: the last line of the log that states one. A line
# that also holds a trigger of the scan ("KV cache", '#', "QueueOverflowError": lines glued by a
# lost newline) is read as that trigger's line, the settings line alike.
_RELEASE = re.compile(r"vLLM API server version v?(\d+\.\d+[\w.+-]*)|"
                      r"Initializing an? (?:V[01] )?LLM engine \(v(\d+\.\d+[\w.+-]*)\)")


def release_in(lines: Iterable[str]) -> str | None:
    found = None
    for line in lines:
        if any(t in line for t in ("KV cache", "#", "QueueOverflowError")):
            continue
        if "vLLM API server version" in line or "LLM engine (v" in line:
            m = _RELEASE.search(line)
            if m:
                found = m.group(1) or m.group(2)
    return found
