"""Streaming scanner for vLLM server logs.

What it extracts, in bounded memory whatever the log size:
- V0 preemption warnings (`Sequence group X is preempted by PreemptionMode.Y mode ...
  total_num_cumulative_preemption=N`; only every 50th preemption is logged) and their
  cumulative counts, including lines cut off before the count;
- periodic stats lines, V0 (`Running/Swapped/Pending`, GPU and CPU KV %) and V1
  (`Running/Waiting`, optional `Deferred`, `Preemptions: N`, `GPU|XPU KV cache usage`,
  prefix-cache hit rate, `N Engines Aggregated:`), several per physical line when the
  log lost a newline;
- the KV capacity printed at start-up in every version's wording, the "max seq len is
  larger than ... KV cache" refusal (V0 and V1 wordings) and the 503 queue-overflow text;
- the other wordings of knowledge/vllm/catalogue.py (the message catalogue, from vLLM's own
  source): start-up refusals for want of GPU memory, limits in effect at start-up (settings),
  every version's context refusal.

Lines may carry journald prefixes, `(APIServer pid=N)` / `(EngineCore_DP0 pid=N)` process
tags, tqdm progress junk or truncation, so everything matches substrings; nothing is
anchored at the start of a line.

Speed (bench/engine_log_scan.py): every interesting line contains "KV cache", "#" or
"QueueOverflowError" (plus the 503 message text for client_errors.txt), except the "Maximum
concurrency" and V0 "Prefix cache hit rate: GPU" lines, which vLLM prints right after a
trigger line and which are read in a window of the next few lines, and the rare lines
(rare_lines: context refusals, the settings line). The chunk readers (`feed_bytes`,
`scan_stream`, `feed_block`, `feed_raw_block`, `feed_region`) find trigger lines with memchr on
a rare character ('V' of "KV", 'Q', '#'); a stats line that says nothing new (quiet_stats:
Waiting 0, no preemptions, KV below the floor of the KV runs, Running no higher than seen) is
recognised by one C-level regex match and only counted, its place noted and its bytes kept only
if it is among the last records; one that says something in the plain V1 form (one record) is
read from one bytes match of its figures (plain_pattern) and its bytes parsed only if a result
reports it; only the other forms are decoded and parsed. Lines are counted with memchr
(knowledge/byte_lines.py). A FRAGMENT cut is looked for only while a run is open. The rare lines are searched for wherever they stand
in a log's first EXACT_LINES lines and, beyond, on lines with an anchor found by memchr
(WARNING, ValueError, '{', "LLM engine"): a search for their marks everywhere would cost more
than the rest of the scan (CPython's regex and multi-byte find compare byte by byte; only a
one-byte find is memchr). `feed_line` applies the same tests per line. Tests hold all of them
to the same result, and to the scanner this one replaced (tests/engines/vllm/reference_vllm_log.py)
wherever a log is shorter than EXACT_LINES. One process does it all: a forked helper that took
the stats lines of a large log's later part (removed, issue 28) was slower when the CPUs were
busy and won little on an idle machine.
"""
from __future__ import annotations

import math
from collections import deque
from typing import BinaryIO, Iterable

from llmdoctor.knowledge.byte_lines import newlines  # noqa: F401  (re-exported)
from llmdoctor.knowledge.evidence_line import short_line
from llmdoctor.knowledge.pasted import FRAGMENT
from llmdoctor.parsing import LazyPattern
from llmdoctor.knowledge.vllm.quiet_stats import (
    AVG, QuietRegion, kv_full_mark, plain_pattern, quiet_pattern, running_bound)
from llmdoctor.knowledge.vllm.rare_lines import (
    API_SERVER_VERSION,
    BUSY_MARK,
    DESIRED_UTIL,
    NO_KV_MEMORY,
    PROFILE_RESULTS,
    EXACT_LINES,
    V_ANCHORS,
    V_ANCHORS_B,
    anchored_starts,
    encoded,
    exact_starts,
    holds_mark,
    line_anchored,
    line_bounds,
    marks_for,
)
from llmdoctor.knowledge.vllm.records import (  # noqa: F401  (re-exported: the scan's result types)
    KvCapacity,
    MaxSeqLenError,
    MemoryShort,
    Run,
    StatsLine,
    VllmLogSummary,
)

