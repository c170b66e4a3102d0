"""SGLang's scheduler log: the periodic decode and prefill batch lines, retractions when the
KV pool runs out, context-length refusals and truncations, queue-full aborts and the start-up
settings and memory lines.

Pure: lines (or a file's raw regions of whole lines: `feed_region`, which decodes only the
lines holding a candidate mark and reads the usual decode line from one bytes match) in, a
frozen SglangLogSummary out. Every format here is quoted in FORMATS.md
with the SGLang source that prints it and a real recorded line (tests/fixtures/sglang/).
"""
from __future__ import annotations

import ast

from llmdoctor.knowledge.pasted import FRAGMENT
from llmdoctor.knowledge.byte_lines import newlines
from llmdoctor.model import Record
from llmdoctor.parsing import LazyPattern

# `Decode batch. #running-req: 8, ...` (<= 0.4), `Decode batch, #running-req: ...` (>= 0.5),
# `Decode batch [123], ...` with SGLANG_LOG_FORWARD_ITERS; likewise `Prefill batch`; 0.2.x's mixed
# chunked prefill: `Prefill batch(mixed #running-req: 3). #new-seq: ...` (no other #running-req).
_BATCH = LazyPattern(r"\b(Decode|Prefill) batch(?: \[\d+\])?(?:[.,] |\(mixed #running-req: (\d+)\)\. )")
_RUNNING = LazyPattern(r"#running-req: (\d+)")
_QUEUE = LazyPattern(r"#queue-req: (\d+)")
# also `full token usage` / `swa token usage` (hybrid SWA), `mamba usage` (hybrid SSM): SGLang's
# own gauge takes the fullest pool
_USAGE = LazyPattern(r"token usage: ([\d.]+)")
_MAMBA = LazyPattern(r"mamba usage: ([\d.]+)")
_GRAPH = LazyPattern(r"graph: (True|False)")  # `cuda graph:` (`cpu graph:`, `npu graph:` on those devices)
_GEN_TPS = LazyPattern(r"gen throughput \(token/s\): ([\d.]+)")
_NEW_SEQ = LazyPattern(r"#new-seq: (\d+)")
_NEW_TOKEN = LazyPattern(r"#new-token: (\d+)")
_CACHED = LazyPattern(r"#cached-token: (\d+)")
# `[2025-01-01 12:00:00 TP0]`, `[... DP1 TP1]`; newer builds: milliseconds, `ATTN_CP4 TP4`, `MOE_DP0 ...`
_TIME = LazyPattern(r"\[(?:(\d{4}-\d{2}-\d{2}) )?(\d{2}:\d{2}:\d{2})(?:\.\d+)?"
                    r"(?: (?:TP|DP|PP|ATTN_CP|MOE_DP|EP)\d+[^\]]*)?\]")
# scheduler.py: "Decode out of memory happened. #retracted_reqs: N, ..." (2024-25), before that
# "decode out of memory happened, #retracted_reqs: ..."; now "KV cache pool is full. Retract requests. ..."
_RETRACT = LazyPattern(r"(?:[Dd]ecode out of memory happened[.,]|KV cache pool is full\. Retract requests\.)"
                       r" #retracted_reqs: (\d+)")
# scheduler: "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). ..."
_INPUT_TOO_LONG = LazyPattern(r"Input length \((\d+) tokens\) exceeds the maximum allowed length \((\d+) tokens\)")
# tokenizer manager, returned to the client as HTTP 400:
# "The input (61709 tokens) is longer than the model's context length (40960 tokens)."
_LONGER_THAN_CONTEXT = LazyPattern(r"The input \((\d+) tokens\) is longer than the model\\?'s context length "
                                   r"\((\d+) tokens\)")
