"""Parsers for llama-server start-up and request log lines (§6.3).

Start-up tells how the context is shared between slots: `n_slots`, each slot's context
(`n_ctx_slot = `, `new slot, n_ctx = `, `new slot n_ctx_slot = `), `n_ctx_seq` (older:
`n_ctx_per_seq`), `kv_unified`, and the warning `n_ctx_seq (X) < n_ctx_train (Y)`.
Requests leave `print_timing` lines (prompt eval time vs eval time) and, when a prompt
does not fit, a context-exceeded error. Lines may carry `50.10.605.986 I` timestamps,
journald prefixes or `srv`/`slot` tags, so all patterns match substrings.
"""
from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING, Iterable

from llmdoctor.knowledge.llamacpp.lines import LlamaCppFacts, LlamaCppLines  # noqa: F401 (re-exported)
from llmdoctor.knowledge.evidence_line import short_line
from llmdoctor.knowledge.pasted import FRAGMENT
from llmdoctor.model import Record, record
from llmdoctor.parsing import LazyPattern

if TYPE_CHECKING:
    from llmdoctor.knowledge.llamacpp.events import RequestTiming

# `n_slots = 4` / `n_ctx_slot = 2048`; the 2024 server's (and forks') `name=value` text form
# (`INFO [ init] new slot | tid="…" timestamp=… id_slot=0 n_ctx_slot=2560`) and its JSON form
_N_SLOTS = LazyPattern(r'n_slots(?: = |=|":\s*)(\d+)')
_SLOT_CTX = LazyPattern(r'(?:n_ctx_slot(?: = |=|":\s*)|new slot,? n_ctx(?:_slot)? = |-> Slot \d+ - max context: )(\d+)')
_KV_UNIFIED = LazyPattern(r"kv_unified\s*=\s*'?(true|false|1|0)'?")
# The context's own lines come from the function that builds it: llama_new_context_with_model (to
# ~b4500), llama_init_from_model (~b4500-b4800), the llama_context constructor (later).
_CTX_FUNC = r"(?:llama_context|llama_new_context_with_model|llama_init_from_model)"
_N_CTX = LazyPattern(_CTX_FUNC + r":\s+n_ctx\s*=\s*(\d+)")
_N_CTX_SEQ = LazyPattern(_CTX_FUNC + r":\s+n_ctx_(?:seq|per_seq)\s*=\s*(\d+)")
_N_SEQ_MAX = LazyPattern(r"n_seq_max\s*=\s*(\d+)")
_CTX_WARN = LazyPattern(r"n_ctx_(?:seq|per_seq) \((\d+)\) ([<>]) n_ctx_train \((\d+)\)")
# `build: N (commit) with CC for TARGET` (common/common.cpp:401 @ b4747, :370 @ b6710); before it
# `main: build = N (commit)` (common/common.h:30 @ b2000, the 2023-2024 servers' print_build_info)
_BUILD = LazyPattern(r"\bbuild(?::| =) (\d+) \(")
_N_CTX_TRAIN = LazyPattern(r"(?:print_info|llm_load_print_meta): n_ctx_train\s*=\s*(\d+)")
_KV_BUFFER = LazyPattern(r"(\S+) KV buffer size =\s*(\d+(?:\.\d+)?) MiB")
# The KV cache's total: `KV self size  = X MiB, K (f16): ...` (to ~b5100, printed by the context),
# `llama_kv_cache_unified: size = X MiB ( N cells, L layers, s/S seqs), ...` (b5xxx-b6xxx) and
# `llama_kv_cache: size = ...` (later).
_KV_SIZE = LazyPattern(r"llama_kv_cache\w*: size =\s*(\d+(?:\.\d+)?) MiB \(\s*(\d+) cells,\s*(\d+) layers,\s*(\d+)/\s*(\d+) seqs\)|"
                       r"KV self size\s*=\s*(\d+(?:\.\d+)?) MiB")