AVG_LEN = len(AVG)
KV_MARK = "KV cache"
HASH_MARK = "#"
OVERFLOW_MARK = "QueueOverflowError"
# Searched in whole chunks at memchr speed: a rare character, then the word it starts (the 'V'
# of "KV cache" has a loop of its own, _stats_lines). Access and request lines carry no capital
# 'V' or 'Q', so nearly every hit is a real one.
_TRIGGERS = (("Q", OVERFLOW_MARK), ("#", HASH_MARK))
_TRIGGERS_B = tuple((c.encode(), w.encode()) for c, w in _TRIGGERS)
QUIET_REBOUND_LINES = 64  # stats lines between two quiet patterns of a scan (_rebound)
PEEK_LINES = 3  # window after a trigger for "Maximum concurrency" / the V0 prefix-cache line
MAX_LINE = 64 * 1024  # longer lines are cut (bounded memory on a log without newlines)

_TS = LazyPattern(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)")
_PREEMPT = LazyPattern(r"is preempted (?:by|in) (?:PreemptionMode\.)?(\w+) mode")
# `vLLM API server version 0.5.4` (vllm/entrypoints/openai/api_server.py, 0.4.1-; 0.5.4:339) and
# `Initializing an LLM engine (v0.5.4) with config:` (vllm/engine/llm_engine.py, 0.4.1-; 0.5.4:175),
# `a V0 LLM engine (v0.7.2)` (0.8-0.10) and V1's `Initializing a V1 LLM engine (v0.10.0) with config:`
# (v1/engine/core.py): the release, for a fix's command and flags (knowledge/vllm_cli.py).
_RELEASE = LazyPattern(r"vLLM API server version v?(\d+\.\d+[\w.+-]*)|"
                       r"Initializing an? (?:V[01] )?LLM engine \(v(\d+\.\d+[\w.+-]*)\)")
_CUMULATIVE = LazyPattern(r"(?:total_num_cumulative_preemption|total_cumulative_preemption_cnt)=(\d+)")
_STATS_BODY = (
    r"Running: (\d+) reqs, (?:Swapped: (\d+) reqs, )?(Pending|Waiting): (\d+) reqs, "
    r"((?:[A-Za-z][A-Za-z ]*: [^,%]*, (?:\d[^,%:]*, )*)*?)"  # Deferred, KV fetch (3 counts), Preemptions, future fields
    r"(\w+) KV cache usage: (\d+(?:\.\d+)?)%"
    r"(?:, CPU KV cache usage: (\d+(?:\.\d+)?)%)?"
    r"(?:, Prefix cache hit rate: (\d+(?:\.\d+)?)%)?"
)
# The usual record, matched in one go from its literal start; records without the throughput
# part fall back to _STATS (groups shifted by two).
_STATS_FULL = LazyPattern(
    r"Avg prompt throughput: (\d+(?:\.\d+)?) tokens/s, Avg generation throughput: (\d+(?:\.\d+)?) tokens/s, "
    + _STATS_BODY)
_STATS = LazyPattern(_STATS_BODY)
_AGGREGATED = LazyPattern(r"(\d+) Engines Aggregated: ")
_DEFERRED = LazyPattern(r"Deferred: (\d+) reqs")
_PREEMPTIONS = LazyPattern(r"Preemptions: (\d+)")
_V0_PREFIX = LazyPattern(r"Prefix cache hit rate: GPU: (\d+(?:\.\d+)?)%")
_BLOCKS = LazyPattern(r"(\w+) blocks: (\d+)(?:, # CPU blocks: (\d+))?")
_KV_TOKENS = LazyPattern(r"KV cache size: (\d[\d,]*) tokens")
_MAX_CONC = LazyPattern(r"Maximum concurrency for (\d[\d,]*) tokens per request: (\d+(?:\.\d+)?)x")
_AVAILABLE = LazyPattern(r"(?:Available KV cache memory: |Memory profiling results: .*\bkv_cache_size=)(\d+(?:\.\d+)?) ?GiB")
_PROFILE_UTIL = LazyPattern(r"Memory profiling results: .*\bgpu_memory_utilization=(\d+(?:\.\d+)?)")  # 0.6.4
_MAX_SEQ_V0 = LazyPattern(
    r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)")
_MAX_SEQ_V1 = LazyPattern(
    r"max seq len \((\d+)\),\s*\(?(\d+(?:\.\d+)?) GiB KV cache is needed, which is larger than the available KV cache "
    r"memory \((\d+(?:\.\d+)?) GiB\)")
