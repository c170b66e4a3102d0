"""Lines llama.cpp's own code prints, wherever it runs: the standalone llama-server, and
Ollama's runner (its embedded server before 0.30, an llama-server child from 0.30).

Both scanners feed their lines through `LlamaCppLines`, so a partial offload, a GPU
backend that found no device, a context shift or a prompt cut to the slot reads the same
in either log (knowledge/recognize.py decides whose lines they are). Formats, newest
first, from llama.cpp's sources (tools/server, src/llama-model.cpp, ggml backends) and
the real reports in tests/fixtures/realcases:

- backends: `load_backend: loaded CUDA backend from /app/libggml-cuda.so`; a GPU backend
  that finds nothing: `ggml_vulkan: No devices found.`, `ggml_cuda_init: failed to
  initialize CUDA: ...`, `warning: no usable GPU found, --gpu-layers option will be ignored`;
- offload: `load_tensors: offloaded 31/33 layers to GPU` (older `llm_load_tensors:`) and the
  `... model buffer size = X MiB` lines per backend;
- the slot's context overflowing: `slot context shift, n_keep = .., n_left = .., n_discard = ..`
  (2024: `slot context shift | n_keep = 1 ... n_ctx=4000 n_past=3999`), `input truncated,
  n_ctx = ..` (2024 server and Ollama <= 0.2: `INFO [update_slots] input truncated |
  n_ctx=2048 n_erase=14097 ...`), Ollama's own `context limit hit - shifting`;
- a request longer than the slot: `request (N tokens) exceeds the available context size
  (M tokens)`, `the request exceeds the available context size`, `input (N tokens) is larger
  than the max context size (M tokens). skipping`, `new prompt, n_ctx_slot = M, ...,
  n_prompt_tokens = N` with N > M, `context shift is disabled`;
- a shared (unified) KV pool running out: `failed to find free space in the KV cache`,
  `Context size has been exceeded`, `Input prompt is too big compared to KV size`;
- the cache cut back for a new prompt, in every build's words (`kv cache rm [N, end)`, `... memory_seq_rm
  [N, end)`), a miss where the slot's earlier holding is known (2023/2024 release lines);
- slot traffic (requests taken, all idle, deferred), --sleep-idle-seconds and router unloads,
  unified-pool purges, settings switched off at start-up (knowledge/llamacpp/catalogue.py lists
  every message with its source lines and versions);
- the prompt cache missing: `n_past = 3737, slot.prompt.tokens.size() = 38925` (only 3,737 of
  38,925 cached tokens still match), `kv cache rm [X, end)`, `forcing full prompt
  re-processing due to lack of cache data`, `erased invalidated context checkpoint (...,
  n_tokens = 12662, ..., pos_next = 10668, ...)` (checkpoints cached beyond the match).

2024 builds print some of these as JSON, one object per line (`{"msg":"slot context
shift","n_ctx":4000,...}`); `fields` reads both shapes.
"""
from __future__ import annotations

import json
import re
from collections import deque
from typing import TYPE_CHECKING

from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

if TYPE_CHECKING:  # the event records are defined when a line tells of one (events.py)
    from llmdoctor.knowledge.llamacpp.events import CacheMiss, RequestTiming, Shift

EXAMPLES = 3
KEEP_TIMINGS = 200  # the most recent timed requests