# "max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=33,
#  context_len=256000, available_gpu_mem=17.22 GB" (the effective values, after SGLang's own caps)
_SUMMARY = LazyPattern(r"\bmax_total_num_tokens=(\d+)\b.*?\bmax_running_requests=(\d+)")
_SUMMARY_CONTEXT = LazyPattern(r"\bcontext_len=(\d+)")
_SUMMARY_MORE = LazyPattern(r"\b(chunked_prefill_size|max_prefill_tokens)=(-?\d+)")
_SUMMARY_MEM = LazyPattern(r"\bavailable_(gpu|cpu)_mem=([\d.]+) GB")
# model_runner_kv_cache_mixin.py (0.5.14-0.5.15), kv_cache_configurator.py (0.5.23): "max_running_requests was
# reduced from the requested 128 to 50 (per dp worker) due to the available KV cache capacity." (asked, in effect)
_RUNNING_REDUCED = LazyPattern(r"max_running_requests was reduced from (?:the )?requested (\d+) to (\d+)")
# `server_args=ServerArgs(...)` (>= 0.2); 0.1.x printed `server_args: enable_flashinfer=..., disable_radix_cache=...`
_SERVER_ARGS = LazyPattern(r"server_args(?:=ServerArgs\(|: )(.*)")
# Truncated and served, not refused (scheduler; with --allow-auto-truncate since 0.4.1, always before):
# "Request length is longer than the KV cache pool size or the max context length. Truncated!!!" (0.2-0.4.0),
# "... Truncated. len(req.origin_input_ids)=N, max_req_input_len=M." (>= 0.4.1); tokenizer manager (>= 0.5):
# "The input (N tokens) is longer than the model's context length (M tokens). Truncating the input."
_TRUNCATED = LazyPattern(r"Request length is longer than the KV cache pool size or the max context length\. "
                         r"Truncated(?:!!!|\. len\(req\.origin_input_ids\)=(\d+), max_req_input_len=(\d+))?")
_TRUNCATING = LazyPattern(r"The input \((\d+) tokens\) is longer than the model\\?'s context length \((\d+) tokens\)\. "
                          r"Truncating the input")
# scheduler abort with --max-queued-requests (>= 0.4.10), returned as HTTP 503 (or, with priority
# scheduling, to the queued request it evicts)
_QUEUE_FULL = LazyPattern(r"The request queue is full\.")
# start-up memory and pool sizing (model_runner.py / memory_pool.py); GB figures
_KV_ALLOCATED = LazyPattern(r"KV Cache is allocated\. (?:dtype: \S+, )?#tokens: (\d+), "
                            r"(?:K size: ([\d.]+) GB, V size: ([\d.]+) GB|KV size: ([\d.]+) GB)")
_WINDOW_POOL = LazyPattern(r"[Ss]liding window memory pool\. full_layer_tokens=(\d+), swa_layer_tokens=(\d+)")
_PROFILED = LazyPattern(r"max_total_tokens=(\d+) is larger than the profiled value (-?\d+)\. Use the profiled value")
_LOAD_END = LazyPattern(r"Load weight end\. .*?avail mem=([\d.]+) GB(?:, mem usage=([\d.]+) GB)?")
_POOL_END = LazyPattern(r"Memory pool end\. avail mem=([\d.]+) GB")
_NOT_ENOUGH = LazyPattern(r"Not enough memory\. Please try to increase --mem-fraction-static\.?"
                          r"(?: Current value: mem_fraction_static=([\d.]+))?")
_MEM_FRACTION_CUT = LazyPattern(r"(?:Automatically reduce --mem-fraction-static to|"
                                r"Dynamically adjusted --mem-fraction-static from: [\d.]+ to:) (\d+(?:\.\d+)?)")
# model_config.py: "Warning: User-specified context_length (N) is greater than the derived context_length (M)."
# (0.3-0.4); >= 0.5: "Warning: {reason} context_length (N) is greater than ..."
# (a draft model's `Target model's context_length ...` is not the served limit: not read)
_CONTEXT_OVER = LazyPattern(r"User-specified context_length \((\d+)\) is greater than the derived context_length "
                            r"\((\d+)\)")
