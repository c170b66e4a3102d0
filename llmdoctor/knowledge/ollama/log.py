"""A single streaming pass over Ollama server logs.

`OllamaLogScanner.feed(line, source)` takes raw lines (journald prefixes, pasted
prompts, llama.cpp output interleaved) and keeps only counters, a few example lines
per signal and the last loads, so memory stays bounded however long the log is.
`summary()` returns a frozen `OllamaLogSummary` for the checks.

`feed_region(buf, begin, end)` takes a block of whole undecoded lines (a log file's
raw_regions) with the same result: one automaton pass (knowledge/wordscan.py) finds the lines
that hold a word some row looks for (SCAN_CASED, SCAN_FOLDED, AS_WRITTEN) and only those are
decoded and read; tests/core/test_ollama_fast_scan.py holds the two paths equal. The scanner
reports what it read (a request's pause and duration, ...); judge/ decides what is too slow.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import deque
from operator import itemgetter
from datetime import datetime
from typing import Iterable

from llmdoctor.knowledge.llamacpp.lines import BACKEND_LOADED as _BACKEND, BUFFER as _BUFFER, HOST_BACKEND as HOST_BACKENDS
from llmdoctor.knowledge.llamacpp.lines import OFFLOADED as _OFFLOADED, LlamaCppFacts, LlamaCppLines
from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern, ParseError, parse_size, strip_journal_prefix
from llmdoctor.knowledge.ollama import config_line as cfgline
from llmdoctor.knowledge.ollama.env import parse_go_duration
from llmdoctor.knowledge.pasted import FRAGMENT
from llmdoctor.knowledge.ollama.response import WORDS as ANSWER_WORDS, Answer, AnswerReader

MAX_LINE = 2000  # example lines are cut to this many characters
FIRST, LAST = 3, 2  # example lines kept per signal
MAX_LOADS = 40
MAX_MODELS = 64
MAX_CTX_PER_MODEL = 32
MAX_CLUSTER = 64
MAX_WRAP_LINES = 40
# The groups of requests in flight together, counted by their figures on a grid (issue 26: the
# scanner reports what it read, judge.ollama.serial_service decides with judge/thresholds.py's
# OLLAMA_SERIAL_* or a site's). A figure is kept as the grid point at or below it, so a threshold
# on the grid compares exactly as the figure would: the shipped ones (3 requests, 3 at once, 1.5 s,
# 0.25 of a typical answer, 3 s typical) all are. Off the grid a threshold acts as the next grid
# point above it (0.1 s, 0.05 of a typical answer); requests and peak above SERIAL_CAP count as
# SERIAL_CAP, gaps above 10 s as 10 s, shares above 2 as 2, typical answers above 60 s as 60 s.
SERIAL_CAP = 8
GAP_GRID = tuple(i / 10 for i in range(101))  # smallest gap between consecutive ends (s)
SHARE_GRID = tuple(i / 20 for i in range(41))  # ... as a share of a typical answer
TYPICAL_GRID = tuple(i / 10 for i in range(601))  # a typical answer (s), for parallel pairs
# Cells on the fine grid; past this many, a new cell is merged into the coarse grid's (0.5 s and 0.25
# steps: still exact at the shipped thresholds), at most 7 x 8 x 21 x 9 more: bounded whatever the log.
MAX_SERIAL_CELLS = 1024
COARSE_STEP = 5

INFERENCE_PATHS = ("/api/generate", "/api/chat", "/v1/chat/completions", "/v1/completions",
                   "/v1/responses", "/api/embed", "/api/embeddings", "/v1/embeddings", "/v1/messages")

OOM_SUBSTRINGS = ("out of memory", "out-of-memory", "out of device memory", "cudamalloc failed", "hipmalloc failed",
                  "failed to allocate", "allocation failed", "not enough memory", "insufficient memory",
                  "vk_error_out_of_device_memory", "erroroutofmemory",
                  # the scheduler, in its own words (server/sched.go >= 0.30): a load or a request ran out of memory
                  "runtime oom detected", "reducing automatic context and retrying")
# CUDA error 999 (cudaErrorUnknown) at start-up is the suspend/resume signature (ollama#5464, #6647)
GPU_INIT_FAILURE = LazyPattern(r"(?:cudaSetDevice err|cudart init failure|cuda driver library init failure|cuInit err"
                               r"|cuInit failed)\W+999"
                               r"|unable to init gpu", re.I)

_ANSI = LazyPattern(r"\x1b\[[0-9;]*m")
_TIME = LazyPattern(r"\btime=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)")
_OLD_TIME = LazyPattern(r"(?:^|\s)(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \S+\.go:\d+: ")
_GIN = LazyPattern(r"\[\s*GIN\s*\]\s*(\d{4}/\d{2}/\d{2}) - (\d{2}:\d{2}:\d{2})\s*\|\s*(\d{3})\s*\|"
                   r"\s*([0-9][0-9.hmsuµμn]*)\s*\|\s*(\S*)\s*\|\s*([A-Z]+)\s*\"([^\"]*)\"")
_DEVICE_MEM = LazyPattern(r'msg="(model weights|kv cache|compute graph)" device=(\S+) size="([^"]+)"')
_STARTED = LazyPattern(r"(llama runner|llama-server) started in ([\d.]+) seconds")
_OLD_RUNNER_START = LazyPattern(r"\bllama\.go:\d+: starting llama runner\b")
_START_CMD = LazyPattern(r'msg="starting (?:llama server|runner|llama-server)"\s+cmd=')
_CTX = LazyPattern(r"(?:--ctx-size|(?<!\S)-c)[ =](\d+)")
_PAR = LazyPattern(r"(?:--parallel|(?<!\S)-np)[ =](\d+)")
_MODEL = LazyPattern(r"(?:--model|(?<!\S)-m)[ =](\S+)")
_LOAD_REQ = LazyPattern(r"msg=load request=\"\{[^}]*?Parallel:(\d+)[^}]*?KvSize:(\d+)")
_TRUNC = LazyPattern(r'truncating input prompt"?\s+limit=(\d+)\s+prompt=(\d+)(?:\s+keep=(\d+))?(?:\s+new=(\d+))?')
_LISTEN = LazyPattern(r"Listening on (\S+) \(version ([^)\s]+)\)")
_INVENTORY = LazyPattern(r'msg="inference compute"')
_KV = LazyPattern(r'([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|\S+)')
# parallel forced to 1 for the model's architecture, in each version's words (server/sched.go)
_FORCED_ONE = ("model architecture does not currently support parallel requests",
               "mllama does not currently support parallel requests", "mllama doesn't support parallel requests")
# The scheduler unloading a loaded model to make room (INFO; DEBUG for the last two), and a
# keep-alive running out (DEBUG only): server/sched.go, llm/server.go.
EVICTIONS = ("evicting a model to make space", "predicted to exceed available memory, evicting",
             "max runners achieved, unloading one to make room", "resetting model to expire immediately to make room",
             "evicting all other models", "evicting all other loaded models")
EXPIRIES = ("timer expired, expiring to unload", "runner expired event received", "expiring to unload")
# the scheduler's count of loaded runners after each load (INFO, server/sched.go:338 @ v0.1.38,
# :449 @ v0.3.14, :470 @ v0.12.0, :728 @ v0.33.0-rc2: slog.Info("loaded runners", "count", len(s.loaded)))
_LOADED_RUNNERS = LazyPattern(r'msg="loaded runners"\s+count=(\d+)')
_SCHED_LOAD = LazyPattern(r'msg="(?:new model will fit in available (?:VRAM|memory)[^"]*, loading|loading first model|'
                          r'loading model(?: via llama-server)?)"')
_MODEL_ARG = LazyPattern(r'\bmodel(?:Path)?=("?)([^"\s]+)\1')
_SYS_MEM = LazyPattern(r'msg="system memory" total="([^"]+)" free="([^"]+)"')
_RUNNERS = LazyPattern(r'Dynamic LLM libraries(?:"?\s+runners="?)?\s*\[([^\]]*)\]')
_COMPATIBLE = LazyPattern(r'msg="compatible gpu libraries" compatible=\[([^\]]*)\]')
_DETECTED = LazyPattern(r'msg="detected GPUs"[^\n]*?count=(\d+)|msg="inference compute"[^\n]*?library=(?!cpu)(\w+)')
_LIBDIR_MISSING = LazyPattern(r"lib[/\\]ollama\S*[’'\"]?:? No such file or directory|cannot access\s+\S*lib[/\\]ollama")
GPU_BACKEND_NAMES = ("CUDA", "ROCm", "HIP", "Vulkan", "Metal", "MTL", "SYCL", "OpenCL", "CANN", "MUSA")
# Lines that are counted and nothing more, in every version's words (lower case; see
# knowledge/ollama/catalogue.py for where each is printed). Tried on the lines no row above took
# (after the llama.cpp lines), behind MARK_GATES: plain substring tests, each a word of some
# marks, cheap where an alternation of every phrase over every line is not.
MARKS = {
    # a flash-attention / KV-cache-type setting that was not applied (llm/server.go 0.5-0.24)
    "quantized kv cache requested but flash attention disabled": "settings_ignored",
    "flash attention enabled but not supported by": "settings_ignored",
    "must be enabled to use a quantized ollama_kv_cache_type": "settings_ignored",
    "unsupported ollama_kv_cache_type": "settings_ignored",
    "kv cache type not supported by model": "settings_ignored",
    # keep-alive (DEBUG), and the wait for an unloaded model's VRAM (server/sched.go)
    "non-zero duration has gone idle, adding timer": "keep_alive_timers",
    "runner with zero duration has gone idle": "keep_alive_zero",  # keep_alive 0: unloaded after each request
    "vram usage didn't recover within timeout": "vram_not_recovered",
    # the scheduler's DEBUG lines: a loaded model reloaded for a request with other options (num_ctx ...),
    # a new load waiting for the old model's requests to drain, a queued request whose client gave up
    "msg=reloading": "option_reloads",
    "waiting for pending requests to complete and unload to occur": "unload_waits",
    "pending request cancelled or timed out": "queue_abandoned",
    "disabling default concurrency": "default_concurrency_off",
    # a client gave up on a request in flight (llm/server.go, llm/llama_server.go)
    "due to client closing the connection": "client_aborts",
    # memory fit
    "model request too large for system": "too_large",
    "model is too large for system memory": "too_large",
    "memory layout cannot be allocated": "layout_misfits",
    "model layout did not fit": "layout_misfits",
    "failed to commit memory for model": "layout_misfits",
    "runner process has terminated": "runner_died",
    "llama-server process has terminated": "runner_died",
    "llama runner process no longer running": "runner_died",
    "llama-server process no longer running": "runner_died",
    'msg="load failed"': "load_failures",
    'msg="newllamaserver failed"': "load_failures",
    'msg="error loading llama server"': "load_failures",
    'msg="failed to create server"': "load_failures",
    "predicted usage exceeds vram": "vram_overcommit",
    # the estimate found a GPU but not one layer fits on it (DEBUG, llm/memory.go v0.1.33-v0.11, llm/server.go
    # v0.11-v0.12): llm/server.go then runs the model on the CPU (`estimate.Layers == 0`). The messages'
    # heads, so a line wrapped inside the message still counts
    "gpu has too little memory": "no_layer_fits",
    "insufficient vram to load any": "no_layer_fits",
    'msg="gpu memory"': "gpu_memory",  # free VRAM per GPU at a load (0.11+)
    "updated vram based on existing loaded models": "gpu_memory",
    "disabling mmap for llama-server load due to host memory pressure": "host_memory_pressure",
    # the Go runners' prompt cache (DEBUG): a slot reused for a prompt, and a slot's cache thrown away
    "loading cache slot": "cache_slot_loads",
    "evicting cache slot": "cache_slot_evictions",
    "timed out waiting for llama runner to start": "load_timeouts",
    "timed out waiting for llama-server to start": "load_timeouts",
    # context
    "requested context size too large for model": "ctx_clamped",
    "requested context length is greater than model max context length": "ctx_clamped",
    "truncating input messages": "history_truncations",
    "truncating native chat messages": "history_truncations",
    "entering low vram mode": "low_vram",
    # GPU discovery found no GPU (gpu/, discover/)
    "no compatible gpus were discovered": "no_gpu",
    "no nvidia devices detected": "no_gpu",
    "failure during gpu discovery": "no_gpu",
    "failure during llama-server gpu discovery": "no_gpu",
    "amd rocm reports no devices found": "no_gpu",
    "failed call to hipgetdevicecount": "no_gpu",
    "hipgetdevicecount failed": "no_gpu",  # discover/native_probe_*.go (0.30+), as the discovery error
    "cuinit failed": "no_gpu",
    "cudevicegetcount failed": "no_gpu",
    "experimental vulkan support disabled": "vulkan_off",
    # ... or found one and refused it: the device, its driver or the ROCm library does not qualify
    "cuda gpu is too old": "gpu_rejected",
    "amdgpu detected, but no compatible rocm library": "gpu_rejected",
    "amdgpu is not supported": "gpu_rejected",
    "amdgpu too old": "gpu_rejected",
    "is not supported by": "gpu_rejected",  # `amdgpu [0] gfx1031 is not supported by DIR [...]` (0.1.x): needs "amdgpu"
    "nvidia driver too old": "gpu_rejected",
    "version mismatch between driver and cuda driver library": "gpu_rejected",
}
MARKED = tuple(dict.fromkeys(MARKS.values()))
MARK_GATES = ("flash attention", "kv_cache_type", "kv cache type", "gone idle", "didn't recover", "concurrency",
              "closing the connection", "too large", "layout", "commit memory", "terminated", "no longer running",
              "timed out waiting", "requested context", "truncating", "low vram", "no compatible", "nvidia devices",
              "amdgpu", "gpu discovery", "rocm reports", "hipgetdevicecount", "cuinit failed", "cudevicegetcount",
              "vulkan", "too old", "version mismatch", "load failed", "newllamaserver", "error loading",
              "failed to create server", "predicted usage", "host memory pressure", "cache slot", "msg=reloading",
              "pending request", "gpu memory", "updated vram", "too little memory", "insufficient vram")
_MARK = LazyPattern("|".join(re.escape(k) for k in sorted(MARKS, key=len, reverse=True)))
_VRAM_CTX = LazyPattern(r'vram-based default context"?\s+total_vram="?([^"]+?)"?\s+default_num_ctx=(\d+)')

# Every word some row of the scan looks for before it takes a line (RULES' guards and patterns,
# the scheduler's phrases, the config line, gin, a paste's fragment mark, the llama.cpp reader's
# marks; SCAN_FOLDED: those tried on the lower-cased line, MARKS and OOM_SUBSTRINGS among them):
# a line holding none of them changes nothing but the line count and the last time stamp seen,
# so feed_region passes it by at C speed. The four non-ASCII letters that str.lower() or re.I
# turn into ASCII ones (U+0130, U+0131, U+017F, U+212A) make a line a candidate too.
SCAN_CASED = (
    "GIN]", FRAGMENT, "server config", "Listening on", "inference compute", "msg=offload", 'msg="offload to ',
    "client connection closed before", "cmd=", "llama.go:", "load request", "load_backend",
    "offloading output layer to CPU", "offloaded", "buffer size", "device=", "started in", "truncating input prompt",
    "invalid environment variable", "invalid port, using default", "Invalid environment assignment",
    "Ignoring invalid environment assignment", "default context", "llm busy - no slots available",
    "no slots available after",
    # the scheduler (_scheduler)
    'msg="new model will fit in available', 'msg="loading first model', 'msg="loading model', "system memory",
    "msg=system ", "Dynamic LLM libraries", "compatible gpu libraries", "detected GPUs", 'msg="loaded runners"',
) + ANSWER_WORDS + EVICTIONS + EXPIRIES + _FORCED_ONE
SCAN_FOLDED = (
    "prompt is longer than the context length", "input length exceeds the context length",
    "exceeds maximum context length", "maximum pending requests exceeded", "no such file", "cannot access",
    # GPU_INIT_FAILURE (re.I)
    "cudasetdevice err", "cudart init failure", "cuda driver library init failure", "cuinit err", "cuinit failed",
    "unable to init gpu",
) + tuple(MARKS) + OOM_SUBSTRINGS + ("\u0130", "\u0131", "\u017f", "\u212a")


# Looked for as written: in lower case they are in nearly every line of some hosts (`gpu01`,
# `kv_`). Every other word is looked for in the lower-cased block, the cased ones too (a line
# that holds a word holds its lower case form once lower-cased): one pass of the automaton.
AS_WRITTEN = ("GPU", "KV")


def _word_scan(matcher: str | None = None):
    from llmdoctor.knowledge.llamacpp.lines import _MARKS as CPP_MARKS
    from llmdoctor.knowledge.wordscan import WordScan

    # ("GIN]" apart: feed_region reads each gin line from its `GIN]` by _GIN_B, a bare one included)
    folded = [w.lower() for w in SCAN_CASED + CPP_MARKS if w not in AS_WRITTEN + ("GIN]",)] + list(SCAN_FOLDED)
    return WordScan(tuple(w.encode() for w in AS_WRITTEN), tuple(w.encode() for w in folded), matcher,
                    apart=(b"GIN]",))


_FRAGMENT_B = FRAGMENT.encode()
# A gin line in bulk (feed_region): _GIN's fields, in bytes, from `GIN]` on. Where the line is
# ASCII but for the µ/μ of a duration, both read the same fields: between the fields this one
# takes only a space or a tab where _GIN's \s would take other control characters too (then it
# finds no fields, and _line reads the line), the client is printable ASCII (\S) and the path
# any character but a quote in both. A duration in gin's one-unit form comes in parts.
# A bare `GIN]` (no fields after it) makes its line a candidate read the slow way.
_GIN_B = re.compile(
    rb'GIN\](?:[ \t]*(\d{4}/\d\d/\d\d - \d\d:\d\d:\d\d)[ \t]*\|[ \t]*(\d{3})[ \t]*\|[ \t]*'
    rb'(?:(\d+)(?:\.(\d+))?(ns|us|\xc2\xb5s|\xce\xbcs|ms|s)(?=[ \t]*\|)|([0-9](?:[0-9.hmsun]|\xc2\xb5|\xce\xbc)*))'
    rb'[ \t]*\|[ \t]*[!-~]*[ \t]*\|[ \t]*[A-Z]+[ \t]*"([^"\n]*)"[^\n]*)?')
_GO_EXP_B = {b"ns": 0, b"us": 3, "µs".encode(): 3, "μs".encode(): 3, b"ms": 6, b"s": 9}  # (_GO_SCALE's powers of ten)
_POW10 = tuple(10 ** e for e in range(10))
_INFERENCE_B = frozenset(p.encode() for p in INFERENCE_PATHS)
# Gin lines read as columns (gin_columns, request_batch) where numpy is installed: in a block of
# at least COLUMNS_FROM bytes (a smaller log does not pay numpy's import, ~0.1 s) with at least
# COLUMNS_MIN of them in its first 64 KiB (about 1 line in 27: at 5 % columns save a fifth, at 2 %
# nothing), in parts of COLUMNS_PART bytes (a part costs ~3 ms; its columns are the peak memory),
# in runs of at least COLUMNS_RUN lines (a shorter run costs less line by line).
COLUMNS_FROM = 1 << 19
COLUMNS_MIN = 12
COLUMNS_PART = 1 << 21
COLUMNS_RUN = 32


def _limits():
    """What request_batch groups and files by, as this module has it now (tests change them), and
    how a group's typical answer and figures are made here."""
    from types import SimpleNamespace

    return SimpleNamespace(MAX_TIMED=MAX_TIMED, MAX_CLUSTER=MAX_CLUSTER, SERIAL_CAP=SERIAL_CAP,
                           MAX_SERIAL_CELLS=MAX_SERIAL_CELLS, COARSE_STEP=COARSE_STEP, GAP_GRID=GAP_GRID,
                           SHARE_GRID=SHARE_GRID, TYPICAL_GRID=TYPICAL_GRID, served_median=served_median,
                           group_figures=group_figures)