_NUM_FIELD = LazyPattern(r"\b([a-z_]\w*)\s*[=:]\s*\"?(-?\d+)\b")
BACKEND_LOADED = LazyPattern(r"load_backend: loaded (\S+) backend from (\S+)")
# Every wording a GPU backend (or the argument parser) uses to say it found nothing: Vulkan's
# `Error: No devices found.` (stderr, to b4739 at least) and `No devices found.` (GGML_LOG, b6710 on);
# CUDA's `no CUDA devices found, CUDA will be disabled` (ggml_init_cublas, b2400) and `failed to
# initialize CUDA: <error>` (ggml_cuda_init, also ROCm/MUSA); the argument parser's `not compiled
# with GPU offload support, --n-gpu-layers option will be ignored` (to b4000) and `no usable GPU
# found, --gpu-layers option will be ignored` (b4400 on); a CPU-only build given --main-gpu,
# --split-mode or --tensor-split: `llama.cpp was compiled without CUDA/SYCL[/Vulkan]. Setting ... has
# no effect` (to b3600), `... without support for GPU offload. Setting ...` (b4000 on).
NO_DEVICE = LazyPattern(
    r"ggml_vulkan: (?:Error: )?No devices found|ggml_cuda_init: failed to initialize|no usable GPU found|"
    r"no CUDA-capable device is detected|CUDA driver version is insufficient|ggml_metal_init: error|"
    r"failed to initialize (?:the )?(?:CUDA|ROCm|HIP|Vulkan|Metal|MUSA)|"
    r"no (?:CUDA|ROCm|MUSA) devices found|not compiled with GPU offload support|"
    r"compiled without (?:CUDA|support for GPU offload)\S*\. Setting", re.I)
DEVICES_FOUND = LazyPattern(r"ggml_cuda_init: found (\d+) \w+ devices|ggml_vulkan: Found (\d+) Vulkan devices|"
                            r"using device (?:CUDA|ROCm|Vulkan|MTL|SYCL|Metal)\d?\b|since a GPU device is available|"
                            r"ggml_metal_init: found device:")
OFFLOADED = LazyPattern(r"offloaded\s+(\d+)/(\d+)\s+layers to GPU")
BUFFER = LazyPattern(r"([A-Za-z_][A-Za-z0-9_]*)\s+(?:(model|KV|compute|output|RS)\s+)?buffer size\s*=\s*([\d.]+)\s*MiB")
HOST_BACKEND = LazyPattern(r"^(?:CPU(?:_\w*)?|BLAS|\w+_Host)$")
EXCEEDS = LazyPattern(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)|"
                      r"input \((\d+) tokens\) is larger than the max context size \((\d+) tokens\)")
EXCEEDS_PLAIN = ("the request exceeds the available context size", "context shift is disabled",
                 "exceed_context_size_error", "is larger than the max context size")
# `n_prompt_tokens = N` (b3761-b6710), `task.n_tokens = N` (b6925-; trace level from 2026-05)
NEW_PROMPT = LazyPattern(r"new prompt, n_ctx_slot = (\d+),.*?(?:n_prompt_tokens|task\.n_tokens) = (\d+)")
KV_FULL = ("failed to find free space in the KV cache", "Context size has been exceeded", "KV cache is full",
           "failed to decode the batch, n_batch",  # 2023: the last retry, at n_batch = 1
           "Input prompt is too big compared to KV size", "failed to find a memory slot for batch")