# server_args.py (>= 0.5.6): "Max running requests is reset to 48 for speculative decoding. ..."
_RUNNING_RESET = LazyPattern(r"Max running requests is reset to (\d+)")
# SGLang switching its own radix cache off for a model or backend (not --disable-radix-cache)
_RADIX_AUTO_OFF = LazyPattern(r"Radix cache is disabled for|[Dd]isabl(?:e|ing) radix cache\b")
_KWARG = LazyPattern(r"\b([a-z_]+)=('[^']*'|\"[^\"]*\"|[^,()\[\]\s]+)")
KEEP_ARGS = ("model_path", "context_length", "mem_fraction_static", "max_running_requests", "max_total_tokens",
             "chunked_prefill_size", "max_prefill_tokens", "schedule_policy", "schedule_conservativeness",
             "kv_cache_dtype", "tp_size", "dp_size", "disable_radix_cache", "allow_auto_truncate", "page_size",
             "max_queued_requests")
# A pasted record hard-wrapped right after `#key:` / `token usage:` goes on with an indented value.
_VALUE_START = frozenset("0123456789TF-")
RECENT = 400  # batch lines kept (oldest dropped)
# What a line must hold for SglangLogScanner.feed to do more than count it, as bytes: a superset
# found with one-byte finds (memchr) and a few word finds, never a regex pass (CPython's regex
# tries every alternative at every byte: 50 ms per MiB for these) nor a word find where a byte
# does (a word costs 5-10 one-byte finds). Every batch and retraction line and "KV Cache is
# allocated. #tokens" holds '#'; every refusal and context line '(', a truncation '(' or "KV
# cache" ('V'); the settings and start-up summary lines '=', "max_running_requests was reduced"
# '_'; the rest, a word here. A line held for its wrapped value (ending in ':') matters only if
# it holds one of these or the line it joins does: candidate_starts walks back to it from there.
CANDIDATE_BYTES = (b"#", b"=", b"(", b"V", b"_")
CANDIDATE_WORDS = (b"fraction-static", b"requests is reset", b"adix cache", b"queue is full", FRAGMENT[:20].encode())
EXAMPLES = 3


# The records here are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: a frozen dataclass costs ~1 ms of start-up to define.
class BatchLine(Record):
    """One `Decode batch` or `Prefill batch` record."""

    __slots__ = ("kind", "running", "queue", "token_usage", "gen_tps", "new_seq", "new_tokens", "cached_tokens",
                 "time", "text", "cuda_graph")

    def __init__(
        self,
        kind: str,
        running: int,
        queue: int,
        token_usage: float | None,
        gen_tps: float | None = None,
        new_seq: int | None = None,
        new_tokens: int | None = None,
        cached_tokens: int | None = None,
        time: str | None = None,
        text: str = "",
        cuda_graph: bool | None = None,
    ) -> None:
        self.kind = kind  # "decode" | "prefill"
        self.running = running
        self.queue = queue
        self.token_usage = token_usage  # 0..1 (the larger of full/swa on hybrid models)
        self.gen_tps = gen_tps
        self.new_seq = new_seq
        self.new_tokens = new_tokens  # prefill: tokens computed
        self.cached_tokens = cached_tokens  # prefill: tokens served from the radix cache
        self.time = time
        self.text = text
        self.cuda_graph = cuda_graph  # `cuda graph: True|False` (>= 0.4.10; cpu/npu graph on those devices)

    @property
    def hit_rate(self) -> float | None:
        if self.new_tokens is None or self.cached_tokens is None or self.new_tokens + self.cached_tokens == 0:
            return None
        return self.cached_tokens / (self.new_tokens + self.cached_tokens)


class Run(Record):
    """Consecutive batch lines that all met a condition."""

    __slots__ = ("length", "first", "last", "peak")

    def __init__(self, length: int, first: BatchLine, last: BatchLine, peak: float) -> None:
        self.length = length
        self.first = first
        self.last = last
        self.peak = peak