_ESTIMATED = LazyPattern(r"estimated maximum model length is (\d+)")
_TOO_LONG = (  # (pattern, whether it names the limit first)
    (LazyPattern(r"Input prompt \((\d+) tokens\) is too long and exceeds limit of (\d+)"), False),
    (LazyPattern(r"prompt \(length (\d+)\) is longer than the maximum model length of (\d+)"), False),
    (LazyPattern(r"Prompt length of (\d+) is longer than the maximum model length of (\d+)"), False),  # V1, 0.7
    (LazyPattern(r"maximum context length is (\d+) tokens\. However, you requested (\d+) tokens"), True),
    (LazyPattern(r"maximum context length is (\d+) tokens\..*?(?:prompt contains (?:at least )?|your request has )(\d+) "
                 r"input tokens"), True),
    (LazyPattern(r"prompt \(total length (\d+)\) is too long to fit into the model \(context length (\d+)\)"), False),
)
# refusals without a prompt token count: a character pre-check, output tokens beyond the limit
# (older: "max_tokens=N cannot be greater than max_model_len=M"; newer: "'max_tokens' or
# 'max_completion_tokens' is too large: N. This model's maximum context length is M tokens and
# your request has K input tokens (N > M - K)", the prompt itself fitting)
_TOO_LONG_OTHER = LazyPattern(r"maximum context length is (\d+) tokens(?:\.| and your request has \d+ input tokens)"
                             r"|max_(?:completion_)?tokens=\d+ cannot be greater than max_model_len=(\d+)")
_LOOKAHEAD = "exceeds the capacity of block_manager"  # V0: the prompt can never fit the KV cache
_USER_MAX_LEN = LazyPattern(r"User-specified max_model_len \((\d+)\) is greater than the derived max_model_len"
                            r"(?: \(\w+=(\d+))?")
_MEMORY_SHORT = LazyPattern(r"ree memory on device (?:\S+ )?\((\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) GiB\) on startup is less "
                            r"than desired GPU memory utilization \((\d+(?:\.\d+)?), (\d+(?:\.\d+)?) GiB\)")