CACHE_MATCH = LazyPattern(r"n_past = (\d+), slot\.prompt\.tokens\.size\(\) = (\d+)")
CACHE_RM = LazyPattern(r"(?:slot (\d+) : )?kv cache rm (?:- )?\[(\d+), end\)")
# The slot's cache cut back to where the new prompt stops matching, every build's words: `kv cache rm
# [p0, end)` (2024 JSON/text: the position in a `p0` field), `kv cache rm [N, end)` (b3761-b6250),
# `n_past = M, memory_seq_rm [N, end)` (b6710), `n_tokens = M, memory_seq_rm [N, end)` (b6925-),
# `cached n_tokens = M, memory_seq_rm [N, end)` (trace, 2026).
CACHE_CUT = LazyPattern(r"(?:kv cache rm|memory_seq_rm) (?:- )?\[(\d+|p0), end\)")
RELEASED_2024 = "slot released"  # 2024 JSON/text: id_slot, n_cache_tokens
_TASK = LazyPattern(r"task (?:id = )?(\d+)")
RELEASED = LazyPattern(r"slot (\d+) released \((\d+) tokens in cache\)")  # 2023 builds
FULL_REPROCESS = "forcing full prompt re-processing"
# Builds with context checkpoints (2025-): a checkpoint past the point where the new prompt
# stops matching is dropped, one line per checkpoint; its n_tokens is what had been cached
# up to it, pos_next where processing starts again.
ERASED_CHECKPOINT = "erased invalidated context checkpoint"
_TASK_BAR = LazyPattern(r"task (\d+) \||id_task\"?[=:]\s*(\d+)")
PROMPT_EVAL = LazyPattern(r"prompt eval time\s*=\s*(\d+(?:\.\d+)?) ms /\s*(\d+) tokens")
EVAL = LazyPattern(r"(?<!prompt )eval time\s*=\s*(\d+(?:\.\d+)?) ms /\s*(\d+) (?:tokens|runs)")
# Lines counted but left for the caller too (llama-server's scanner reads launch lines itself).
TASK_STARTED = ("processing task", "is processing [task")  # b3761-, 2024 JSON `slot is processing task`, 2023
IDLE = "all slots are idle"
DEFERRED = ("defer task", "slot unavailable")  # `defer task, id = N` / `requested slot is unavailable, defer task` (debug), 2023
SLEEP = "server is entering sleeping state"  # --sleep-idle-seconds (2025-12-): the model is unloaded
WAKE = "server is exiting sleeping state"  # ... and loaded again for the request that woke it
LRU_UNLOAD = "models_max limit reached, removing LRU"  # router mode (--models-max): a model unloaded for another
# A unified KV pool short of room for a new request clears an idle slot's cached prompt (b6925-).
PURGE = LazyPattern(r"purging slot \d+ with (\d+) tokens")
# A setting asked for and switched off at start-up (b6068-): `<setting> is not supported by multimodal|this
# context|this model, it will be disabled`; per request (b7404-): `cache reuse is not supported - ignoring
# n_cache_reuse = N`.
DISABLED = LazyPattern(r"\b(ctx_shift|cache_reuse|swa_full|speculative decoding) is not supported by [\w ]+?, it will be "
                       r"disabled|cache reuse is not supported - ignoring n_cache_reuse")
_MARKS = ("eval time", "load_backend", "devices", "device", "GPU", "layers to GPU", "buffer size", "context shift",
          "truncated", "shifting", "context size", "KV", "n_past", "kv cache rm", "re-processing",
          "new prompt", "exceed", "Context size", "released", "checkpoint", "memory_seq_rm", "processing task",
          "is processing [", "slots are idle", "defer task", "slot unavailable", "sleeping state", "ggml_cuda_init",
          "memory slot", "models_max limit", "decode the batch", "compiled without", "purging slot", "is not supported")
# The marks as one alternation, searched at C speed (a Python loop over ~40 literals costs more per line).
_MARK = LazyPattern("|".join(re.escape(m) for m in sorted(_MARKS, key=len, reverse=True)))


def fields(line: str) -> dict[str, int]:
    """Integer fields of a llama.cpp line: `k = v`, `k=v`, `"k":v` (2024 JSON lines, also with
    whatever a paste left around the object: a prefix, a closing code fence)."""
    start = line.find('{"')
    if start >= 0:
        try:
            obj = json.loads(line[start:line.rfind("}") + 1])
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return {k: v for k, v in obj.items() if isinstance(v, int) and not isinstance(v, bool)}
    return {k: int(v) for k, v in _NUM_FIELD.findall(line) if len(v) < 12}