def _stamp_time(stamp: bytes) -> datetime | None:
    """The datetime of a gin stamp `2006/01/02 - 15:04:05` (None: no date)."""
    try:
        return datetime(int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]), int(stamp[13:15]),
                        int(stamp[16:18]), int(stamp[19:21]))
    except ValueError:
        return None


def _columns_ok() -> bool:
    from llmdoctor.knowledge.ollama.gin_columns import available

    return available()


_BULK = object()  # _gin_bulk: this gin line is not one it reads; read it line by line
_UNSET = object()  # last_time while a gin line is read (feed_region)


# The records below are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: as frozen dataclasses they cost ~12 ms of every start that reads
# an Ollama log to define.

class Example(Record):
    __slots__ = ("source", "line")

    def __init__(self, source: str, line: str) -> None:
        self.source = source
        self.line = line


class Signal(Record):
    """How often a log signal occurred, with its first and last lines."""

    __slots__ = ("count", "examples")

    def __init__(self, count: int = 0, examples: tuple[Example, ...] = ()) -> None:
        self.count = count
        self.examples = examples


_NO_SIGNAL = Signal()


class _Tally:
    __slots__ = ("count", "first", "last")

    def __init__(self) -> None:
        self.count = 0
        self.first: list[Example] = []
        self.last: deque[Example] = deque(maxlen=LAST)

    def add(self, source: str, line: str) -> None:
        self.count += 1
        ex = Example(source, line[:MAX_LINE])
        if len(self.first) < FIRST:
            self.first.append(ex)
        else:
            self.last.append(ex)

    def frozen(self) -> Signal:
        return Signal(self.count, tuple(self.first) + tuple(self.last))