# No --parallel given (b7xxx-): four slots sharing one unified KV pool. b7274 `setting n_parallel = 4
# and kv_unified = true (add -kvu to disable this)`; later `n_parallel is set to auto, using n_parallel = 4 ...`.
_AUTO_PARALLEL = LazyPattern(r"(?:setting|using) n_parallel = (\d+) and kv_unified = true")
# b7xxx-: a slot asked for more than the model was trained on is cut to it.
# --fit (on by default from b7482) shrank a context that was not given (-c 0 / none) to fit free memory:
# `llama_params_fit_impl: context size reduced from 262144 to 40960 -> need ...` (info; trace from 2026-05).
_FIT_CTX = LazyPattern(r"context size reduced from (\d+) to (\d+)")
_SLOT_CAP = LazyPattern(r"the slot context \((\d+)\) exceeds the training context of the model \((\d+)\)")
_SLOT_ID = LazyPattern(r"id\s+(\d+) \| task -?\d+ \| new slot|-> Slot (\d+) - max context")  # (the 2023 server: ` -> Slot 0 - max context: 2048`)
_LAUNCH_CTX = LazyPattern(r'"n_ctx":(\d+)')
_STAMP = LazyPattern(r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) [IWEDT] ")  # minutes.seconds.ms.us since start
_LAUNCH = LazyPattern(r"slot launch_slot_: id\s+(\d+) \| task (\d+)")
_RELEASE = LazyPattern(r"slot\s+release: id\s+(\d+) \| task (\d+)")
# A launch onto a slot that was freed earlier while every other slot was busy is reported with the
# seconds since that release (how soon is a request that waited: judge/llamacpp.py queued_launches).
# The first launch within any cut-off is one whose gap is shorter than every earlier one's: these
# record lows are kept with their lines, the latest REUSE_LOWS_MAX of them (the smallest gaps).
REUSE_LOWS_MAX = 16
_JSON_SLOTS = LazyPattern(r'"n_idle_slots":\s*(\d+),\s*"n_processing_slots":\s*(\d+)')


# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class ContextExceeded(Record):
    request_tokens: int
    context_tokens: int
    text: str


@record
class LlamaLogSummary(Record):
    source: str
    n_slots: int | None = None
    slot_n_ctx: int | None = None  # per-slot context of the last start-up
    slots_line: str | None = None
    n_ctx: int | None = None
    n_ctx_seq: int | None = None
    n_seq_max: int | None = None
    kv_unified: bool | None = None
    n_ctx_train: int | None = None
    ctx_warning: str | None = None
    kv_buffers_mib: tuple[tuple[str, float], ...] = ()
    kv_size_line: str | None = None
    startups: int = 0
    slot_ctx_lines: int = 0  # `new slot, n_ctx = N` lines of the last start-up (one per slot)
    cpp: LlamaCppFacts = LlamaCppFacts()  # llama.cpp's own lines: backends, offload, shifts, refusals
    lines: int = 0  # lines read
    # each launch onto a slot freed earlier, every other slot busy: seconds since that release
    reuse_gaps: tuple[float, ...] = ()
    # (gap, release line, launch line) of the launches whose gap was shorter than every earlier one's
    reuse_lows: tuple[tuple[float, str, str], ...] = ()
    kv_size_mib: float | None = None  # the KV cache's total (last start-up)
    auto_parallel: int | None = None  # slots chosen by the server itself (no --parallel), unified KV
    slot_capped: tuple[int, int] | None = None  # (asked, kept): a slot context cut to the training context
    fit_ctx: tuple[int, int] | None = None  # (the model's, the one chosen): --fit shrank the context to fit memory
    fit_line: str | None = None
    build: int | None = None  # LLAMA_BUILD_NUMBER of `build: N (commit) with ...` (its flags depend on it)

    @property
    def timings(self) -> tuple[RequestTiming, ...]:
        return self.cpp.timings

    @property
    def requests_timed(self) -> int:
        return self.cpp.requests_timed

    @property
    def prompt_ms_total(self) -> float:
        return self.cpp.prompt_ms_total

    @property
    def eval_ms_total(self) -> float:
        return self.cpp.eval_ms_total

    @property
    def context_exceeded(self) -> int:
        return self.cpp.exceeded_count

    @property
    def context_exceeded_examples(self) -> tuple[ContextExceeded, ...]:
        req, ctx = self.cpp.exceeded_max or (0, 0)
        return tuple(ContextExceeded(req, ctx, text) for text in self.cpp.exceeded)

    @property
    def empty(self) -> bool:
        c = self.cpp
        return not (self.n_slots or self.slot_n_ctx or self.n_ctx or c.requests_timed or c.exceeded_count
                    or c.backends or c.no_device or c.offloaded or c.shift_count or c.kv_full_count
                    or c.cache_miss_count)

    def summary(self) -> list[tuple[str, str]]:
        out = []
        if self.n_slots:
            out.append(("llama-server slots", f"{self.n_slots} × {self.slot_n_ctx or '?'} tokens"
                                              + (f", kv_unified={str(self.kv_unified).lower()}" if self.kv_unified is not None else "")))
        return out