class SglangLogSummary(Record):
    __slots__ = ("source", "lines", "batch_lines", "recent", "longest_queue_run", "max_running", "max_queue",
                 "retractions", "retracted_reqs", "retraction_examples", "refusals", "refusal_examples",
                 "refusal_max", "settings", "truncations", "truncation_examples", "truncation_max", "queue_full",
                 "queue_full_examples")

    def __init__(
        self,
        source: str,
        lines: int,
        batch_lines: int,
        recent: tuple[BatchLine, ...],
        longest_queue_run: Run | None,
        max_running: int,
        max_queue: int,
        retractions: int,
        retracted_reqs: int,
        retraction_examples: tuple[str, ...],
        refusals: int,
        refusal_examples: tuple[str, ...],
        refusal_max: tuple[int, int] | None,
        settings: dict | None = None,
        truncations: int = 0,
        truncation_examples: tuple[str, ...] = (),
        truncation_max: tuple[int, int] | None = None,
        queue_full: int = 0,
        queue_full_examples: tuple[str, ...] = (),
    ) -> None:
        self.source = source
        self.lines = lines
        self.batch_lines = batch_lines
        self.recent = recent  # oldest first
        self.longest_queue_run = longest_queue_run  # consecutive batch lines with #queue-req > 0
        self.max_running = max_running
        self.max_queue = max_queue
        self.retractions = retractions  # lines
        self.retracted_reqs = retracted_reqs  # sum of #retracted_reqs
        self.retraction_examples = retraction_examples
        self.refusals = refusals
        self.refusal_examples = refusal_examples
        self.refusal_max = refusal_max  # (prompt tokens, limit) of the longest refused prompt
        self.settings = {} if settings is None else settings  # from `server_args=ServerArgs(...)` and the summary line
        self.truncations = truncations  # prompts cut to fit and served (a refusal is not counted here)
        self.truncation_examples = truncation_examples
        self.truncation_max = truncation_max  # (prompt tokens, limit) where the line says; else None
        self.queue_full = queue_full  # `The request queue is full.` aborts
        self.queue_full_examples = queue_full_examples

    @property
    def empty(self) -> bool:
        return not (self.batch_lines or self.retractions or self.refusals or self.settings or self.truncations
                    or self.queue_full)

    @property
    def last_batch(self) -> BatchLine | None:
        return self.recent[-1] if self.recent else None

    def summary(self) -> list[tuple[str, str]]:
        decodes = [b for b in self.recent if b.kind == "decode"]
        if not decodes:
            return []
        b = decodes[-1]
        usage = f", token usage {b.token_usage:.2f}" if b.token_usage is not None else ""
        return [("SGLang last decode batch", f"#running-req {b.running}, #queue-req {b.queue}{usage}")]


def _int(m):
    return int(m.group(1)) if m else None


def _float(m):
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


# SGLang 0.1 (2024): decode stats without the "Decode batch." head, and the prefill line
# `new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. #remaining_req: 57. #running_req: 9. ...`
# (#remaining_req: what still waits; the oldest builds leave out #cached_token)
_OLD_DECODE = LazyPattern(r"#running-req: (\d+), #token: \d+, token usage: ([\d.]+), "
                          r"(?:gen throughput \(token/s\): ([\d.]+), )?#queue-req: (\d+)")
_OLD_FILL = LazyPattern(r"new fill batch\. #seq: (\d+)\. (?:#cached_token: (\d+)\. )?#new_token: (\d+)\. "
                        r"#remaining_req: (\d+)\. #running_req: (\d+)")