@record
class LlamaCppFacts(Record):
    """What llama.cpp's own lines said (in llama-server's log or Ollama's runner's). (A record,
    llmdoctor.model.record, never replace()d: a frozen dataclass costs ~2 ms of start-up to define.)"""

    backends: tuple[str, ...] = ()  # backends loaded (load_backend), in order
    no_device: tuple[str, ...] = ()  # lines saying a GPU backend found no usable device
    devices_found: int = 0  # lines naming a GPU device in use
    offloaded: tuple[int, int] | None = None  # last "offloaded N/M layers to GPU"
    offload_line: str | None = None
    host_buffer_mib: float = 0.0  # model weights in host memory (last load)
    gpu_buffer_mib: float = 0.0
    buffer_lines: tuple[str, ...] = ()
    shifts: tuple[Shift, ...] = ()  # first and last few
    shift_count: int = 0
    exceeded: tuple[str, ...] = ()  # requests longer than the slot context (examples)
    exceeded_count: int = 0
    exceeded_max: tuple[int, int] | None = None  # (request tokens, context tokens) of the largest
    kv_full: tuple[str, ...] = ()
    kv_full_count: int = 0
    cache_misses: tuple[CacheMiss, ...] = ()
    cache_miss_count: int = 0
    worst_miss: CacheMiss | None = None  # the most tokens re-processed
    timings: tuple[RequestTiming, ...] = ()  # the most recent timed requests
    requests_timed: int = 0
    prompt_ms_total: float = 0.0
    eval_ms_total: float = 0.0
    prompt_evals: int = 0  # `prompt eval time` lines, paired with their `eval time` or not
    cache_cuts: int = 0  # requests whose cached prompt was cut back (`kv cache rm`/`memory_seq_rm`)
    cache_cuts_to_zero: int = 0  # ... to position 0: nothing of the cache reused
    checkpoints_erased: int = 0  # context checkpoints dropped (any wording)
    tasks_started: int = 0  # a slot took a request (`processing task`, every build's words)
    idle_lines: int = 0  # `all slots are idle`
    deferred: int = 0  # requests that waited for a slot (debug-level in current builds)
    sleeps: int = 0  # --sleep-idle-seconds unloaded the model
    wakes: int = 0  # ... and a request loaded it again
    lru_unloads: int = 0  # router mode unloaded a model to make room for another
    deferred_lines: tuple[str, ...] = ()  # the first and the latest
    unload_lines: tuple[str, ...] = ()  # sleep, wake and LRU lines: the first and the latest
    slot_purges: int = 0  # idle slots' cached prompts cleared for room in a unified pool
    purge_lines: tuple[str, ...] = ()
    disabled_settings: tuple[tuple[str, str], ...] = ()  # (setting, the line): asked for, switched off at start-up

    def prefill_dominates(self, min_requests: int = 3, share: float = 0.5) -> tuple[float, RequestTiming] | None:
        """(share of request time spent evaluating prompts, the slowest prompt) when prompt
        evaluation took at least `share` of it over at least `min_requests` timed requests."""
        total = self.prompt_ms_total + self.eval_ms_total
        if self.requests_timed < min_requests or total <= 0 or self.prompt_ms_total / total < share:
            return None
        return self.prompt_ms_total / total, max(self.timings, key=lambda t: t.prompt_ms)

    @property
    def gpu_backend(self) -> str | None:
        return next((b for b in self.backends if not HOST_BACKEND.match(b) and b.upper() not in ("RPC",)), None)


class _Examples:
    __slots__ = ("count", "items")

    def __init__(self) -> None:
        self.count = 0
        self.items: deque = deque(maxlen=EXAMPLES)

    def add(self, item) -> None:
        self.count += 1
        if self.count <= EXAMPLES or len(self.items) < EXAMPLES:
            self.items.append(item)
        else:
            self.items[-1] = item  # keep the first ones and the latest