class Load(Record):
    """One model load (runner start) and what the log said about it."""

    __slots__ = ("model", "ctx_size", "parallel", "started_at", "load_seconds", "offloaded", "host_buffer_mib",
                 "gpu_buffer_mib", "model_buffer_mib", "host_weights_bytes", "gpu_weights_bytes", "backends",
                 "output_on_cpu", "idle_before_s", "examples", "runners_after")

    def __init__(
        self,
        model: str | None = None,
        ctx_size: int | None = None,
        parallel: int | None = None,
        started_at: datetime | None = None,
        load_seconds: float | None = None,
        offloaded: tuple[int, int] | None = None,
        host_buffer_mib: float = 0.0,
        gpu_buffer_mib: float = 0.0,
        model_buffer_mib: float = 0.0,
        host_weights_bytes: int = 0,
        gpu_weights_bytes: int = 0,
        backends: tuple[str, ...] = (),
        output_on_cpu: bool = False,
        idle_before_s: float | None = None,
        examples: tuple[Example, ...] = (),
        runners_after: int | None = None,
    ) -> None:
        self.model = model
        self.ctx_size = ctx_size  # runner --ctx-size/-c (pre-0.30: num_ctx x parallel)
        self.parallel = parallel
        self.started_at = started_at
        self.load_seconds = load_seconds
        self.offloaded = offloaded  # (layers on GPU, layers)
        self.host_buffer_mib = host_buffer_mib  # every llama.cpp buffer (model, KV, compute...) in host memory
        self.gpu_buffer_mib = gpu_buffer_mib
        self.model_buffer_mib = model_buffer_mib  # weights only, wherever they are
        self.host_weights_bytes = host_weights_bytes  # `model weights device=CPU` (Go engine)
        self.gpu_weights_bytes = gpu_weights_bytes
        self.backends = backends  # load_backend: loaded X backend
        self.output_on_cpu = output_on_cpu  # `offloading output layer to CPU` (Ollama engine)
        self.idle_before_s = idle_before_s  # seconds since the previous request finished
        self.examples = examples  # start cmd, offloaded, started-in lines
        self.runners_after = runners_after  # the scheduler's `loaded runners count=N` once this runner started


class Startup(Record):
    """One server start: its inventory of compute devices."""

    __slots__ = ("at", "libraries", "examples", "gpu_total_bytes", "gpu_available_bytes")

    def __init__(
        self,
        at: datetime | None,
        libraries: tuple[str, ...],
        examples: tuple[Example, ...],
        gpu_total_bytes: int = 0,
        gpu_available_bytes: int | None = None,
    ) -> None:
        self.at = at
        self.libraries = libraries  # "cuda", "rocm", "cpu", ...
        self.examples = examples
        self.gpu_total_bytes = gpu_total_bytes  # summed `total=` of the non-CPU devices
        # summed `available=` of the same devices (free at discovery: what other processes left);
        # None when any of them printed none
        self.gpu_available_bytes = gpu_available_bytes

    @property
    def has_gpu(self) -> bool:
        return any(lib not in ("cpu", "?") for lib in self.libraries)


class RequestTiming(Record):
    """Access-log concurrency, from gin lines (end time + duration)."""

    __slots__ = ("requests", "concurrent_groups", "peak_in_flight", "max_duration_s", "typical_service_s",
                 "groups", "pairs", "timed", "spans")

    def __init__(
        self,
        requests: int = 0,
        concurrent_groups: int = 0,
        peak_in_flight: int = 0,
        max_duration_s: float = 0.0,
        typical_service_s: float | None = None,
        groups: tuple["GroupCell", ...] = (),
        pairs: tuple[tuple[float, int], ...] = (),
        timed: tuple["Timed", ...] = (),
        spans: tuple = (),
    ) -> None:
        self.requests = requests
        self.concurrent_groups = concurrent_groups  # groups of requests in flight together
        self.peak_in_flight = peak_in_flight
        self.max_duration_s = max_duration_s
        self.typical_service_s = typical_service_s  # median duration of requests that had the server alone
        # those groups counted by their figures (GroupCell), for judge.ollama.serial_service
        self.groups = groups
        # (a typical answer's grid point, how many pairs of requests that overlapped ended within
        # gin's 1 s of each other in the groups closed while answers took that long)
        self.pairs = pairs
        self.timed = timed  # the last MAX_TIMED inference requests: pause before each, and how long it took
        self.spans = spans  # the last MAX_TIMED requests as knowledge.concurrency.Span (unix seconds)


_SHARE_TOP = len(SHARE_GRID) - 1
_SHARE_STEPS = round(1 / SHARE_GRID[1])


def share_index(low: float, typical: float) -> int:
    """The largest j with SHARE_GRID[j] * typical <= low, computed as the rule multiplies (so a
    threshold on the grid compares exactly): the quotient's estimate, put right by one step where
    rounding left it off (bisect with a key costs 3x this per group)."""
    if typical <= 0:
        return _SHARE_TOP
    j = int(min(low / typical * _SHARE_STEPS, _SHARE_TOP))
    if j < _SHARE_TOP and SHARE_GRID[j + 1] * typical <= low:
        return j + 1
    if SHARE_GRID[j] * typical > low:
        return j - 1
    return j


@record
class GroupCell(Record):
    """The groups of requests in flight together whose figures fall on one grid point (see
    SERIAL_CAP): `requests` in the group and `peak` at once (both capped), the smallest gap between
    consecutive ends (`gap_s`) and that gap as a share of a typical answer (`gap_share`), each the
    grid point at or below it. `count` groups; `best_*` are the first of them with the highest peak."""

    requests: int
    peak: int
    gap_s: float
    gap_share: float
    count: int
    best_peak: int
    best_order: int  # its place among the log's groups (the judge takes the first of equal peaks)
    best_figures: str
    best_examples: tuple[Example, ...]


@record
class Timed(Record):
    """An inference request that completed: `gap_s` without a request in flight before it
    started (None for the first of a fragment), and the `seconds` it took (judge.ollama's
    cold_starts compares the ones after a pause with the others)."""

    gap_s: float | None
    seconds: float
    example: Example


MAX_TIMED = 400  # inference requests kept for the cold-start comparison (judge.ollama.cold_starts)
# deferred makers of `timed` and `spans` entries held at once: each holds its part of the log
# (COLUMNS_PART bytes) until it is made, so past this many they are made (a journal of health
# checks with an inference request now and then would otherwise hold every part it read)
MAX_HELD = 4


class OllamaLogSummary(Record):
    __slots__ = ("sources", "lines", "version", "version_example", "server_config", "server_config_example",
                 "server_config_count", "server_config_at", "server_config_errors", "invalid_env", "loads",
                 "load_count", "ctx_sizes_by_model", "load_times", "max_load_seconds", "truncations",
                 "truncation_max_prompt", "truncation_limits", "context_errors", "forced_single_slot", "status_503",
                 "max_pending", "oom", "gpu_init_failures", "startups", "estimator", "estimator_example",
                 "vram_default_ctx", "requests", "status_counts", "last_request_at", "cpp", "evictions", "expiries",
                 "system_memory", "system_free_bytes", "runner_backends", "runner_backends_example",
                 "runner_libraries", "runner_libraries_example", "gpu_libraries_empty", "libdir_missing", "gpu_seen",
                 "busy", "unit_warnings", "fast_error_burst", "fast_error_burst_size", "load_aborted", "answers",
                 "answer_count", "loaded_runners") + MARKED

    def __init__(
        self,
        sources: tuple[str, ...] = (),
        lines: int = 0,
        version: str | None = None,
        version_example: Example | None = None,
        server_config: dict[str, str] | None = None,
        server_config_example: Example | None = None,
        server_config_count: int = 0,
        server_config_at: datetime | None = None,
        server_config_errors: tuple[str, ...] = (),
        invalid_env: Signal = Signal(),
        loads: tuple[Load, ...] = (),
        load_count: int = 0,
        ctx_sizes_by_model: dict[str, dict[int, int]] | None = None,
        load_times: Signal = Signal(),
        max_load_seconds: float = 0.0,
        truncations: Signal = Signal(),
        truncation_max_prompt: int = 0,
        truncation_limits: tuple[int, ...] = (),
        context_errors: Signal = Signal(),
        forced_single_slot: Signal = Signal(),
        status_503: Signal = Signal(),
        max_pending: Signal = Signal(),
        oom: Signal = Signal(),
        gpu_init_failures: Signal = Signal(),
        startups: tuple[Startup, ...] = (),
        estimator: dict[str, str] | None = None,
        estimator_example: Example | None = None,
        vram_default_ctx: int | None = None,
        requests: RequestTiming = RequestTiming(),
        status_counts: dict[int, int] | None = None,
        last_request_at: datetime | None = None,
        cpp: LlamaCppFacts = LlamaCppFacts(),
        evictions: Signal = Signal(),
        expiries: Signal = Signal(),
        system_memory: Example | None = None,
        system_free_bytes: int | None = None,
        runner_backends: tuple[str, ...] | None = None,
        runner_backends_example: Example | None = None,
        runner_libraries: tuple[str, ...] | None = None,
        runner_libraries_example: Example | None = None,
        gpu_libraries_empty: Signal = Signal(),
        libdir_missing: Signal = Signal(),
        gpu_seen: Example | None = None,
        busy: Signal = Signal(),
        unit_warnings: Signal = Signal(),
        fast_error_burst: tuple[Example, ...] = (),
        fast_error_burst_size: int = 0,
        load_aborted: Signal = Signal(),
        answers: tuple[Answer, ...] = (),
        answer_count: int = 0,
        loaded_runners: int | None = None,
        **marked: Signal,
    ) -> None:
        self.sources = sources
        self.lines = lines
        self.version = version
        self.version_example = version_example
        self.server_config = server_config
        self.server_config_example = server_config_example
        self.server_config_count = server_config_count
        self.server_config_at = server_config_at
        self.server_config_errors = server_config_errors
        self.invalid_env = invalid_env
        self.loads = loads  # the last MAX_LOADS
        self.load_count = load_count
        self.ctx_sizes_by_model = {} if ctx_sizes_by_model is None else ctx_sizes_by_model
        self.load_times = load_times
        self.max_load_seconds = max_load_seconds
        self.truncations = truncations
        self.truncation_max_prompt = truncation_max_prompt
        self.truncation_limits = truncation_limits
        self.context_errors = context_errors
        self.forced_single_slot = forced_single_slot
        self.status_503 = status_503
        self.max_pending = max_pending
        self.oom = oom
        self.gpu_init_failures = gpu_init_failures
        self.startups = startups
        self.estimator = estimator  # last `msg=offload` key/values
        self.estimator_example = estimator_example
        self.vram_default_ctx = vram_default_ctx
        self.requests = requests
        self.status_counts = {} if status_counts is None else status_counts
        self.last_request_at = last_request_at
        self.cpp = cpp  # the runner's llama.cpp lines (shifts, cut prompts, devices)
        self.evictions = evictions  # a loaded model unloaded to make room for another
        self.expiries = expiries  # keep-alive ran out (DEBUG lines)
        self.system_memory = system_memory  # the last `msg="system memory"` line
        self.system_free_bytes = system_free_bytes
        self.runner_backends = runner_backends  # backends in the runner's `msg=system` line
        self.runner_backends_example = runner_backends_example
        self.runner_libraries = runner_libraries  # old `Dynamic LLM libraries runners=[...]`
        self.runner_libraries_example = runner_libraries_example
        self.gpu_libraries_empty = gpu_libraries_empty  # `compatible gpu libraries compatible=[]`
        self.libdir_missing = libdir_missing  # a listing that shows lib/ollama is not there
        self.gpu_seen = gpu_seen  # a line that shows a GPU was found or planned for
        self.busy = busy  # old runner "llm busy - no slots available"
        self.unit_warnings = unit_warnings  # systemd: "Invalid environment assignment, ignoring: ..."
        self.fast_error_burst = fast_error_burst  # the largest same-second burst of fast 5xx answers
        self.fast_error_burst_size = fast_error_burst_size
        self.load_aborted = load_aborted  # the client went away while its model loaded (llm/server.go WaitUntilRunning)
        self.answers = answers  # the last answers' own figures (knowledge/ollama/response.py), pasted or kept
        self.answer_count = answer_count
        self.loaded_runners = loaded_runners  # the scheduler's last `loaded runners count=N`
        for key in MARKED:  # the MARKS counts: settings_ignored, no_gpu, load_timeouts, ...
            setattr(self, key, marked.get(key, _NO_SIGNAL))

    @property
    def last_load(self) -> "Load | None":
        return self.loads[-1] if self.loads else None

    @property
    def estimate_layers(self) -> tuple[int, int] | None:
        """(layers planned on GPU, layers) of the last memory estimate, in either key set
        (`layers.offload`/`layers.model` from 0.1.33, `reallayers`/`layers` before)."""
        e = self.estimator or {}
        for on, of in (("layers.offload", "layers.model"), ("reallayers", "layers")):
            if e.get(on, "").isdecimal() and e.get(of, "").isdecimal():
                return int(e[on]), int(e[of])
        return None