def _old_batch_line(line: str) -> BatchLine | None:
    fill, decode = _OLD_FILL.search(line), None
    if fill is None:
        decode = _OLD_DECODE.search(line)
        if decode is None:
            return None
    t = _TIME.search(line)
    common = dict(time=" ".join(g for g in t.groups() if g) if t else None, text=line.strip()[:400])
    if fill is not None:
        seq, cached, new, waiting, running = fill.groups()
        return BatchLine(kind="prefill", running=int(running), queue=int(waiting), token_usage=None, gen_tps=None,
                         new_seq=int(seq), new_tokens=int(new), cached_tokens=int(cached) if cached else None, **common)
    running, usage, gen, waiting = decode.groups()
    return BatchLine(kind="decode", running=int(running), queue=int(waiting), token_usage=_figure(usage),
                     gen_tps=_figure(gen), new_seq=None, new_tokens=None, cached_tokens=None, **common)


def _figure(text: str | None) -> float | None:
    r"""A `[\d.]+` group as a number; None when absent or not one ("1.2.3")."""
    return float(text) if text and text.replace(".", "", 1).isdigit() else None


def parse_batch_line(line: str) -> BatchLine | None:
    m = _BATCH.search(line)
    if not m:
        return _old_batch_line(line)
    kind = m.group(1).lower()
    running = int(m.group(2)) if m.group(2) else _int(_RUNNING.search(line, m.end()))
    queue = _int(_QUEUE.search(line, m.end()))
    if running is None and kind == "prefill" and queue is not None:
        running = 0  # a disaggregated prefill server (0.4.6-0.5.2) runs no decodes and prints no #running-req
    if running is None or queue is None:
        return None
    usages = [float(u) for u in _USAGE.findall(line, m.end()) if u.replace(".", "", 1).isdigit()]
    if "mamba usage" in line:
        usages += [float(u) for u in _MAMBA.findall(line, m.end()) if u.replace(".", "", 1).isdigit()]
    t = _TIME.search(line, 0, m.start() + 1)
    graph = _GRAPH.search(line, m.end())
    return BatchLine(
        kind=kind, running=running, queue=queue, token_usage=max(usages) if usages else None,
        gen_tps=_float(_GEN_TPS.search(line)), new_seq=_int(_NEW_SEQ.search(line)),
        new_tokens=_int(_NEW_TOKEN.search(line)), cached_tokens=_int(_CACHED.search(line)),
        time=" ".join(g for g in t.groups() if g) if t else None, text=line.strip()[:400],
        cuda_graph=graph.group(1) == "True" if graph else None)


def _server_args(line: str) -> dict:
    """The settings llmdoctor reads from a `server_args=ServerArgs(...)` line (Python reprs)."""
    m = _SERVER_ARGS.search(line)
    out: dict = {}
    if not m:
        return out
    for key, raw in _KWARG.findall(m.group(1)):
        if key not in KEEP_ARGS:
            continue
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            out[key] = raw.strip("'\"")
    return out


_gb = _figure