class LlamaCppLines:
    """Feed stripped lines; `feed` says whether the line was one of llama.cpp's."""

    def __init__(self) -> None:
        self.backends: list[str] = []
        self.no_device = _Examples()
        self.devices = 0
        self.offloaded: tuple[int, int] | None = None
        self.offload_line: str | None = None
        self.host_mib = self.gpu_mib = 0.0
        self.buffer_lines: list[str] = []
        self.shifts = _Examples()
        self.exceeded = _Examples()
        self.exceeded_max: tuple[int, int] | None = None
        self.kv_full = _Examples()
        self.misses = _Examples()
        self.worst: CacheMiss | None = None
        self._cached: dict[str, int] = {}  # slot -> tokens it held when released (2023 builds)
        self._erased: dict[str, CacheMiss] = {}  # task -> its furthest checkpoint dropped
        self._last_task: str | None = None  # of the last request refused
        self.timings: deque[RequestTiming] = deque(maxlen=KEEP_TIMINGS)
        self._pending: dict[str, RequestTiming] = {}
        self.requests = 0
        self.prompt_ms = self.eval_ms = 0.0
        self.prompt_evals = self.cuts = self.cuts_zero = self.erased_lines = 0
        self.started = self.idle = self.sleeps = self.wakes = self.lru = 0
        self.deferred = _Examples()
        self.unloads = _Examples()
        self.purges = _Examples()
        self.disabled: dict[str, str] = {}

    def feed(self, line: str) -> bool:
        if _MARK.search(line) is None:
            return False
        text = line.strip()[:400]
        if self._counted(line):
            return False  # counted; the caller may read the line too
        if "sleeping state" in line or LRU_UNLOAD in line:
            if SLEEP in line:
                self.sleeps += 1
            elif WAKE in line:
                self.wakes += 1
            elif LRU_UNLOAD in line:
                self.lru += 1
            else:
                return False
            self.unloads.add(text)
            return True
        if "eval time" in line:
            self._timing(line, text)
            return True
        m = BACKEND_LOADED.search(line)
        if m:
            if m.group(1) not in self.backends and len(self.backends) < 16:
                self.backends.append(m.group(1))
            return True
        if NO_DEVICE.search(line):
            self.no_device.add(text)
            return True
        if DEVICES_FOUND.search(line):
            self.devices += 1
            return True
        m = OFFLOADED.search(line)
        if m:
            self.offloaded, self.offload_line = (int(m.group(1)), int(m.group(2))), text
            self.host_mib = self.gpu_mib = 0.0  # a new load: its buffers follow
            self.buffer_lines = []
            return True
        m = BUFFER.search(line) if "buffer size" in line else None
        if m and m.group(2) not in (None, "model") and not HOST_BACKEND.match(m.group(1)):
            self.devices += 1  # a KV or compute buffer on a GPU: there is one, whatever the weights do
            return False
        if m and m.group(2) in (None, "model"):
            try:
                mib = float(m.group(3))
            except ValueError:
                return True
            if HOST_BACKEND.match(m.group(1)):
                self.host_mib += mib
            else:
                self.gpu_mib += mib
            if len(self.buffer_lines) < 4:
                self.buffer_lines.append(text)
            return True
        if "context shift" in line and ("n_discard" in line or "n_keep" in line) and "new prompt" not in line \
                or "context limit hit - shifting" in line:
            from llmdoctor.knowledge.llamacpp.events import Shift

            f = fields(line)
            self.shifts.add(Shift("shift", f.get("n_ctx") or f.get("limit"), f.get("n_discard") or f.get("discard"), text))
            return True
        if "input truncated" in line:
            from llmdoctor.knowledge.llamacpp.events import Shift

            f = fields(line)
            self.shifts.add(Shift("truncated", f.get("n_ctx"), f.get("n_erase") or f.get("n_discard"), text))
            return True
        if "truncated = 1" in line and "stop processing" in line:  # the slot shifted or cut this request (b3761-)
            from llmdoctor.knowledge.llamacpp.events import Shift

            self.shifts.add(Shift("released", None, None, text))
            return True
        if any(k in line for k in KV_FULL):
            self.kv_full.add(text)
            return True
        m = EXCEEDS.search(line)
        if m:
            req, ctx = (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)), int(m.group(4)))
            self._exceeded(text, req, ctx)
            return True
        m = NEW_PROMPT.search(line)
        if m:
            ctx, req = int(m.group(1)), int(m.group(2))
            if req > ctx:
                self._exceeded(text, req, ctx)
            return True
        if any(k in line for k in EXCEEDS_PLAIN):
            self._exceeded(text, None, None)
            return True
        m = CACHE_MATCH.search(line)
        if m:
            from llmdoctor.knowledge.llamacpp.events import CacheMiss

            self._miss(CacheMiss(int(m.group(2)), int(m.group(1)), text))
            return True
        m = CACHE_CUT.search(line)
        if m:
            self._cache_cut(line, text, m.group(1))
            return True
        m = RELEASED.search(line)
        if m:
            self._cached[m.group(1)] = int(m.group(2))
            return True
        if RELEASED_2024 in line:
            f = fields(line)
            if "id_slot" in f and "n_cache_tokens" in f:
                self._cached[str(f["id_slot"])] = f["n_cache_tokens"]
                return True
        if "purging slot" in line and PURGE.search(line):
            self.purges.add(text)
            return True
        if "is not supported" in line:
            m = DISABLED.search(line)
            if m:
                setting = (m.group(1) or "cache_reuse").replace(" ", "_")
                if setting not in self.disabled and len(self.disabled) < 8:
                    self.disabled[setting] = text
                return True
        if FULL_REPROCESS in line:
            from llmdoctor.knowledge.llamacpp.events import CacheMiss

            self._miss(CacheMiss(None, 0, text))
            return True
        if ERASED_CHECKPOINT in line:
            self._erased_checkpoint(line, text)
            return True
        return False

    def _counted(self, line: str) -> bool:
        """Slot traffic, counted only: a request taken, all slots idle, a request deferred."""
        if any(k in line for k in TASK_STARTED):
            if "processing task, id =" in line:
                return False  # the queue's debug line for the same request
            self.started += 1
        elif IDLE in line:
            self.idle += 1
        elif any(k in line for k in DEFERRED):
            self.deferred.add(line.strip()[:400])
        else:
            return False
        return True

    def _cache_cut(self, line: str, text: str, at: str) -> None:
        """A request's cached prompt cut back to where it stops matching. Against what the slot
        held when it was released (2023 `slot N released (M tokens in cache)`, 2024 `slot released`
        with `n_cache_tokens`) the cut is a miss; later builds name no such count, so their cuts
        are counted only (a fresh slot is cut at 0 too)."""
        f = fields(line) if at == "p0" or "id_slot" in line else {}
        pos = f.get("p0") if at == "p0" else int(at)
        if pos is None:
            return
        self.cuts += 1
        self.cuts_zero += pos == 0
        old = CACHE_RM.search(line)
        slot = old.group(1) if old and old.group(1) else (str(f["id_slot"]) if "id_slot" in f else None)
        cached = self._cached.pop(slot, None) if slot is not None else None
        if cached is not None:  # a fresh slot prints [0, end) too: a miss only against a known cache
            from llmdoctor.knowledge.llamacpp.events import CacheMiss

            self._miss(CacheMiss(cached, pos, text))

    def _erased_checkpoint(self, line: str, text: str) -> None:
        """One miss per request, however many checkpoints it dropped: the furthest one says
        how much of the cached prompt had to be computed again (at least)."""
        self.erased_lines += 1
        f = fields(line)
        if "n_tokens" not in f or "pos_next" not in f:
            return  # older wording without the restart position: no figure to read
        t = _TASK_BAR.search(line)
        task = (t.group(1) or t.group(2)) if t else "?"
        from llmdoctor.knowledge.llamacpp.events import CacheMiss

        miss = CacheMiss(f["n_tokens"], f["pos_next"], text)
        held = self._erased.get(task)
        if held is None or (miss.cached or 0) > (held.cached or 0):
            if len(self._erased) > 64 and held is None:
                self._flush_erased()
            self._erased[task] = miss

    def _flush_erased(self) -> None:
        for miss in self._erased.values():
            self._miss(miss)
        self._erased.clear()

    def _timing(self, line: str, text: str) -> None:
        """Pair a request's `prompt eval time` line with its `eval time` line (by task)."""
        from llmdoctor.knowledge.llamacpp.events import RequestTiming

        t = _TASK_BAR.search(line)
        task = (t.group(1) or t.group(2)) if t else "?"
        m = PROMPT_EVAL.search(line)
        if m:
            self.prompt_evals += 1
            if len(self._pending) > 64:
                self._pending.clear()
            self._pending[task] = RequestTiming(task, float(m.group(1)), int(m.group(2)), text=text)
            return
        m = EVAL.search(line)
        if m and task in self._pending:
            p = self._pending.pop(task)
            done = RequestTiming(p.task, p.prompt_ms, p.prompt_tokens, float(m.group(1)), int(m.group(2)), p.text)
            self.timings.append(done)
            self.requests += 1
            self.prompt_ms += done.prompt_ms
            self.eval_ms += done.eval_ms or 0.0

    def _exceeded(self, text: str, req: int | None, ctx: int | None) -> None:
        if self.exceeded.items and self.exceeded.items[-1] == text:
            return  # the same error echoed to the client stream
        task = _TASK.search(text)
        if task is not None:
            if task.group(1) == self._last_task:
                if req is not None and ctx is not None and self.exceeded_max is None:
                    self.exceeded_max = (req, ctx)
                return  # the same request: its "new prompt" line, then its error
            self._last_task = task.group(1)
        self.exceeded.add(text)
        if req is not None and ctx is not None and (self.exceeded_max is None or req > self.exceeded_max[0]):
            self.exceeded_max = (req, ctx)

    def _miss(self, miss: CacheMiss) -> None:
        self.misses.add(miss)
        lost = (miss.cached - miss.matched) if miss.cached is not None else None
        if self.worst is None or (lost or 0) > ((self.worst.cached or 0) - self.worst.matched):
            self.worst = miss

    def result(self) -> LlamaCppFacts:
        self._flush_erased()
        return LlamaCppFacts(
            backends=tuple(self.backends), no_device=tuple(self.no_device.items), devices_found=self.devices,
            offloaded=self.offloaded, offload_line=self.offload_line, host_buffer_mib=round(self.host_mib, 2),
            gpu_buffer_mib=round(self.gpu_mib, 2), buffer_lines=tuple(self.buffer_lines),
            shifts=tuple(self.shifts.items), shift_count=self.shifts.count,
            exceeded=tuple(self.exceeded.items), exceeded_count=self.exceeded.count, exceeded_max=self.exceeded_max,
            kv_full=tuple(self.kv_full.items), kv_full_count=self.kv_full.count,
            cache_misses=tuple(self.misses.items), cache_miss_count=self.misses.count, worst_miss=self.worst,
            timings=tuple(self.timings), requests_timed=self.requests, prompt_ms_total=self.prompt_ms,
            eval_ms_total=self.eval_ms, prompt_evals=self.prompt_evals, cache_cuts=self.cuts,
            cache_cuts_to_zero=self.cuts_zero, checkpoints_erased=self.erased_lines, tasks_started=self.started,
            idle_lines=self.idle, deferred=self.deferred.count, sleeps=self.sleeps, wakes=self.wakes, lru_unloads=self.lru,
            deferred_lines=tuple(self.deferred.items), unload_lines=tuple(self.unloads.items),
            slot_purges=self.purges.count, purge_lines=tuple(self.purges.items),
            disabled_settings=tuple(self.disabled.items()))