def _number(text: str) -> float | None:
    """A `[\\d.]+` match as a float; None for what only looks like one ("1.2.3", "..", or
    hundreds of digits, which float() makes inf and int() later refuses)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def line_time(text: str) -> datetime | None:
    m = _TIME.search(text) if "time=" in text else None
    if m:
        try:
            return datetime.fromisoformat(m.group(1))
        except ValueError:
            return None
    m = _OLD_TIME.search(text) if ".go:" in text else None
    if m:
        s = m.group(1)  # YYYY/MM/DD HH:MM:SS (not strptime: its first call costs milliseconds of set-up)
        if not s.isascii():
            return None  # (as strptime: other digits than ASCII's are no time)
        try:
            return datetime(int(s[0:4]), int(s[5:7]), int(s[8:10]), int(s[11:13]), int(s[14:16]), int(s[17:19]))
        except ValueError:
            return None
    return None


class GinLine(Record):
    __slots__ = ("at", "status", "seconds", "client", "method", "path")

    def __init__(self, at: datetime, status: int, seconds: float, client: str, method: str, path: str) -> None:
        self.at = at
        self.status = status
        self.seconds = seconds
        self.client = client
        self.method = method
        self.path = path


_GO_ONE = LazyPattern(r"(\d+)(?:\.(\d+))?(ns|us|µs|μs|ms|s)")
_GO_SCALE = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def _gin_seconds(text: str) -> float:
    """parse_go_duration(text) / 1e9, without its loop for gin's usual one-unit form."""
    m = _GO_ONE.fullmatch(text)
    if m is None:
        return parse_go_duration(text) / 1e9
    scale = _GO_SCALE[m.group(3)]
    total = int(m.group(1)) * scale
    frac = m.group(2)
    if frac:
        total += int(frac) * scale // 10 ** len(frac)
    if total > 9223372036854775807:  # (FOREVER_NS: Go's overflow)
        raise ValueError(f"invalid duration {text!r} (overflow)")
    return total / 1e9


_last_gin_at: list = [None, None]  # ((date, time), datetime) of the last gin line parsed


def parse_gin(line: str) -> GinLine | None:
    """`[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |  127.0.0.1 | POST "/api/generate"`."""
    if "GIN" not in line:
        return None
    m = _GIN.search(_ANSI.sub("", line) if "\x1b" in line else line)
    if not m:
        return None
    try:
        d, t = m.group(1), m.group(2)
        if _last_gin_at[0] == (d, t):  # lines of one second: one datetime (immutable, shared)
            at = _last_gin_at[1]
        else:
            at = datetime(int(d[:4]), int(d[5:7]), int(d[8:10]), int(t[:2]), int(t[3:5]), int(t[6:8]))
            _last_gin_at[:] = ((d, t), at)
        secs = _gin_seconds(m.group(4))
    except ValueError:
        return None
    return GinLine(at, int(m.group(3)), secs, m.group(5), m.group(6), m.group(7))


def key_values(text: str) -> dict[str, str]:
    """slog `k=v k="v w"` pairs."""
    return {k: v[1:-1].replace('\\"', '"') if v.startswith('"') else v for k, v in _KV.findall(text)}


def model_id(path: str) -> str:
    """`sha256-<12 hex>` of a blob path (POSIX or Windows, `\\`-escaped or not), else the file name."""
    base = re.split(r"[/\\]+", path.rstrip("/\\"))[-1]
    m = re.match(r"sha256[-:]([0-9a-f]{12})", base)
    return f"sha256-{m.group(1)}" if m else base


class _LoadBuilder:
    def __init__(self, at: datetime | None, idle: float | None) -> None:
        self.d: dict = {"started_at": at, "idle_before_s": idle}
        self.by_scheduler = False  # begun by the scheduler's "loading" line; the runner command follows
        self.has_cmd = False
        self.host = 0.0
        self.gpu = 0.0
        self.hw = 0
        self.gw = 0
        self.model_mib = 0.0
        self.backends: list[str] = []
        self.examples: list[Example] = []

    def freeze(self) -> Load:
        return Load(host_buffer_mib=round(self.host, 2), gpu_buffer_mib=round(self.gpu, 2),
                    model_buffer_mib=round(self.model_mib, 2),
                    host_weights_bytes=self.hw, gpu_weights_bytes=self.gw,
                    backends=tuple(self.backends), examples=tuple(self.examples[:6]), **self.d)


def _example(ex) -> Example:
    """An Example from what a request keeps: the Example itself (read line by line), or
    (source, the raw line) of a gin line that feed_region read in bulk, made here for the few kept."""
    if type(ex) is tuple:
        return Example(ex[0], strip_journal_prefix(ex[1].decode("utf-8", "replace"))[:MAX_LINE])
    return ex


class _Burst:
    """Same-second bursts of fast 5xx answers: requests turned away before reaching the model
    (Ollama <= 0.1.33 answered a full 10-request queue with 500, later ones with 503)."""

    FAST_S = 1.0

    def __init__(self) -> None:
        self.second: datetime | None = None
        self.group: list[Example] = []
        self.size = 0
        self.best: tuple[Example, ...] = ()
        self.best_size = 0

    def add(self, status: int, seconds: float, at: datetime, ex) -> None:
        if status < 500 or seconds >= self.FAST_S:
            return
        if at != self.second:
            self._close()
            self.second, self.group, self.size = at, [], 0
        self.size += 1
        if len(self.group) < 4:
            self.group.append(ex)

    def _close(self) -> None:
        if self.size > self.best_size:
            self.best, self.best_size = tuple(self.group), self.size

    def frozen(self) -> tuple[tuple[Example, ...], int]:
        self._close()
        return tuple(_example(e) for e in self.best), self.best_size