def _start_up(line: str, settings: dict) -> None:
    """The start-up memory and sizing lines, into `settings` (GB figures as floats)."""
    if "KV Cache is allocated" in line:
        m = _KV_ALLOCATED.search(line)
        if m:
            settings["kv_cache_tokens"] = int(m.group(1))
            sizes = [_gb(g) for g in m.groups()[1:] if g]
            if sizes and None not in sizes:
                settings["kv_cache_gb"] = round(sum(sizes), 2)
    elif "window memory pool" in line:
        m = _WINDOW_POOL.search(line)
        if m:
            settings["full_layer_tokens"], settings["swa_layer_tokens"] = int(m.group(1)), int(m.group(2))
    elif "profiled value" in line:
        m = _PROFILED.search(line)
        if m:  # --max-total-tokens asked for more than fits: SGLang uses what it measured
            settings["max_total_tokens"], settings["profiled_max_total_tokens"] = int(m.group(1)), int(m.group(2))
    elif "Load weight end" in line:
        m = _LOAD_END.search(line)
        if m:
            settings["avail_mem_after_weights_gb"] = _gb(m.group(1))
            if m.group(2):
                settings["weights_gb"] = _gb(m.group(2))
    elif "Memory pool end" in line:
        m = _POOL_END.search(line)
        if m:
            settings["avail_mem_after_pool_gb"] = _gb(m.group(1))
    elif "mem-fraction-static" in line:
        m = _NOT_ENOUGH.search(line)
        if m:  # start-up failed: weights leave no room for the KV pool at this fraction
            settings["not_enough_memory"] = True
            if m.group(1):
                settings["mem_fraction_static"] = _gb(m.group(1))
            return
        m = _MEM_FRACTION_CUT.search(line)
        if m:
            settings["mem_fraction_static"] = _gb(m.group(1))
    elif "derived context_length" in line:
        m = _CONTEXT_OVER.search(line)
        if m:
            settings["context_length"], settings["derived_context_length"] = int(m.group(1)), int(m.group(2))
    elif "requests is reset" in line:
        m = _RUNNING_RESET.search(line)
        if m:  # the start-up summary, printed later, has the value in effect and overrides this
            settings.setdefault("max_running_requests", int(m.group(1)))
    elif "adix cache" in line and _RADIX_AUTO_OFF.search(line):
        settings["radix_cache_auto_off"] = line.strip()[:300]