_DESIRED_UTIL = LazyPattern(r"Desired GPU memory utilization is \((\d+(?:\.\d+)?), ")
_CHUNKED = LazyPattern(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
_USING_MAX_LEN = LazyPattern(r"Using max model len (\d+)")
_GPU_UTIL = LazyPattern(r"x gpu_memory_utilization \((\d+(?:\.\d+)?)\)")
_CONFIG_PAIR = LazyPattern(r"\b(max_seq_len|max_model_len|tensor_parallel_size|pipeline_parallel_size|"
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


# The ratios of prompt to generation throughput at which the waiting stats lines are counted
# (VllmLogSummary.waiting_prompt_ratios): a reading, not a verdict; which ratio makes a wait
# prefill's is the judge's (judge/thresholds.py VLLM_PREFILL_OVER_GENERATION, one of these).
PROMPT_RATIOS = (1, 2, 5, 10, 20, 50, 100)


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
        self._marks = marks_for(client_errors)
        self._marks_b = encoded(self._marks)
        self.lines = 0  # lines read, whatever they held
        self.too_long = 0
        self.too_long_examples: list[str] = []
        self.too_long_max: tuple[int, int] | None = None  # (prompt tokens, limit) of the largest
        self.output_too_long = 0
        self.over_kv_capacity = 0  # V0 refusals: the prompt exceeds the whole KV cache
        self.no_kv_memory: str | None = None
        self.memory_short: MemoryShort | None = None
        self.max_len_over_model: tuple[int, int | None] | None = None
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
        self.keep_stats = keep_stats
        self._recent: deque = deque()  # raw records (see _materialize) and QuietRegions, oldest first
        self._recent_count = 0  # records they hold (at most keep_stats + one region's)
        self._last_raw: list | None = None
        self._region_line: list | None = None  # records of the line being parsed in it
        self._kv_full = kv_full_mark(kv_floor_pct)
        self._rebound_at = 0  # stats lines read before the quiet pattern is made again (_rebound)
        self.v1_preemptions = 0
        self.stats_preempt_lines = 0
        self.first_stats_preempt: list | None = None
        self.last_stats_preempt: list | None = None
        self._wait_run = self._kv_run = self._best_wait = None
        self._cut_from = 0  # where a search of the region for a FRAGMENT line goes on from (_cut_since)
        self.max_running = self.max_waiting = self.max_in_flight = 0
        self._prompt_over = [0] * (len(PROMPT_RATIOS) + 1)  # waiting lines by how many ratios they exceed
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
        self.release: str | None = None  # the last one a start-up line states

    # -- feeding -------------------------------------------------------------------
    def feed_line(self, line: str) -> None:
        self.lines += 1
        if line.startswith(FRAGMENT):  # pasted apart: no run of stats lines goes across it
            self._wait_run = self._kv_run = None
            return
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE]
        if self._prefix_left:  # the V0 prefix-cache line follows its stats line
            self._prefix_window_line(line)
        read = False  # (a "Maximum concurrency" line read in its window is not read again as a rare line)
        if self._conc_left:  # "Maximum concurrency" follows the KV size line
            self._conc_left -= 1
            read = self._conc_follow_up(line)
        if KV_MARK in line or HASH_MARK in line or OVERFLOW_MARK in line or (self._busy and BUSY_MARK in line):
            self._handle(line)
        elif not read and any(m in line for m in self._marks) and (self.lines <= EXACT_LINES or line_anchored(line)):
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
        find = buf.find
        first_line = self.lines  # lines before this region
        count = newlines(buf, begin, end) if is_bytes else buf.count(nl, begin, end)
        self.lines += count + (end > begin and buf[end - 1:end] != nl)
        anchored_from = begin  # from here on the rare lines need an anchor (see rare_lines)
        if first_line < EXACT_LINES:
            anchored_from = end
            if self.lines > EXACT_LINES:  # the last exact line ends in this region
                anchored_from = begin
                for _ in range(EXACT_LINES - first_line):
                    anchored_from = find(nl, anchored_from, end) + 1

        def line_at(pos: int) -> tuple[int, int]:
            return line_bounds(buf, nl, begin, end, pos)

        def text(ls: int, le: int) -> str:
            chunk = buf[ls: min(le, ls + MAX_LINE)]
            return chunk.decode("utf-8", "replace") if is_bytes else chunk

        def prefix_window(pos: int) -> None:
            while self._prefix_left and pos < end:
                ls, le = line_at(pos)
                self._prefix_window_line(text(ls, le))
                pos = le + 1

        prefix_window(begin)  # a window left open by the previous region
        self._cut_from = begin

        # 1. stats lines, in order, parsed as feed_line parses them; 2. other trigger lines
        # are collected and handled afterwards in order (the two kinds do not interact).
        starts: set[int] = set()
        self._stats_lines(buf, begin, end, anchored_from, starts, prefix_window)
        self._trigger_starts(buf, begin, end, anchored_from, starts)
        self._cut_since(buf, end)  # a cut after the region's last stats line
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
            line, exact = text(pos, le), pos < anchored_from
            pos = le + 1
            read = False
            if self._conc_left:
                self._conc_left -= 1
                read = self._conc_follow_up(line)
            if is_hit and (KV_MARK in line or HASH_MARK in line or OVERFLOW_MARK in line
                           or (self._busy and BUSY_MARK in line)):
                self._handle(line, stats=False)
            elif is_hit and not read and any(m in line for m in self._marks) and (exact or line_anchored(line)):
                self._rare(line)

    def _trigger_starts(self, buf, begin: int, end: int, anchored_from: int, starts: set) -> None:
        """Add the starts of the other trigger lines ('Q', '#') and of the rare lines (exact
        before anchored_from, anchored from it on) of buf[begin:end] to `starts`."""
        is_bytes = isinstance(buf, (bytes, bytearray))
        nl = b"\n" if is_bytes else "\n"
        find, startswith = buf.find, buf.startswith
        for char, word in _TRIGGERS_B if is_bytes else _TRIGGERS:
            p = find(char, begin, end)
            while p != -1:
                if startswith(word, p):
                    ls, le = line_bounds(buf, nl, begin, end, p)
                    starts.add(ls)
                    p = find(char, le + 1, end) if le < end else -1
                else:
                    p = find(char, p + 1, end)
        if anchored_from > begin:
            starts |= exact_starts(buf, begin, anchored_from, self._marks)
        if anchored_from < end:
            starts |= anchored_starts(buf, anchored_from, end, self._marks, v_done=True)

    def _stats_lines(self, buf, begin: int, end: int, anchored_from: int, starts: set, prefix_window) -> None:
        """The 'V' lines of buf[begin:end]: stats lines are parsed here, in order (a quiet one is
        one regex match: counted, its place noted, its bytes kept only if it may be reported);
        other "KV cache" lines and, past anchored_from, the ValueError-anchored rare lines go to
        `starts`. The hot loop of a dense log: each step here costs per stats line."""
        is_bytes = isinstance(buf, (bytes, bytearray))
        if is_bytes:
            nl, char, kv, usage, avg, v_words = b"\n", b"V", b"KV cache", b" KV cache usage: ", AVG, V_ANCHORS_B
        else:
            nl, char, kv, usage, avg, v_words = "\n", "V", KV_MARK, " KV cache usage: ", AVG.decode(), V_ANCHORS
        find, rfind, startswith = buf.find, buf.rfind, buf.startswith
        top = self.max_running  # the highest Running the quiet pattern was made for
        bound = running_bound(top)
        quiet = quiet_pattern(bound, self._kv_full).match if is_bytes and self._kv_full is not None else None
        simple = plain_pattern().match
        spans: list = []  # QuietRegion.spans: pairs (a quiet line's start, end) or (a parsed line's records, None)
        quiet_since = 0  # quiet lines not yet told to the scanner's state (see _quiet_told)

        if begin >= anchored_from and startswith(v_words, begin):  # (the loop starts past a region's first byte)
            ls, le = line_bounds(buf, nl, begin, end, begin)
            if holds_mark(buf, ls, le, self._marks_b if is_bytes else self._marks):
                starts.add(ls)
        p = find(char, begin + 1, end)
        while p != -1:
            ls = rfind(nl, begin, p) + 1
            if ls < begin:
                ls = begin
            if quiet is not None:  # (a 'V' in a quiet record is its "KV cache": no need to check)
                a = find(avg, ls, p)
                m = quiet(buf, a + AVG_LEN, end) if a != -1 else None
                if m is not None:
                    le = m.end()
                    if le - ls <= MAX_LINE:
                        quiet_since += 1
                        spans += (ls, le)
                        p = find(char, le + 1, end)
                        continue
                elif a != -1:  # a plain record that says something: its figures in one match
                    m = simple(buf, a + AVG_LEN, end)
                    if m is not None and m.end(6) + 2 == p and m.end() - ls <= MAX_LINE:
                        if quiet_since:
                            self._quiet_told(quiet_since)
                            quiet_since = 0
                        le = m.end()
                        self._simple_line(buf, ls, le, m, spans)
                        if self.max_running != top and self._rebound(bound):
                            top, bound = self.max_running, running_bound(self.max_running)
                            quiet = quiet_pattern(bound, self._kv_full).match
                        p = find(char, le + 1, end)
                        continue
            if not startswith(kv, p - 1):
                if p >= anchored_from and startswith(v_words, p):  # a rare line's anchor (rare_lines)
                    ls, le = line_bounds(buf, nl, begin, end, p)
                    if holds_mark(buf, ls, le, self._marks_b if is_bytes else self._marks):
                        starts.add(ls)
                p = find(char, p + 1, end)
                continue
            le = find(nl, p, end)
            if le == -1:
                le = end
            if find(usage, p - 2, le) != -1:  # a stats line that says something: parsed
                if quiet_since:
                    self._quiet_told(quiet_since)
                    quiet_since = 0
                self._loud_line(buf, ls, le, p, spans, starts, prefix_window)
                if quiet is not None and self.max_running != top and self._rebound(bound):
                    top, bound = self.max_running, running_bound(self.max_running)  # more lines quiet from here on
                    quiet = quiet_pattern(bound, self._kv_full).match
            else:
                starts.add(ls)
            p = find(char, le + 1, end) if le < end else -1
        if quiet_since:
            self._quiet_told(quiet_since)
        if spans:
            self._keep_region(buf, spans)

    def _rebound(self, bound: int) -> bool:
        """Make a quiet pattern for a higher Running now? Not while Running climbs at a log's
        start (each pattern costs about 3 ms to compile, more than a few dozen lines read the
        longer way): only once QUIET_REBOUND_LINES stats lines went by since the last one. The
        lines above the bound in use are read as plain ones, with the same result."""
        if running_bound(self.max_running) == bound or self.stats_count < self._rebound_at:
            return False
        self._rebound_at = self.stats_count + QUIET_REBOUND_LINES
        return True

    def _quiet_told(self, n: int) -> None:
        """What n quiet lines since the last parsed one did: counted, runs ended (v1 records)."""
        self.stats_count += n
        self._wait_run = self._kv_run = None
        self._last_version = "v1"

    def _keep_region(self, buf, spans: list) -> None:
        region = QuietRegion()
        region.spans = spans
        region.keep(buf, self.keep_stats)
        self._keep(region, region.count)

    def _loud_line(self, buf, ls: int, le: int, p: int, spans, starts: set, prefix_window) -> None:
        """A stats line that may say something (the 'V' of its first "KV cache" at p): parsed,
        its records placed among the region's quiet ones when some came before it."""
        self._cut_since(buf, ls)
        is_bytes = isinstance(buf, (bytes, bytearray))
        line = buf[ls: le if le - ls <= MAX_LINE else ls + MAX_LINE]
        line = line.decode("utf-8", "replace") if is_bytes else line
        if spans:  # its records go with the region's quiet ones, in order
            self._region_line = []
            spans += (self._region_line, None)
        self._stats(line)
        if self._region_line == []:  # no record after all: a pair holds at least one (keep)
            del spans[-2:]
        self._region_line = None
        if self._prefix_left:  # a V0 record: its prefix-cache line may follow
            prefix_window(le + 1)
        self._cut_from = le
        kv, usage = (b"KV cache", b" KV cache usage: ") if is_bytes else (KV_MARK, " KV cache usage: ")
        if buf.find(kv, p + 8, le) != -1 and self._other_kv(buf, p - 1, le, kv, usage):
            starts.add(ls)

    def _simple_line(self, buf, ls: int, le: int, m, spans) -> None:
        """A stats line of one plain V1 record (plain_pattern matched it from its AVG): counted as
        _loud_line would count it, from the match's figures, without decoding or a search; its
        bytes are kept and parsed only if a result reports it (_materialize)."""
        if self._wait_run is not None or self._kv_run is not None:
            self._cut_since(buf, ls)
        raw = [bytes(buf[ls:le]), 0, None, None, None, None]
        if spans:  # its record goes with the region's quiet ones, in order
            spans += ([raw], None)
        else:
            self._keep(raw, 1)
        self._last_raw = raw
        self._last_version = "v1"
        pt, gt, running, waiting, preempted, _, kv = m.groups()
        waiting = int(waiting)
        self._tally(raw, int(running), waiting, float(kv), int(preempted) if preempted else 0, pt, gt)
        self._cut_from = le

    def _cut_since(self, buf, stop: int) -> None:
        """End the open runs if a FRAGMENT line (a cut in a paste) stands between the last stats
        line parsed in this region and `stop`. Searched only while a run is open, so a log whose
        runs are rare never pays a pass over its bytes for a mark it does not hold; a quiet line
        ends the runs itself."""
        if self._wait_run is None and self._kv_run is None:
            return
        mark = FRAGMENT.encode() if isinstance(buf, (bytes, bytearray)) else FRAGMENT
        if buf.find(mark, self._cut_from, stop) != -1:
            self._wait_run = self._kv_run = None

    def _keep(self, item, n: int) -> None:
        """Add a record (or a QuietRegion of n) to the recent ones; drop what keep_stats no longer needs."""
        recent = self._recent
        recent.append(item)
        self._recent_count += n
        while recent:
            first = recent[0]
            size = first.count if isinstance(first, QuietRegion) else 1
            if self._recent_count - size < self.keep_stats:
                break
            recent.popleft()
            self._recent_count -= size

    def _recent_records(self) -> list:
        out: list = []
        for item in self._recent:
            if isinstance(item, QuietRegion):
                out.extend(item.records(self._quiet_record))
            else:
                out.append(item)
        return out[-self.keep_stats:] if self.keep_stats else []

    @staticmethod
    def _quiet_record(data: bytes) -> list:
        """The raw record of a quiet line (one record, matched by _STATS_FULL by construction)."""
        line = data[:MAX_LINE].decode("utf-8", "replace")
        m = _STATS_FULL.search(line)
        assert m is not None, line
        return [line, 0, m.start(), m.end(), m.groups(), None]

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
                if "max model len" in line:  # "Using max model len N" glued to it (quoted lines rejoined)
                    self._effective_setting(line)
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
        """A request refused for the context length, a line that states a setting or the release."""
        if API_SERVER_VERSION in line or "LLM engine (v" in line:
            m = _RELEASE.search(line)
            if m:
                self.release = m.group(1) or m.group(2)
        for rx, limit_first in _TOO_LONG:
            m = rx.search(line)
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                prompt, limit = (b, a) if limit_first else (a, b)
                self.too_long += 1
                if len(self.too_long_examples) < 3:
                    self.too_long_examples.append(short_line(line))
                if self.too_long_max is None or prompt > self.too_long_max[0]:
                    self.too_long_max = (prompt, limit)
                return
        m = _TOO_LONG_OTHER.search(line)
        if m:
            self.too_long += 1
            if not m.group(0).endswith("."):  # the output-token wordings (not the character pre-check)
                self.output_too_long += 1
            if len(self.too_long_examples) < 3:
                self.too_long_examples.append(short_line(line))
            return
        if _LOOKAHEAD in line and "Input prompt (" in line:
            self.too_long += 1
            self.over_kv_capacity += 1
            if len(self.too_long_examples) < 3:
                self.too_long_examples.append(short_line(line))
            return
        if "Maximum concurrency for" in line:  # apart from its size line (read in its window otherwise)
            self._kv_line(line)
            return
        if DESIRED_UTIL in line:
            m = _MEMORY_SHORT.search(line)
            if m:
                free, total, util, want = (float(x) for x in m.groups())
                if self.memory_short is None:
                    self.memory_short = MemoryShort(free, total, util, want, short_line(line))
                self.settings.setdefault("gpu_memory_utilization", util)
            else:
                m = _DESIRED_UTIL.search(line)
                if m:
                    self.settings.setdefault("gpu_memory_utilization", float(m.group(1)))
            return
        if NO_KV_MEMORY in line:
            if self.no_kv_memory is None or "raise " in self.no_kv_memory:  # (the message, not its source line)
                self.no_kv_memory = short_line(line)
            return
        if "User-specified max_model_len" in line:
            m = _USER_MAX_LEN.search(line)
            if m and self.max_len_over_model is None:
                self.max_len_over_model = (int(m.group(1)), _int(m.group(2)))
            return
        if PROFILE_RESULTS in line:  # 0.6.4: the KV memory and the share, in one line
            m = _PROFILE_UTIL.search(line)
            if m:
                self.settings.setdefault("gpu_memory_utilization", float(m.group(1)))
            self._kv_line(line)
            return
        if self._effective_setting(line):
            return
        if "non-default args: {" in line:
            import ast

            body = line[line.index("non-default args: {") + len("non-default args: "):][:20000]
            body = body[:body.rfind("}") + 1]  # (whatever a paste left behind it: a fence, a prompt)
            try:
                args = ast.literal_eval(body)
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

    def _effective_setting(self, line: str) -> bool:
        """A start-up line that states a limit in effect (chunked prefill's token budget, the
        max_model_len used, the memory share): kept unless the settings line named it."""
        for rx, key in ((_CHUNKED, "max_num_batched_tokens"), (_USING_MAX_LEN, "max_model_len"),
                        (_GPU_UTIL, "gpu_memory_utilization")):
            m = rx.search(line)
            if m:
                value = m.group(1)
                self.settings.setdefault(key, float(value) if "." in value else int(value))
                if rx is _CHUNKED:
                    self.settings.setdefault("enable_chunked_prefill", True)
                return True
        return False

    def _conc_follow_up(self, line: str) -> bool:
        """Read a "Maximum concurrency" line in the window after its size line (True if it was one)."""
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
        """The stats records of a line."""
        records = stats_records(line)
        if not records:
            return
        for g, start, end in records:
            self._stats_record(line, g, start, end)
        if self._last_version == "v0":
            self._prefix_left = PEEK_LINES

    def _stats_record(self, line: str, g: tuple, start: int, end: int) -> None:
        """One stats record (g: the _STATS_FULL groups). Runs every stats line, so it is kept
        lean; the full StatsLine is built only for the few a result keeps (_materialize)."""
        prev = self._last_raw if self.keep_stats else None  # (as when it was read from the recent ones)
        raw = [line, prev[3] if prev is not None and prev[0] is line else 0, start, end, g, None]
        self._last_raw = raw
        if self._region_line is not None:
            self._region_line.append(raw)
        else:
            self._keep(raw, 1)
        if g[4] == "Pending":
            self._prefix_target = raw
            self._saw_v0 = True
            self._last_version = "v0"
        else:
            self._last_version = "v1"
        mid = g[6]
        n = 0
        if mid and "Preemptions: " in mid:
            p = _PREEMPTIONS.search(mid)
            n = int(p.group(1)) if p else 0
        self._tally(raw, int(g[2]), int(g[5]), float(g[8]), n, g[0], g[1])

    def _tally(self, raw: list, running: int, waiting: int, kv: float, preempted: int, pt, gt) -> None:
        """What one stats record's figures do to the scan's state (its version already noted):
        the one place for it, whether the record was parsed from text or matched in bulk. `pt`,
        `gt`: its prompt and generation throughputs as written (None when the record has none)."""
        self.stats_count += 1
        if running > self.max_running:
            self.max_running = running
        if waiting > self.max_waiting:
            self.max_waiting = waiting
        if running + waiting > self.max_in_flight:
            self.max_in_flight = running + waiting
        if preempted:
            self.v1_preemptions += preempted
            self.stats_preempt_lines += 1
            if self.first_stats_preempt is None:
                self.first_stats_preempt = raw
            self.last_stats_preempt = raw
        if waiting > 0:
            self.waiting_lines += 1
            if pt is not None:  # how many of PROMPT_RATIOS its prompt throughput exceeds
                pt, per, n = float(pt), float(gt), 0
                if per < 1.0:  # (a generation throughput under 1 token/s reads as 1)
                    per = 1.0
                for ratio in PROMPT_RATIOS:
                    if not pt > ratio * per:
                        break
                    n += 1
                self._prompt_over[n] += 1
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
            levels = self._kv_levels
            runs = self._kv_run or [None] * len(levels)
            bests = self._best_kvs
            # the levels up to kv (whole percentages from _kv_low on) go on; the ones above end
            k = min(len(levels), int(kv) - levels[0] + 1)
            for i in range(k):
                run = runs[i]
                run = (1, raw, raw, kv) if run is None else (run[0] + 1, run[1], raw, run[3] if run[3] > kv else kv)
                runs[i] = run
                best = bests[i]
                if best is None or run[0] > best[0] or best[1] is run[1]:
                    bests[i] = run
            if k < len(levels):
                runs[k:] = [None] * (len(levels) - k)
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
            recent_stats=tuple(mat(r) for r in self._recent_records()),
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
            waiting_prompt_ratios=tuple((r, sum(self._prompt_over[i + 1:])) for i, r in enumerate(PROMPT_RATIOS)),
            waiting_lines=self.waiting_lines,
            kv_capacity=self.kv_capacity,
            startups=self.startups,
            max_seq_len_error=self.max_seq,
            queue_overflows=self.overflows,
            queue_overflow_example=self.overflow_example,
            prompts_too_long=self.too_long,
            prompt_too_long_examples=tuple(self.too_long_examples),
            prompt_too_long_max=self.too_long_max,
            output_too_long=self.output_too_long,
            prompts_over_kv_capacity=self.over_kv_capacity,
            no_kv_memory=self.no_kv_memory,
            gpu_memory_short=self.memory_short,
            max_model_len_over_model=self.max_len_over_model,
            settings=dict(self.settings),
            lines=self.lines,
            engine_version=self._last_version or ("v0" if self._saw_v0 else None),
            release=self.release,
        )


def stats_records(line: str) -> list:
    """(groups, start, end) of each stats record of a line: the usual line holds one; a line
    that lost its newlines several (each within 60 characters of the previous one's end)."""
    m = _STATS_FULL.search(line)
    if m is not None and len(line) - m.end() < 60:  # the usual line: one record
        return [(m.groups(), m.start(), m.end())]
    rx, shift = (_STATS_FULL, ()) if m else (_STATS, (None, None))
    if m is None:
        m = _STATS.search(line)
    out = []
    while m:
        out.append((shift + m.groups() if shift else m.groups(), m.start(), m.end()))
        m = rx.search(line, m.end()) if len(line) - m.end() > 60 else None
    return out


def _materialize(raw: list) -> StatsLine:
    line, prev_end, start, end, g, prefix_override = raw
    if start is None:  # a plain line kept as bytes (_simple_line): parsed now, as _stats would have
        line = line.decode("utf-8", "replace")
        g, start, end = stats_records(line)[0]
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