def served_median(starts: list[float], ends: list[float]) -> float:
    """A group's typical answer where none had the server alone yet (requests by end): the
    median of what each took once the one before it ended."""
    services = [ends[0] - starts[0]] + [ends[i] - max(starts[i], ends[i - 1]) for i in range(1, len(ends))]
    return sorted(services)[len(services) // 2]


def group_figures(starts: list[float], ends: list[float], requests: int, peak: int, low: float, high: float) -> str:
    """A group's figures as a cell shows its best example (starts/ends: its first requests by end)."""
    durs = ", ".join(f"{e - s:.1f}" for s, e in zip(starts[:6], ends[:6]))
    return (f"{requests} requests in flight together (up to {peak} at once) finished one after "
            f"another, {low:.1f}-{high:.1f} s apart; durations {durs} s")


_BY_END = itemgetter(1)


class _Requests:
    """Groups gin requests whose [end - duration, end] intervals overlap, and asks of each
    group: did they complete one at a time (one slot) or together (several)?"""

    def __init__(self) -> None:
        self.count = 0
        self.groups = 0
        self.cells: dict[tuple[int, int, int, int], list] = {}  # (requests, peak, gap, share) -> GroupCell's figures
        self.pairs: dict[float, int] = {}
        self.peak = 0
        self.max_dur = 0.0
        self.alone: deque[float] = deque(maxlen=101)
        self.cluster: list[tuple[float, float, Example]] = []  # (start, end, example)
        self.cluster_end = float("-inf")
        self.last_end: float | None = None
        self.timed: deque[tuple[float | None, float, Example]] = deque(maxlen=MAX_TIMED)  # (gap before, seconds, line)
        self.spans: deque[tuple[float, float, int, Example]] = deque(maxlen=MAX_TIMED)  # (start, end, status, line)
        self.last_at: datetime | None = None  # (_end's cache)
        self.last_ts = 0.0
        self.alone_added = 0  # (_typical's cache: requests added to alone, and the count it was taken at)
        self.typical: float | None = None
        self.typical_of = 0
        # what runs read as columns add to `timed` and `spans`, made only when looked at (a later
        # run of MAX_TIMED or more replaces them all), and the single entries added after them:
        # (timed, spans), each a list of makers and entries in order
        self.deferred: tuple[list, list] | None = None

    def defer(self, which: int, count: int, make) -> None:
        """make() extends timed (which 0) or spans (1) with `count` entries, once needed (or once
        more than MAX_HELD are held)."""
        if self.deferred is None:
            self.deferred = ([], [])
        makers = self.deferred[which]
        if count >= MAX_TIMED:
            makers.clear()
        makers.append(make)
        if sum(type(x) is not tuple for items in self.deferred for x in items) > MAX_HELD:  # (settle's test)
            self.settle()

    def _later(self, timed: tuple | None, span: tuple) -> None:
        """One request's entries, after deferred ones (settled once they are many)."""
        deferred = self.deferred
        if timed is not None:
            deferred[0].append(timed)
        deferred[1].append(span)
        if len(deferred[1]) > 2 * MAX_TIMED:
            self.settle()

    def settle(self) -> None:
        deferred, self.deferred = self.deferred, None
        for items, kept in zip(deferred, (self.timed, self.spans)):
            for item in items:
                if type(item) is tuple:
                    kept.append(item)
                else:
                    item()

    def _end(self, at: datetime) -> float:
        """at.timestamp(), once for the lines of one second (a local-time conversion each)."""
        if at is not self.last_at:
            self.last_at, self.last_ts = None, at.timestamp()  # (raises before either is kept)
            self.last_at = at
        return self.last_ts

    def add(self, end: float, seconds: float, status: int, ex) -> None:
        """A request that completed at `end` (unix seconds) after `seconds`."""
        self.count += 1
        if seconds > self.max_dur:
            self.max_dur = seconds
        start = end - seconds
        last_end = self.last_end
        if self.deferred is None:
            self.timed.append((None if last_end is None else start - last_end, seconds, ex))
            self.spans.append((start, end, status, ex))
        else:
            self._later((None if last_end is None else start - last_end, seconds, ex), (start, end, status, ex))
        if last_end is None or end > last_end:
            self.last_end = end
        # gin prints whole seconds: count as overlap only what exceeds that resolution
        cluster = self.cluster
        if cluster and start < self.cluster_end - 1.0 and len(cluster) < MAX_CLUSTER:
            cluster.append((start, end, ex))
            if end > self.cluster_end:
                self.cluster_end = end
        else:
            self._close()
            self.cluster = [(start, end, ex)]
            self.cluster_end = end

    def add_failed(self, end: float, seconds: float, status: int, ex) -> None:
        """A failed request only joins the spans (a client deadline shows there), not the timings."""
        if self.deferred is None:
            self.spans.append((end - seconds, end, status, ex))
        else:
            self._later(None, (end - seconds, end, status, ex))

    def _typical(self) -> float | None:
        """The median of the last requests that had the server alone (sorted again only after
        one was added: a busy log closes a group every few lines)."""
        if self.typical_of != self.alone_added:
            vals = sorted(self.alone)
            self.typical, self.typical_of = (vals[len(vals) // 2] if vals else None), self.alone_added
        return self.typical

    def _close(self) -> None:
        c = self.cluster
        self.cluster = []
        if len(c) == 1:  # (most requests: no sort)
            self.alone.append(c[0][1] - c[0][0])
            self.alone_added += 1
            return
        if not c:
            return
        c.sort(key=_BY_END)
        self.groups += 1
        # in flight together: what overlaps by more than gin's 1 s resolution
        events = []
        for s, e, _ in c:
            if e - s > 1.0:
                events += ((s + 1.0, 1), (e, -1))
        events.sort()
        peak, cur = 1, 0
        for _, step in events:
            cur += step
            if cur > peak:
                peak = cur
        if peak > self.peak:
            self.peak = peak
        gaps = [c[i][1] - c[i - 1][1] for i in range(1, len(c))]
        typical = self._typical()
        if not typical:  # (no request had the server alone yet)
            typical = served_median([x for x, _, _ in c], [y for _, y, _ in c])
        low = min(gaps)
        if low <= 1.0:  # pairs that overlapped beyond gin's resolution and still ended within it
            pairs = sum(1 for i, gap in enumerate(gaps, 1) if gap <= 1.0 and c[i][0] < c[i - 1][1] - 1.0)
            if pairs:
                t = TYPICAL_GRID[bisect_right(TYPICAL_GRID, typical) - 1] if typical > 0 else 0.0
                self.pairs[t] = self.pairs.get(t, 0) + pairs
        key = (min(len(c), SERIAL_CAP), min(peak, SERIAL_CAP), bisect_right(GAP_GRID, low) - 1,
               share_index(low, typical))
        cells = self.cells
        cell = cells.get(key)
        if cell is None:
            if len(cells) >= MAX_SERIAL_CELLS:
                key = (key[0], key[1], key[2] // COARSE_STEP * COARSE_STEP, key[3] // COARSE_STEP * COARSE_STEP)
                cell = cells.get(key)
            if cell is None:
                cell = cells[key] = [0, 0, 0, "", ()]  # count, best peak, its order, figures, examples
        cell[0] += 1
        if peak > cell[1]:
            figures = group_figures([x for x, _, _ in c[:6]], [y for _, y, _ in c[:6]], len(c), peak, low, max(gaps))
            cell[1:] = [peak, self.groups, figures, tuple(ex for _, _, ex in c[:5])]

    def fragment(self) -> None:
        """A separate fragment of the log begins: no gap or overlap is taken across."""
        self._close()
        self.last_end, self.cluster_end = None, float("-inf")

    def frozen(self) -> RequestTiming:
        if self.deferred is not None:
            self.settle()
        self._close()
        cells = tuple(GroupCell(n, peak, GAP_GRID[gi], SHARE_GRID[si], count, best, order, figures,
                                tuple(_example(e) for e in exs))
                      for (n, peak, gi, si), (count, best, order, figures, exs) in self.cells.items())
        return RequestTiming(self.count, self.groups, self.peak, round(self.max_dur, 3), self._typical(), cells,
                             tuple(sorted(self.pairs.items())), tuple(Timed(gap, secs, _example(ex)) for gap, secs, ex in self.timed),
                             self._spans())

    def _spans(self) -> tuple:
        from llmdoctor.knowledge.concurrency import Span

        return tuple(Span(s, e, st, _example(ex)) for s, e, st, ex in self.spans)


class OllamaLogScanner:
    def __init__(self) -> None:
        self.lines = 0
        self.sources: list[str] = []
        self.version: str | None = None
        self.version_ex: Example | None = None
        self.config: dict[str, str] | None = None
        self.config_ex: Example | None = None
        self.config_count = 0
        self.config_at: datetime | None = None
        self.config_errors: list[str] = []
        self.pending_config: tuple[str, str, int] | None = None  # (text, source, lines joined)
        self.pending_estimator: tuple[str, str, int] | None = None
        self.t = {k: _Tally() for k in ("invalid_env", "load_times", "trunc", "ctx_err", "forced",
                                         "s503", "pending", "oom", "gpu_init", "evict", "expire",
                                         "compat_empty", "libdir", "busy", "unit_warn", "load_aborted")
                                         + MARKED}
        self.loads: deque[Load] = deque(maxlen=MAX_LOADS)
        self.load_count = 0
        self.current: _LoadBuilder | None = None
        self.ctx_by_model: dict[str, dict[int, int]] = {}
        self.max_load = 0.0
        self.trunc_max = 0
        self.trunc_limits: set[int] = set()
        self.startups: deque[Startup] = deque(maxlen=10)
        self.first_startup: Startup | None = None
        self.inv: list[str] = []
        self.inv_ex: list[Example] = []
        self.inv_at: datetime | None = None
        self.inv_total = 0
        self.inv_avail: int | None = 0
        self.estimator: dict[str, str] | None = None
        self.estimator_ex: Example | None = None
        self.vram_ctx: int | None = None
        self.req = _Requests()
        self.status: dict[int, int] = {}
        self.last_request: datetime | None = None
        self.last_time: datetime | None = None
        self.pending_backends: list[str] = []
        self.cpp = LlamaCppLines()
        self.sys_mem: Example | None = None
        self.sys_free: int | None = None
        self.runner_backends: tuple[str, ...] | None = None
        self.runner_backends_ex: Example | None = None
        self.runner_libs: tuple[str, ...] | None = None
        self.runner_libs_ex: Example | None = None
        self.gpu_seen: Example | None = None
        self.burst = _Burst()
        self.answers = AnswerReader()
        self.runners_count: int | None = None
        self.words = None  # the WordScan feed_region uses (made on its first region)
        self.bulk_stamp: bytes | None = None  # _gin_bulk's last `date - time`, its datetime and unix time
        self.bulk_at: datetime | None = None
        self.bulk_end: float | None = None
        self.bulk_paths: dict[bytes, bool] = {}  # a gin path: an inference request's?

    # -- feeding ---------------------------------------------------------------------
    def feed_all(self, lines: Iterable[str], source: str) -> "OllamaLogScanner":
        if source not in self.sources:
            self.sources.append(source)
        for line in lines:
            self.feed(line, source)
        self._flush_pending()
        return self

    def feed_regions(self, regions: Iterable[tuple], source: str) -> "OllamaLogScanner":
        """feed_all on (buffer, begin, end) regions of whole lines (FileSource.raw_regions)."""
        if source not in self.sources:
            self.sources.append(source)
        for buf, begin, end in regions:
            self.feed_region(buf, begin, end, source)
        self._flush_pending()
        return self

    def feed(self, raw: str, source: str) -> None:
        self.lines += 1
        self._line(raw, source)

    def feed_region(self, buf: bytes | bytearray, begin: int, end: int, source: str) -> None:
        """The lines of buf[begin:end] (whole lines, undecoded: FileSource.raw_regions), with
        the same result as feed() on each. Gin lines are found by one search of the block
        (_GIN_B) and read from their bytes (_gin_bulk: no decoding, no record per line); of the
        others only the lines that hold a SCAN_CASED or SCAN_FOLDED word (knowledge.wordscan:
        one pass of an automaton over the block) and those a wrapped line still being joined
        takes are decoded and read. Of the rest only the count and the last time stamp matter,
        and the stamp is looked for (a backward search for its words) only when a line is about
        to read it."""
        if self.words is None:
            self.words = _word_scan()
        if COLUMNS_MIN is not None and end - begin >= COLUMNS_FROM \
                and buf.count(b"GIN]", begin, min(end, begin + (1 << 16))) >= COLUMNS_MIN and _columns_ok():
            self._feed_parts(buf, begin, end, source)
            return
        data = bytes(memoryview(buf)[begin:end])
        self.lines += data.count(b"\n") + 1
        self._feed_plain(data, source)

    def _feed_plain(self, data: bytes, source: str) -> None:
        """feed_region's work on the lines of `data`, the gin lines read from their `GIN]` (found
        in the words' pass) by _GIN_B. (A later `GIN]` in a line already read is passed by, as
        it would be by _GIN_B.finditer: a match does not cross a newline.)"""
        (hits, gins), size = self.words.scan(data), len(data)
        pos, k = self._candidates(data, 0, 0, 0, hits, source)  # a wrapped line still being joined
        ansi = b"\x1b" in data  # (_GIN reads a line without its ANSI colour)
        count = len(hits)
        match = _GIN_B.match
        for at in gins:
            if at < pos:
                continue  # in a line already read
            start = data.rfind(b"\n", pos, at) + 1 or pos
            if k < count and hits[k] < start:
                pos, k = self._candidates(data, pos, k, start, hits, source)
                if at < pos:
                    continue
            pos, k = self._gin_line(data, match(data, at), start, pos, k, hits, ansi, source)
        pos, k = self._candidates(data, pos, k, size + 1, hits, source)
        if pos < size:
            self._skipped(data, pos, size)

    def _feed_parts(self, buf, begin: int, end: int, source: str) -> None:
        """feed_region's work on a block dense in gin lines, in parts of about COLUMNS_PART
        bytes (whole lines: the columns of a part are what the peak memory holds)."""
        from llmdoctor.knowledge.ollama.gin_columns import columns

        while begin <= end:
            stop = end if end - begin <= COLUMNS_PART else buf.rfind(b"\n", begin, begin + COLUMNS_PART)
            if stop < begin:  # (one line longer than a part)
                stop = buf.find(b"\n", begin + COLUMNS_PART, end)
                stop = end if stop < 0 else stop
            data = bytes(memoryview(buf)[begin:stop])
            cols = columns(data, _INFERENCE_B, _FRAGMENT_B)
            self.lines += (data.count(b"\n") if cols is None else cols.lines) + 1
            if cols is None:
                self._feed_plain(data, source)
            else:
                self._feed_columns(data, cols, source)
            begin = stop + 1

    def _feed_columns(self, data: bytes, cols, source: str) -> None:
        """feed_region's loop with the gin lines read as columns (gin_columns): a run of gin lines
        in gin's own layout with no other line to read between them is read at once (_gin_run);
        every other line as feed_region reads it."""
        import numpy as np

        size = len(data)
        hits = self._hits_between(data, cols)
        count = len(hits)
        gins, starts, stops, ok = cols.gin.tolist(), cols.start.tolist(), cols.stop.tolist(), cols.ok
        lines = len(gins)
        not_ok = np.flatnonzero(~ok)
        rank = np.cumsum(ok) - 1  # each line read here: its place in the columns
        # the hits outside every gin line: a run of gin lines stops before the next of them
        if count:
            h = np.asarray(hits)
            li = np.searchsorted(cols.start, h, "right") - 1
            inside = (li >= 0) & (h < cols.stop[np.maximum(li, 0)])
            foreign = h[~inside]
        else:
            foreign = np.zeros(0, np.int64)
        pos, k = self._candidates(data, 0, 0, 0, hits, source)  # a wrapped line still being joined
        ansi = b"\x1b" in data
        i = 0
        while i < lines:
            at, start = gins[i], starts[i]
            if at < pos:
                i += 1
                continue
            if k < count and hits[k] < start:
                pos, k = self._candidates(data, pos, k, start, hits, source)
                if at < pos:
                    i += 1
                    continue
            if ok[i]:
                b = np.searchsorted(not_ok, i)
                j = int(not_ok[b]) if b < not_ok.size else lines
                f = np.searchsorted(foreign, pos)
                if f < foreign.size:
                    j = min(j, int(np.searchsorted(cols.start, foreign[f])))
                if j - i >= COLUMNS_RUN:
                    self._gin_run(data, cols, int(rank[i]), gins[i:j], starts[i:j], stops[i:j], source)
                    pos, i = stops[j - 1] + 1, j
                    continue
            pos, k = self._gin_line(data, _GIN_B.match(data, at), start, pos, k, hits, ansi, source)
            i += 1
        pos, k = self._candidates(data, pos, k, size + 1, hits, source)
        if pos < size:
            self._skipped(data, pos, size)

    def _hits_between(self, data: bytes, cols) -> list[int]:
        """The word hits of the block (words.starts), where a hit inside a gin line is of no use
        (every gin line is read whole): where gin lines are most of the block, the automaton
        reads only the stretches between them."""
        import numpy as np

        size = len(data)
        a = np.concatenate(([0], cols.stop + 1))  # the stretches between gin lines: [a, b)
        b = np.concatenate((cols.start, [size]))
        keep = b > a
        a, b = a[keep], b[keep]
        between = int((b - a).sum())
        if between * 2 > size:
            return self.words.starts(data)
        if not between:
            return []
        joined = b"\n".join(data[x:y] for x, y in zip(a.tolist(), b.tolist()))
        hits = self.words.starts(joined)
        if not hits:
            return []
        at = np.concatenate(([0], np.cumsum(b - a + 1)[:-1]))  # each stretch's place in `joined`
        h = np.asarray(hits)
        k = np.searchsorted(at, h, "right") - 1
        return (h - at[k] + a[k]).tolist()

    def _gin_run(self, data: bytes, cols, r: int, gins: list[int], starts: list[int], stops: list[int],
                 source: str) -> None:
        """_gin_bulk on each of consecutive gin lines (where `GIN]` is in each, where each starts
        and stops), read as columns from cols' r-th on."""
        import numpy as np

        from llmdoctor.knowledge.ollama import request_batch

        n = len(gins)
        status, seconds = cols.status[r:r + n], cols.seconds[r:r + n]
        inference, end = cols.inference[r:r + n], cols.end[r:r + n]
        codes, first, counts = np.unique(status, return_index=True, return_counts=True)
        for o in np.argsort(first, kind="stable").tolist():  # (the counts' keys in the order they are met)
            code = int(codes[o])
            self.status[code] = self.status.get(code, 0) + int(counts[o])
        for x in np.flatnonzero(status == 503).tolist():
            self.t["s503"].add(source, strip_journal_prefix(data[starts[x]:stops[x]].decode("utf-8", "replace")))
        whens: dict[bytes, datetime] = {}

        def when(x: int) -> datetime:
            stamp = data[gins[x] + 5:gins[x] + 26]
            at = whens.get(stamp)
            if at is None:
                at = whens[stamp] = _stamp_time(stamp)
            return at

        def example(x: int) -> tuple:
            return (source, data[starts[x]:stops[x]])

        rows = np.flatnonzero(inference)
        if rows.size:
            fast_fail = rows[(status[rows] >= 500) & (seconds[rows] < _Burst.FAST_S)]
            for x in fast_fail.tolist():
                self.burst.add(int(status[x]), float(seconds[x]), when(x), example(x))
            timed = rows[~np.isnan(end[rows])]
            tail = timed[-MAX_TIMED:]
            self.req.defer(1, timed.size, lambda: self.req.spans.extend(
                (float(end[x] - seconds[x]), float(end[x]), int(status[x]), example(x)) for x in tail.tolist()))
            good = timed[status[timed] < 400]
            if good.size:
                request_batch.add_ok(self.req, end[good] - seconds[good], end[good], seconds[good],
                                     lambda y: example(int(good[y])), _limits())
            self.last_request = when(int(rows[-1]))
        last = n - 1
        self.bulk_stamp = data[gins[last] + 5:gins[last] + 26]
        self.bulk_at = self.last_time = when(last)
        self.bulk_end = None if np.isnan(end[last]) else float(end[last])

    def _gin_line(self, data: bytes, m, start: int, pos: int, k: int, hits: list[int], ansi: bool,
                  source: str) -> tuple[int, int]:
        """One gin line (m: _GIN_B's match in it, from `start`): from its bytes where _gin_bulk
        reads it, else decoded (_one), with the wrapped lines it may begin; (where reading
        stopped, the next hit)."""
        at = m.start()
        if m.lastindex is not None:  # (a bare `GIN]` matches no group)
            line = data[start:m.end()]
            if not (ansi and b"\x1b" in line) and self._gin_bulk(m, line, at - start, source) is not _BULK:
                return m.end() + 1, k
        stop = data.find(b"\n", at)
        pos = self._one(data, pos, start, len(data) if stop < 0 else stop, source)
        return self._candidates(data, pos, k, pos, hits, source)  # (its wrapped lines, if it began one)

    def _candidates(self, data: bytes, pos: int, k: int, limit: int, hits: list[int], source: str) -> tuple[int, int]:
        """Read the lines from `pos` on that hold a hit before `limit` (and every line while a
        wrapped line is being joined); (where reading stopped, the next hit)."""
        size = len(data)
        while pos <= size:
            if self.pending_config is not None or self.pending_estimator is not None:
                stop = data.find(b"\n", pos)
                stop = size if stop < 0 else stop  # (a wrapped line's continuation: each is read)
                self._line(data[pos:stop].decode("utf-8", "replace"), source)
                pos = stop + 1
                continue
            while k < len(hits) and hits[k] < pos:
                k += 1
            if k == len(hits) or hits[k] >= limit:
                break
            hit = hits[k]
            stop = data.find(b"\n", hit)
            pos = self._one(data, pos, data.rfind(b"\n", pos, hit) + 1 or pos, size if stop < 0 else stop, source)
        return pos, k

    def _one(self, data: bytes, pos: int, start: int, stop: int, source: str) -> int:
        """Read the line data[start:stop], the lines from `pos` to it read by nothing else;
        where the next line starts."""
        line = data[start:stop]
        if start > pos:
            if b"GIN]" in line and not line.startswith(_FRAGMENT_B):
                # a gin line reads no time: it sets one, or the lines before it do
                before, self.last_time = self.last_time, _UNSET
                self._line(line.decode("utf-8", "replace"), source)
                if self.last_time is _UNSET:
                    self.last_time = before
                    self._skipped(data, pos, start)
                return stop + 1
            self._skipped(data, pos, start)  # this line may read the time the lines before it left
        self._line(line.decode("utf-8", "replace"), source)
        return stop + 1

    def _gin_bulk(self, m, line: bytes, at: int, source: str):
        """_line on a gin line matched by _GIN_B (`at`: where `GIN]` is in it), from its bytes,
        when that is sure to read what _line would: the line starts no fragment, holds no earlier
        `GIN`, ends in no carriage return (_line strips it) and is ASCII but for the µ/μ of its
        duration (so that _GIN's classes and _GIN_B's agree; feed_region has seen to ANSI colour,
        which _GIN reads without); else _BULK, and nothing read. (A time stamp in the line is not
        looked for: _line's line_time sets last_time, and _gin sets it again, to the line's time.)"""
        if at == 0 or line[at - 1] != 91 or line[-1] == 13 or line.find(b"GIN") != at \
                or (line[0] == 45 and line.startswith(_FRAGMENT_B)):
            return _BULK
        stamp, status, whole, frac, unit, other, path = m.groups()
        if not line.isascii():
            d0, d1 = (m.start(3), m.end(5)) if whole is not None else m.span(6)
            base = m.start() - at  # (the line's start in the block)
            if not (line[:d0 - base] + line[d1 - base:]).isascii():
                return _BULK
        if stamp != self.bulk_stamp:
            when = _stamp_time(stamp)
            if when is None:
                return _BULK
            try:
                end = when.timestamp()
            except (ValueError, OverflowError, OSError):  # 0001/01/01 is before local time's range
                end = None
            self.bulk_stamp, self.bulk_at, self.bulk_end = stamp, when, end
        if whole is not None:  # _gin_seconds' sum, with one int() where the fraction is exact
            e = _GO_EXP_B[unit]
            if not frac:
                total = int(whole) * _POW10[e]
            elif len(frac) <= e:
                total = int(whole + frac) * _POW10[e - len(frac)]
            else:
                total = int(whole) * _POW10[e] + int(frac) * _POW10[e] // 10 ** len(frac)
            if total > 9223372036854775807:  # (FOREVER_NS: Go's overflow)
                return _BULK
            seconds = total / 1e9
        else:
            try:
                seconds = _gin_seconds(other.decode())
            except ValueError:
                return _BULK
        code = int(status)
        when = self.bulk_at
        self.status[code] = self.status.get(code, 0) + 1
        if code == 503:
            self.t["s503"].add(source, strip_journal_prefix(line.decode("utf-8", "replace")))
        inference = self.bulk_paths.get(path)
        if inference is None:
            inference = path.split(b"?", 1)[0] in _INFERENCE_B
            if len(self.bulk_paths) < 256:
                self.bulk_paths[path] = inference
        if inference:
            ex = (source, line)  # (an Example once kept: _example)
            self.burst.add(code, seconds, when, ex)
            end = self.bulk_end
            if end is None:
                pass
            elif code < 400:
                self.req.add(end, seconds, code, ex)
            else:
                self.req.add_failed(end, seconds, code, ex)
            self.last_request = when
        self.last_time = when
        return None

    def _skipped(self, data: bytes, begin: int, end: int) -> None:
        """last_time after the lines of data[begin:end], read by nothing else: the stamp of the
        last line that has one (line_time looks for `time=` or `.go:` first)."""
        hi = end
        while hi > begin:
            i = max(data.rfind(b"time=", begin, hi), data.rfind(b".go:", begin, hi))
            if i < 0:
                return
            start = data.rfind(b"\n", begin, i) + 1 or begin
            stop = data.find(b"\n", i, hi)
            raw = data[start:hi if stop < 0 else stop].decode("utf-8", "replace").rstrip("\r\n")
            at = line_time(strip_journal_prefix(raw))
            if at is not None:
                self.last_time = at
                return
            hi = start

    def _line(self, raw: str, source: str) -> None:
        raw = raw.rstrip("\r\n")
        if raw.startswith(FRAGMENT):  # pasted apart: no idle gap or interval across it
            self._flush_pending()
            self.answers.close()
            self.req.fragment()
            self.last_request = self.last_time = None
            return
        text = strip_journal_prefix(raw)
        if self.pending_config is not None:
            body, src, n = self.pending_config
            if cfgline.is_start(text) or n >= MAX_WRAP_LINES:
                self._finish_config(body, src)
            else:
                body = cfgline.join_wrapped(body, text)
                if cfgline.is_complete(body):
                    self._finish_config(body, src)
                else:
                    self.pending_config = (body, src, n + 1)
                return
        if self.pending_estimator is not None:
            body, src, n = self.pending_estimator
            if text[:1].isspace() and "=" in text and "msg=" not in text and n < MAX_WRAP_LINES:
                self.pending_estimator = (body.rstrip() + " " + text.strip(), src, n + 1)
                return
            self._finish_estimator(body, src)
        at = line_time(text)
        if at is not None:
            self.last_time = at
        if "[GIN]" in text or "GIN]" in text:
            self._gin(text, source)
            return
        low = text.lower()
        if cfgline.is_start(text):
            if cfgline.is_complete(text):
                self._finish_config(text, source)
            else:
                self.pending_config = (text, source, 1)
            self._new_startup(at)
            return
        for guard, pattern, handle in RULES:
            if not guard(text, low):
                continue
            m = None
            if pattern is not None:
                m = pattern.search(text)
                if m is None:
                    continue
            if handle(self, m, text, source, at):
                return

    # -- what each rule does with its line (True: the line is taken) ----------------------
    def _listening(self, m, text, source, at) -> bool:
        self.version, self.version_ex = m.group(2), Example(source, text[:MAX_LINE])
        return True

    def _inventory(self, m, text, source, at) -> bool:
        kv = key_values(text)
        lib = kv.get("library", "").lower() or ("cpu" if kv.get("id") == "cpu" else "?")
        if not self.inv and self.inv_at is None:
            self.inv_at = at
        self.inv.append(lib)
        if lib not in ("cpu", "?") and kv.get("total"):
            try:
                self.inv_total += parse_size(kv["total"])
            except ParseError:
                pass
            try:
                self.inv_avail = None if self.inv_avail is None else self.inv_avail + parse_size(kv["available"])
            except (KeyError, ParseError):
                self.inv_avail = None
        if len(self.inv_ex) < 8:
            self.inv_ex.append(Example(source, text[:MAX_LINE]))
        return True

    def _mark(self, m, text, source, at) -> bool:
        low = text.lower()
        for key in dict.fromkeys(MARKS[h.group()] for h in _MARK.finditer(low)):
            if key == "gpu_rejected" and "amdgpu" not in low and "is not supported by" in low:
                continue
            if key == "load_timeouts" and "context canceled" in low:
                continue  # the client went away (ctx.Err()), not OLLAMA_LOAD_TIMEOUT: see load_aborted
            self.t[key].add(source, text)
        return False  # counted; the rows below may read more from it

    def _estimator_start(self, m, text, source, at) -> bool:
        self.pending_estimator = (text, source, 1)
        return True

    def _scheduler_line(self, m, text, source, at) -> bool:
        return self._scheduler(text, source, at)

    def _runner_command(self, m, text, source, at) -> bool:
        cur = self.current
        if cur is not None and cur.by_scheduler and not cur.has_cmd:
            cur.examples.append(Example(source, text[:MAX_LINE]))
        else:
            cur = self._start_load(at, source, text)
        cur.has_cmd = True
        c, p, mo = _CTX.search(text), _PAR.search(text), _MODEL.search(text)
        d = cur.d
        prior = d.get("model")
        d["ctx_size"] = int(c.group(1)) if c else None
        d["parallel"] = int(p.group(1)) if p else None
        d["model"] = model_id(mo.group(1)) if mo else prior
        self._count_ctx(d["model"], d["ctx_size"])
        return True

    def _old_runner_start(self, m, text, source, at) -> bool:
        self._start_load(at, source, text)
        return True

    def _load_request(self, m, text, source, at) -> bool:
        cur = self._ensure_load(at, source, text)
        cur.d["parallel"] = int(m.group(1))
        if cur.d.get("ctx_size") is None:
            cur.d["ctx_size"] = int(m.group(2))
            self._count_ctx(cur.d.get("model"), cur.d["ctx_size"])
        return True

    def _backend(self, m, text, source, at) -> bool:
        target = self.current.backends if self.current else self.pending_backends
        if m.group(1) not in target and len(target) < 16:
            target.append(m.group(1))
        return True

    def _output_on_cpu(self, m, text, source, at) -> bool:
        cur = self._ensure_load(at, source, text, new_if=lambda b: b.d.get("offloaded") is not None)
        cur.d["output_on_cpu"] = True
        cur.examples.append(Example(source, text[:MAX_LINE]))
        return True

    def _offloaded(self, m, text, source, at) -> bool:
        cur = self._ensure_load(at, source, text, new_if=lambda b: b.d.get("offloaded") is not None)
        cur.d["offloaded"] = (int(m.group(1)), int(m.group(2)))
        cur.examples.append(Example(source, text[:MAX_LINE]))
        return True

    def _buffer(self, m, text, source, at) -> bool:
        mib = _number(m.group(3))
        if mib is None:
            return False
        cur = self._ensure_load(at, source, text)
        if m.group(2) in (None, "model"):
            cur.model_mib += mib
        if HOST_BACKENDS.match(m.group(1)):
            cur.host += mib
        else:
            cur.gpu += mib
        if len(cur.examples) < 6:
            cur.examples.append(Example(source, text[:MAX_LINE]))
        return True

    def _device_memory(self, m, text, source, at) -> bool:
        cur = self._ensure_load(at, source, text)
        try:
            size = parse_size(m.group(3))
        except ParseError:
            size = 0
        if m.group(1) == "model weights":
            if m.group(2).upper().startswith("CPU"):
                cur.hw += size
            else:
                cur.gw += size
            cur.examples.append(Example(source, text[:MAX_LINE]))
        return True

    def _started(self, m, text, source, at) -> bool:
        secs = _number(m.group(2))
        if secs is None:
            return False
        self.t["load_times"].add(source, text)
        self.max_load = max(self.max_load, secs)
        cur = self.current
        if cur is None or cur.d.get("load_seconds") is not None:
            cur = self._start_load(at, source, None)
        cur.d["load_seconds"] = secs
        cur.examples.append(Example(source, text[:MAX_LINE]))
        return True

    def _truncated(self, m, text, source, at) -> bool:
        self.t["trunc"].add(source, text)
        self.trunc_max = max(self.trunc_max, int(m.group(2)))
        if len(self.trunc_limits) < 16:
            self.trunc_limits.add(int(m.group(1)))
        return True

    def _vram_context(self, m, text, source, at) -> bool:
        self.vram_ctx = int(m.group(2))
        return True

    def _answer(self, m, text, source, at) -> bool:
        return self.answers.feed(text, source)

    def _loaded_runners(self, m, text, source, at) -> bool:
        self.runners_count = int(m.group(1))
        if self.current is not None:
            self.current.d["runners_after"] = int(m.group(1))
        return True

    def _llama_cpp(self, m, text, source, at) -> bool:
        return self.cpp.feed(text)

    # -- pieces --------------------------------------------------------------------------
    def _scheduler(self, text: str, source: str, at: datetime | None) -> bool:
        """Scheduler, discovery and runner-inventory lines; True when the line was one of them."""
        if any(e in text for e in EVICTIONS):
            self.t["evict"].add(source, text)
            return True
        if any(e in text for e in EXPIRIES):
            self.t["expire"].add(source, text)
            if "zero duration has gone idle" in text:  # keep_alive 0 (a MARKS count: this row takes the line)
                self.t["keep_alive_zero"].add(source, text)
            return True
        m = _SCHED_LOAD.search(text) if "msg=" in text else None
        if m:
            cur = self._start_load(at, source, text)
            cur.by_scheduler = True
            mo = _MODEL_ARG.search(text[m.end():])
            if mo:
                cur.d["model"] = model_id(mo.group(2))
            return True
        m = _SYS_MEM.search(text) if "system memory" in text else None
        if m:
            self.sys_mem = Example(source, text[:MAX_LINE])
            try:
                self.sys_free = parse_size(m.group(2))
            except ParseError:
                self.sys_free = None
            return True
        if "msg=system " in text:
            names = tuple(dict.fromkeys(re.findall(r"\b([A-Za-z]+)\.\d+\.", text)))
            self.runner_backends, self.runner_backends_ex = names, Example(source, text[:MAX_LINE])
            return True
        m = _RUNNERS.search(text) if "Dynamic LLM libraries" in text else None
        if m:
            self.runner_libs = tuple(m.group(1).replace(",", " ").split())
            self.runner_libs_ex = Example(source, text[:MAX_LINE])
            return True
        m = _COMPATIBLE.search(text) if "compatible gpu libraries" in text else None
        if m:
            if not m.group(1).strip():
                self.t["compat_empty"].add(source, text)
            return True
        m = _DETECTED.search(text) if "detected GPUs" in text or "inference compute" in text else None
        if m and self.gpu_seen is None and (m.group(2) or (m.group(1) and int(m.group(1)) > 0)):
            self.gpu_seen = Example(source, text[:MAX_LINE])
            return "inference compute" not in text  # the inventory line has its own reader
        return False

    def _gin(self, text: str, source: str) -> None:
        g = parse_gin(text)
        if g is None:
            return
        self.status[g.status] = self.status.get(g.status, 0) + 1
        inference = g.path.split("?", 1)[0] in INFERENCE_PATHS
        if g.status == 503:
            self.t["s503"].add(source, text)
        if inference:
            ex = Example(source, text[:MAX_LINE])  # (one record, kept in several places: compared by value)
            self.burst.add(g.status, g.seconds, g.at, ex)
            try:
                end = self.req._end(g.at)
            except (ValueError, OverflowError, OSError):  # 0001/01/01 is before local time's range
                end = None
            if end is None:
                pass
            elif g.status < 400:
                self.req.add(end, g.seconds, g.status, ex)
            else:
                self.req.add_failed(end, g.seconds, g.status, ex)
            self.last_request = g.at
        self.last_time = g.at

    def _finish_config(self, body: str, source: str) -> None:
        self.pending_config = None
        try:
            self.config = cfgline.parse_server_config(body)
            self.config_ex = Example(source, body[:8000])
            self.config_count += 1
            self.config_at = line_time(body) or self.last_time
        except ParseError as e:
            if len(self.config_errors) < 3:
                self.config_errors.append(f"unparseable server config line in {source}: {e}")

    def _finish_estimator(self, body: str, source: str) -> None:
        self.pending_estimator = None
        self.estimator = key_values(body)
        self.estimator_ex = Example(source, body[:MAX_LINE])
        lib = self.estimator.get("library", "")
        if self.gpu_seen is None and lib and lib.lower() != "cpu":
            offload = self.estimator.get("layers.offload", "")
            if not offload.isdecimal() or int(offload) > 0:
                self.gpu_seen = self.estimator_ex

    def _flush_pending(self) -> None:
        if self.pending_config is not None:
            self._finish_config(*self.pending_config[:2])
        if self.pending_estimator is not None:
            self._finish_estimator(*self.pending_estimator[:2])

    def _new_startup(self, at: datetime | None) -> None:
        self._close_startup()
        self.inv_at = at
        self.last_request = None

    def _close_startup(self) -> None:
        if self.inv:
            s = Startup(self.inv_at, tuple(dict.fromkeys(self.inv)), tuple(self.inv_ex), self.inv_total,
                        self.inv_avail if self.inv_total else None)
            if self.first_startup is None:
                self.first_startup = s
            self.startups.append(s)
        self.inv, self.inv_ex, self.inv_at, self.inv_total, self.inv_avail = [], [], None, 0, 0

    def _count_ctx(self, model: str | None, ctx: int | None) -> None:
        if ctx is None:
            return
        key = model or "?"
        if key not in self.ctx_by_model and len(self.ctx_by_model) >= MAX_MODELS:
            return
        per = self.ctx_by_model.setdefault(key, {})
        if ctx in per or len(per) < MAX_CTX_PER_MODEL:
            per[ctx] = per.get(ctx, 0) + 1

    def _start_load(self, at: datetime | None, source: str, text: str | None) -> _LoadBuilder:
        self._close_load()
        at = at or self.last_time
        idle = None
        if at is not None and self.last_request is not None:
            idle = max(0.0, (at - self.last_request).total_seconds())
        self.current = _LoadBuilder(at, idle)
        self.current.backends.extend(self.pending_backends)
        self.pending_backends = []
        if text is not None:
            self.current.examples.append(Example(source, text[:MAX_LINE]))
        self.load_count += 1
        return self.current

    def _ensure_load(self, at, source, text, new_if=None) -> _LoadBuilder:
        cur = self.current
        if cur is None or (new_if is not None and new_if(cur)):
            return self._start_load(at, source, None)
        return cur

    def _close_load(self) -> None:
        if self.current is not None:
            self.loads.append(self.current.freeze())
            self.current = None

    # -- result ----------------------------------------------------------------------------
    def summary(self) -> OllamaLogSummary:
        self._flush_pending()
        self._close_load()
        self._close_startup()
        startups = list(self.startups)
        if self.first_startup is not None and (not startups or startups[0] is not self.first_startup):
            startups.insert(0, self.first_startup)
        t = {k: v.frozen() for k, v in self.t.items()}
        self.answers.close()
        burst, burst_size = self.burst.frozen()
        return OllamaLogSummary(
            sources=tuple(self.sources), lines=self.lines, version=self.version,
            version_example=self.version_ex, server_config=self.config,
            server_config_example=self.config_ex, server_config_count=self.config_count,
            server_config_at=self.config_at,
            server_config_errors=tuple(self.config_errors), invalid_env=t["invalid_env"],
            loads=tuple(self.loads), load_count=self.load_count,
            ctx_sizes_by_model={k: dict(v) for k, v in self.ctx_by_model.items()},
            load_times=t["load_times"], max_load_seconds=self.max_load, truncations=t["trunc"],
            truncation_max_prompt=self.trunc_max, truncation_limits=tuple(sorted(self.trunc_limits)),
            context_errors=t["ctx_err"], forced_single_slot=t["forced"], status_503=t["s503"],
            max_pending=t["pending"], oom=t["oom"], gpu_init_failures=t["gpu_init"],
            startups=tuple(startups), estimator=self.estimator, estimator_example=self.estimator_ex,
            vram_default_ctx=self.vram_ctx, requests=self.req.frozen(), status_counts=dict(self.status),
            last_request_at=self.last_request, cpp=self.cpp.result(), evictions=t["evict"], expiries=t["expire"],
            system_memory=self.sys_mem, system_free_bytes=self.sys_free, runner_backends=self.runner_backends,
            runner_backends_example=self.runner_backends_ex, runner_libraries=self.runner_libs,
            runner_libraries_example=self.runner_libs_ex, gpu_libraries_empty=t["compat_empty"],
            libdir_missing=t["libdir"], unit_warnings=t["unit_warn"], gpu_seen=self.gpu_seen or self._inventory_gpu(startups), busy=t["busy"],
            fast_error_burst=burst, fast_error_burst_size=burst_size, load_aborted=t["load_aborted"],
            answers=tuple(self.answers.answers), answer_count=self.answers.count, loaded_runners=self.runners_count,
            **{k: t[k] for k in MARKED},
        )

    @staticmethod
    def _inventory_gpu(startups) -> Example | None:
        for s in startups:
            if s.has_gpu and s.examples:
                return next((e for e in s.examples if "library=cpu" not in e.line), s.examples[0])
        return None


def _has(*needles: str):
    """A guard: one of the needles is in the line as written."""
    return lambda text, low: any(n in text for n in needles)


def _has_lower(*needles: str):
    """A guard on the lower-cased line."""
    return lambda text, low: any(n in low for n in needles)


def _tally(key: str):
    """A handler that counts the line (and keeps it as an example) under `key`."""
    def handle(scanner: OllamaLogScanner, m, text: str, source: str, at) -> bool:
        scanner.t[key].add(source, text)
        return True
    return handle


def _offload_estimate(text: str, low: str) -> bool:
    return "msg=offload " in text or text.rstrip().endswith("msg=offload") or 'msg="offload to ' in text


def _marked(text: str, low: str) -> bool:
    for gate in MARK_GATES:
        if gate in low:
            return True
    return False


def _scheduler_words(text: str, low: str) -> bool:
    return "source=" in text or "msg=" in text or "evict" in text or "expir" in text


def _answer_words(text: str, low: str) -> bool:
    return any(w in text for w in ANSWER_WORDS)


def _gpu_init_words(text: str, low: str) -> bool:
    return "999" in text or "init GPU" in text or "init gpu" in low


def _always(text: str, low: str) -> bool:
    return True


# What each kind of line means, in the order lines are tried: (guard, pattern, handler).
# The guard is a cheap substring test; the pattern, when given, must match as well; the
# handler returns True when it took the line, False to let the rows below try it.
RULES: tuple = (
    (_has("Listening on"), _LISTEN, OllamaLogScanner._listening),
    (_has("inference compute"), _INVENTORY, OllamaLogScanner._inventory),
    (_offload_estimate, None, OllamaLogScanner._estimator_start),
    (_has("client connection closed before server finished loading",
          "client connection closed before llama-server finished loading"), None, _tally("load_aborted")),
    # an answer's own figures (a pasted /api/chat body, `ollama run --verbose`): knowledge/ollama/response.py
    (_answer_words, None, OllamaLogScanner._answer),
    (_has('msg="loaded runners"'), _LOADED_RUNNERS, OllamaLogScanner._loaded_runners),
    (_scheduler_words, None, OllamaLogScanner._scheduler_line),
    (_has("cmd="), _START_CMD, OllamaLogScanner._runner_command),
    # Ollama <= 0.1.1x (llm/llama.go, log.Print): no command line in the log, only the start
    (_has("llama.go:"), _OLD_RUNNER_START, OllamaLogScanner._old_runner_start),
    (_has("load request"), _LOAD_REQ, OllamaLogScanner._load_request),
    (_has("load_backend"), _BACKEND, OllamaLogScanner._backend),
    (_has("offloading output layer to CPU"), None, OllamaLogScanner._output_on_cpu),
    (_has("offloaded"), _OFFLOADED, OllamaLogScanner._offloaded),
    (_has("buffer size"), _BUFFER, OllamaLogScanner._buffer),
    (_has("device="), _DEVICE_MEM, OllamaLogScanner._device_memory),
    (_has("started in"), _STARTED, OllamaLogScanner._started),
    (_has("truncating input prompt"), _TRUNC, OllamaLogScanner._truncated),
    # (routes.go's /api/embed 400, v0.2.8-v0.11 "input length exceeds maximum context length", v0.12+
    # "input exceeds ..." / "input after truncation exceeds ...": what the client received)
    (_has_lower("prompt is longer than the context length", "input length exceeds the context length",
                "exceeds maximum context length"), None, _tally("ctx_err")),
    (_has(*_FORCED_ONE), None, _tally("forced")),
    (_has_lower("maximum pending requests exceeded"), None, _tally("pending")),
    (_has("invalid environment variable", "invalid port, using default"), None, _tally("invalid_env")),
    # systemd, in the unit's journal: it dropped an Environment= line it could not parse
    (_has("Invalid environment assignment", "Ignoring invalid environment assignment"), None, _tally("unit_warn")),
    (_has("default context"), _VRAM_CTX, OllamaLogScanner._vram_context),
    (_gpu_init_words, GPU_INIT_FAILURE, _tally("gpu_init")),
    (_has_lower("no such file", "cannot access"), _LIBDIR_MISSING, _tally("libdir")),
    (_has("llm busy - no slots available", "no slots available after"), None, _tally("busy")),
    (_always, None, OllamaLogScanner._llama_cpp),
    (_marked, None, OllamaLogScanner._mark),
    (lambda text, low: any(s in low for s in OOM_SUBSTRINGS), None, _tally("oom")),
)


def scan(lines: Iterable[str], source: str = "log") -> OllamaLogSummary:
    """Scan one stream of lines (pure; bounded memory)."""
    return OllamaLogScanner().feed_all(lines, source).summary()