_MARKS = ("build: ", "build = ", "n_slots", "n_ctx", "kv_unified", "n_seq_max", "KV buffer", "llama_kv_cache", "KV self size", "launch_slot_",
          "release:", "launching slot", "n_idle_slots", "training context", "max context",
          "context size reduced")
_MARK = LazyPattern("|".join(re.escape(m) for m in _MARKS))  # one C-speed search, not a loop of `in` tests


class LlamaLogScanner:
    def __init__(self, source: str = "server.log") -> None:
        self.source = source
        self.v: dict = {"kv_buffers_mib": {}}
        self.startups = 0
        self._max_slot_id = -1
        self._slot_ctx_lines = 0
        self.cpp = LlamaCppLines()
        self.lines = 0
        self._busy: set[str] = set()
        self._freed: dict[str, tuple[float, str]] = {}  # slot -> (when, the release line)
        self.reuse_gaps: list[float] = []
        self.reuse_lows: deque[tuple[float, str, str]] = deque(maxlen=REUSE_LOWS_MAX)

    def feed_line(self, line: str) -> None:
        self.lines += 1
        if line.startswith(FRAGMENT):  # pasted apart: no slot is taken back-to-back across it
            self._freed.clear()
            self._busy.clear()
            return
        if self.cpp.feed(line):
            return
        if _MARK.search(line) is None:
            return
        if "launch_slot_" in line or "release:" in line:
            self._slot_event(line)
            if "launching slot" not in line:  # (2024: that line also names the slot's n_ctx)
                return
        m = _JSON_SLOTS.search(line) if "n_idle_slots" in line else None
        if m:
            self.v.setdefault("n_slots", int(m.group(1)) + int(m.group(2)))
            self.v.setdefault("slots_line", short_line(line))
            return
        v = self.v
        m = _BUILD.search(line) if "build" in line else None
        if m:
            v["build"] = int(m.group(1))
            return
        m = _N_SLOTS.search(line)
        if m:
            self.startups += 1
            v.update(n_slots=int(m.group(1)), slot_n_ctx=None, slots_line=short_line(line))
            self._max_slot_id = -1
            self._slot_ctx_lines = 0
            v["kv_buffers_mib"] = {}
        m = _SLOT_CTX.search(line) or (_LAUNCH_CTX.search(line) if "launching slot" in line else None)
        if m:
            v["slot_n_ctx"] = int(m.group(1))
            v.setdefault("slots_line", short_line(line))
            i = _SLOT_ID.search(line)
            if i and "n_slots =" not in line:  # no n_slots line (timestamped builds, 2023): count the slots
                slot = int(i.group(1) or i.group(2))
                if slot == 0:
                    self._slot_ctx_lines = 0  # a new start-up
                self._max_slot_id = max(self._max_slot_id, slot)
                self._slot_ctx_lines += 1
        m = _KV_UNIFIED.search(line)
        if m:
            v["kv_unified"] = m.group(1) in ("true", "1")
        for rx, key in ((_N_CTX, "n_ctx"), (_N_CTX_SEQ, "n_ctx_seq"), (_N_SEQ_MAX, "n_seq_max"), (_N_CTX_TRAIN, "n_ctx_train")):
            m = rx.search(line)
            if m:
                v[key] = int(m.group(1))
        m = _CTX_WARN.search(line)
        if m:
            if m.group(2) == "<":
                v["ctx_warning"] = short_line(line)
            v["n_ctx_train"] = int(m.group(3))
            v.setdefault("n_ctx_seq", int(m.group(1)))
        m = _KV_BUFFER.search(line)
        if m:
            v["kv_buffers_mib"][m.group(1)] = float(m.group(2))
        m = _KV_SIZE.search(line) if "size" in line else None
        if m:
            v["kv_size_line"] = short_line(line)
            v["kv_size_mib"] = float(m.group(1) or m.group(6))
        m = _AUTO_PARALLEL.search(line) if "n_parallel" in line else None
        if m:
            v["auto_parallel"] = int(m.group(1))
            v["kv_unified"] = True
            v.setdefault("n_slots", int(m.group(1)))
        m = _FIT_CTX.search(line) if "context size reduced" in line else None
        if m:
            v["fit_ctx"], v["fit_line"] = (int(m.group(1)), int(m.group(2))), short_line(line)
        m = _SLOT_CAP.search(line) if "training context" in line else None
        if m:
            v["slot_capped"] = (int(m.group(1)), int(m.group(2)))
            v["n_ctx_train"] = int(m.group(2))

    def _slot_event(self, line: str) -> None:
        """A slot released, or taken: when taken while every other slot was busy, how long
        after its release (a request that waited takes it at once)."""
        t = _STAMP.match(line)
        if t is None:
            return  # without time stamps (Ollama's child, --no-log-timestamps) nothing can be said
        at = int(t.group(1)) * 60 + int(t.group(2)) + int(t.group(3)) / 1e3 + int(t.group(4)) / 1e6
        m = _RELEASE.search(line)
        if m:
            self._busy.discard(m.group(1))
            self._freed[m.group(1)] = (at, short_line(line))
            return
        m = _LAUNCH.search(line)
        if not m:
            return
        slot = m.group(1)
        freed = self._freed.pop(slot, None)
        slots = self.v.get("n_slots")
        gap = at - freed[0] if freed is not None else -1.0
        if gap >= 0 and slots and len(self._busy) >= slots - 1:  # (a negative gap: the clock restarted)
            self.reuse_gaps.append(gap)
            if not self.reuse_lows or gap < self.reuse_lows[-1][0]:
                self.reuse_lows.append((gap, freed[1], short_line(line)))
        self._busy.add(slot)

    def feed_lines(self, lines: Iterable[str]) -> "LlamaLogScanner":
        for line in lines:
            self.feed_line(line)
        return self

    def result(self) -> LlamaLogSummary:
        v = dict(self.v)
        if "n_slots" not in v and self._max_slot_id >= 0:
            v["n_slots"] = self._max_slot_id + 1
        v["kv_buffers_mib"] = tuple(sorted(v["kv_buffers_mib"].items()))
        return LlamaLogSummary(
            source=self.source, startups=self.startups, slot_ctx_lines=self._slot_ctx_lines, cpp=self.cpp.result(),
            lines=self.lines, reuse_gaps=tuple(self.reuse_gaps), reuse_lows=tuple(self.reuse_lows), **v)


def scan_llama_lines(lines: Iterable[str], source: str = "server.log") -> LlamaLogSummary:
    return LlamaLogScanner(source).feed_lines(lines).result()