class SglangLogScanner:
    """Feed lines, then `result()`; bounded memory whatever the log's length."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = 0
        self.batches: list[BatchLine] = []
        self.batch_lines = 0
        self.run_first = self.run_last = None
        self.run_len, self.run_peak = 0, 0.0
        self.best: Run | None = None
        self.max_running = self.max_queue = 0
        self.retractions = self.retracted = 0
        self.retraction_examples: list[str] = []
        self.refusals = 0
        self.refusal_examples: list[str] = []
        self.refusal_max: tuple[int, int] | None = None
        self.settings: dict = {}
        self.truncations = self.queue_full = 0
        self.truncation_examples: list[str] = []
        self.truncation_max: tuple[int, int] | None = None
        self.queue_full_examples: list[str] = []
        self.held: str | None = None  # a line that ended at `key:`, waiting for its wrapped value

    def feed_lines(self, lines) -> None:
        for line in lines:
            self.feed(line)

    def feed_region(self, buf, begin: int, end: int) -> None:
        """Feed buf[begin:end] (bytes of whole lines: a LogSource's raw_regions()) exactly as
        feed() on each line of its text.split("\n"), decoding and feeding only the candidate
        lines (candidate_starts), the line after a held one and the last; the others are only
        counted, all at once."""
        starts = candidate_starts(buf, begin, end)
        last = max(begin, buf.rfind(b"\n", begin, end) + 1)  # the last line: fed, a held line ends there
        if not starts or starts[-1] != last:
            starts.append(last)
        total = newlines(buf, begin, end) + 1
        lines_before = self.lines
        find, plain, pos, i = buf.find, PLAIN_DECODE.fullmatch, begin, 0  # pos: the first line not yet fed or passed
        while True:
            if self.held is None:
                while starts[i] < pos:
                    i += 1
                pos = starts[i]
            le = find(b"\n", pos, end)
            stop = end if le == -1 else le
            m = plain(buf, pos, stop) if self.held is None else None
            if m is not None:  # the usual decode line: its record from the match (as parse_batch_line reads it)
                self._batch(_plain_decode(m, bytes(buf[pos:stop]).decode("utf-8", "replace")))
            else:
                self.feed(bytes(buf[pos:stop]).decode("utf-8", "replace"))
            if le == -1:
                break
            pos = le + 1
        self.lines = lines_before + total  # (feed counted the lines it was given; the rest are counted here)

    def feed(self, line: str) -> None:
        self.lines += 1
        if self.held is not None:
            held, self.held = self.held, None
            value = line.lstrip()
            if line[:1] in (" ", "\t") and value[:1] in _VALUE_START:
                line = held + " " + value  # a record hard-wrapped between a key and its value
            else:
                self._feed(held)
        if line.endswith(":") and ("#" in line or " usage:" in line or "graph:" in line or " to:" in line):
            self.held = line.rstrip()
            return
        self._feed(line)

    def _feed(self, line: str) -> None:
        if line.startswith(FRAGMENT):  # pasted apart: no run of queued batches goes across it
            self.run_first, self.run_len, self.run_peak = None, 0, 0.0
            return
        if "batch" in line or "#running-req: " in line:
            b = parse_batch_line(line)
            if b is not None:
                self._batch(b)
                return
        if "#retracted_reqs" in line:
            m = _RETRACT.search(line)
            if m:
                self.retractions += 1
                self.retracted += int(m.group(1))
                if len(self.retraction_examples) < EXAMPLES:
                    self.retraction_examples.append(line.strip()[:400])
                return
        if "length" in line:  # every truncation and refusal wording says "length"
            if "Truncat" in line:
                m = _TRUNCATED.search(line) or _TRUNCATING.search(line)
                if m:
                    self._truncated(line, m)
                    return
            if "tokens)" in line:
                m = _INPUT_TOO_LONG.search(line) or _LONGER_THAN_CONTEXT.search(line)
                if m:
                    self.refusals += 1
                    pair = (int(m.group(1)), int(m.group(2)))
                    if self.refusal_max is None or pair[0] > self.refusal_max[0]:
                        self.refusal_max = pair
                    if len(self.refusal_examples) < EXAMPLES:
                        self.refusal_examples.append(line.strip()[:400])
                    return
            if "derived context_length" in line:
                _start_up(line, self.settings)
                return
        if "was reduced from" in line:
            m = _RUNNING_REDUCED.search(line)
            if m:
                self.settings["max_running_requests_requested"] = int(m.group(1))
                self.settings["max_running_requests"] = int(m.group(2))  # in effect (per dp worker)
                return
        if "=" in line:
            if "server_args=ServerArgs(" in line or "server_args: " in line:
                self.settings.update(_server_args(line))
            elif "max_total_num_tokens=" in line:
                self._summary(line)
            else:
                self._rare(line)
        elif ("queue is full" in line or "mem" in line or "KV Cache" in line or "adix cache" in line
              or "requests is reset" in line):
            self._rare(line)

    def _rare(self, line: str) -> None:
        """A queue-full abort, or one of the start-up memory and sizing lines."""
        if "queue is full" in line and _QUEUE_FULL.search(line):
            self.queue_full += 1
            if len(self.queue_full_examples) < EXAMPLES:
                self.queue_full_examples.append(line.strip()[:400])
        else:
            _start_up(line, self.settings)

    def _summary(self, line: str) -> None:
        m = _SUMMARY.search(line)
        if m:
            self.settings["max_total_num_tokens"] = int(m.group(1))
            self.settings["max_running_requests"] = int(m.group(2))  # effective, after SGLang's caps
            c = _SUMMARY_CONTEXT.search(line)
            if c:
                self.settings["context_len"] = int(c.group(1))
            for key, value in _SUMMARY_MORE.findall(line):
                self.settings[key] = int(value)
            mem = _SUMMARY_MEM.search(line)
            if mem:
                self.settings[f"available_{mem.group(1)}_mem_gb"] = _gb(mem.group(2))

    def _truncated(self, line: str, m) -> None:
        self.truncations += 1
        if m.lastindex and m.group(1):
            pair = (int(m.group(1)), int(m.group(2)))
            if self.truncation_max is None or pair[0] > self.truncation_max[0]:
                self.truncation_max = pair
        if len(self.truncation_examples) < EXAMPLES:
            self.truncation_examples.append(line.strip()[:400])

    def _batch(self, b: BatchLine) -> None:
        self.batch_lines += 1
        self.batches.append(b)
        if len(self.batches) > RECENT:
            del self.batches[0]
        self.max_running = max(self.max_running, b.running)
        self.max_queue = max(self.max_queue, b.queue)
        if b.queue > 0:
            self.run_first = self.run_first or b
            self.run_last = b
            self.run_len += 1
            self.run_peak = max(self.run_peak, b.queue)
            if self.best is None or self.run_len > self.best.length:
                self.best = Run(self.run_len, self.run_first, b, self.run_peak)
        else:
            self.run_first, self.run_len, self.run_peak = None, 0, 0.0

    def result(self) -> SglangLogSummary:
        if self.held is not None:
            held, self.held = self.held, None
            self._feed(held)
        return SglangLogSummary(
            self.source, self.lines, self.batch_lines, tuple(self.batches), self.best, self.max_running,
            self.max_queue, self.retractions, self.retracted, tuple(self.retraction_examples), self.refusals,
            tuple(self.refusal_examples), self.refusal_max, dict(self.settings), self.truncations,
            tuple(self.truncation_examples), self.truncation_max, self.queue_full, tuple(self.queue_full_examples))


# The usual decode batch line, whole (0.4.x-0.5: `[date time TP0] Decode batch, #running-req: R, #token: N, token
# usage: U, cuda graph: B, gen throughput (token/s): G, #queue-req: Q,`): matched whole, so no second figure of a
# kind can stand elsewhere on it; parse_batch_line reads the same figures from it (tests hold them equal).
PLAIN_DECODE = LazyPattern(
    rb"\[(?:(\d{4}-\d{2}-\d{2}) )?(\d{2}:\d{2}:\d{2})(?: TP\d+)?\] Decode batch, #running-req: (\d+), #token: \d+, "
    rb"token usage: (\d+(?:\.\d+)?), (?:cuda graph: (True|False), )?gen throughput \(token/s\): (\d+(?:\.\d+)?), "
    rb"#queue-req: (\d+),?")


def _plain_decode(m, text: str) -> BatchLine:
    day, clock, running, usage, graph, gen, queue = m.groups()
    return BatchLine(kind="decode", running=int(running), queue=int(queue), token_usage=float(usage),
                     gen_tps=float(gen), new_seq=None, new_tokens=None, cached_tokens=None,
                     time=f"{day.decode()} {clock.decode()}" if day else clock.decode(), text=text.strip()[:400],
                     cuda_graph=graph == b"True" if graph else None)


def candidate_starts(buf, begin: int, end: int) -> list[int]:
    """The sorted starts of the lines of buf[begin:end] that hold a CANDIDATE byte or word, and
    of the lines ending in ':' that such a line may be joined to (a wrapped record: it starts
    with a blank, and so on back)."""
    starts: set[int] = set()
    find, rfind = buf.find, buf.rfind
    for mark in CANDIDATE_BYTES + CANDIDATE_WORDS:
        p = find(mark, begin, end)
        while p != -1:
            starts.add(max(begin, rfind(b"\n", begin, p) + 1))
            le = find(b"\n", p, end)
            if le == -1:
                break
            p = find(mark, le + 1, end)
    for ls in [s for s in starts if buf[s:s + 1] in (b" ", b"\t")]:
        while ls - 2 >= begin and buf[ls - 2:ls - 1] == b":" and buf[ls:ls + 1] in (b" ", b"\t"):
            ls = max(begin, rfind(b"\n", begin, ls - 1) + 1)
            starts.add(ls)
    return sorted(starts)


def scan_sglang_regions(regions, source: str) -> SglangLogSummary:
    """scan_sglang_lines over (buffer, begin, end) regions of whole lines (raw_regions), with
    the same result: only the candidate lines are decoded and fed."""
    scanner = SglangLogScanner(source)
    for buf, begin, end in regions:
        scanner.feed_region(buf, begin, end)
    return scanner.result()


def scan_sglang_lines(lines, source: str) -> SglangLogSummary:
    scanner = SglangLogScanner(source)
    scanner.feed_lines(lines)
    return scanner.result()
