"""Pure helpers that turn Ollama facts into the figures and fixes the checks print.

Kept out of the checks so each check stays a few lines of "if signal: finding".
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.thresholds import OLLAMA_VRAM_HELD_MIN_BYTES as VRAM_HELD_MIN_BYTES
from llmdoctor.judge.thresholds import OLLAMA_VRAM_HELD_SHARE as VRAM_HELD_SHARE
from llmdoctor.model import Evidence, Record, record
from llmdoctor.knowledge.ollama import env as envdef
if TYPE_CHECKING:  # annotations only: the log parser is imported by whoever has a log (start-up time)
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import Example, Load, OllamaLogSummary

def ev(example: Example | None, fallback_source: str = "") -> Evidence | None:
    if example is None:
        return None
    return Evidence(example.source or fallback_source, example.line)


def evs(examples) -> list[Evidence]:
    return [Evidence(e.source, e.line) for e in examples]


def config_evidence(config, name: str) -> Evidence:
    value = config.get(name)
    origin = config.origin(name)
    if origin == "server config log line" and config.server_config_line is not None:
        return Evidence(config.server_config_line.source, f"{name}:{value} (server config log line)")
    return Evidence(origin, f"{name}={value}")


# Records (llmdoctor.model.record: a dataclass's ==, hash and repr, never replace()d or copied):
# a frozen dataclass costs ~1.5 ms of start-up to define, a record ~0.1 ms.
@record
class Slots(Record):
    """How many requests Ollama serves at once (OLLAMA_NUM_PARALLEL), and how that is known."""

    count: int | None  # None = auto, decided per load
    how: str
    evidence: tuple[Evidence, ...]
    from_runner: bool = False


def last_load_with(log: OllamaLogSummary | None, attr: str) -> Load | None:
    if log is None:
        return None
    for load in reversed(log.loads):
        if getattr(load, attr) is not None:
            return load
    return None


def slots(config, log: OllamaLogSummary | None) -> Slots | None:
    """Slots per loaded model: the runner's --parallel at the last load (what really ran,
    unless the server restarted since), else the effective OLLAMA_NUM_PARALLEL."""
    load = last_load_with(log, "parallel")
    stale = (load is not None and log is not None and log.server_config_at is not None
             and load.started_at is not None and log.server_config_at > load.started_at)
    if load is not None and not stale:
        line = next((e for e in load.examples if "parallel" in e.line.lower()), None)
        evid = (Evidence(line.source, line.line),) if line else ()
        return Slots(load.parallel, "runner started with --parallel " + str(load.parallel), evid, True)
    if config is None:
        return None
    raw = config.get("OLLAMA_NUM_PARALLEL")
    if config.is_default("OLLAMA_NUM_PARALLEL") and config.version is None:
        return None  # never assume a version's default
    value = None if config.is_default("OLLAMA_NUM_PARALLEL") else raw
    n, how = envdef.effective_parallel(value, config.version)
    if not config.is_default("OLLAMA_NUM_PARALLEL"):
        how = f"OLLAMA_NUM_PARALLEL={raw} ({config.origin('OLLAMA_NUM_PARALLEL')})"
        if n is not None and raw == "0":
            how += f", which means 1 in Ollama {config.version}"
    evidence = (config_evidence(config, "OLLAMA_NUM_PARALLEL"),)
    off = log.default_concurrency_off if log is not None else None
    if n is None and off is not None and off.count:
        # server/sched.go (0.3-0.9): a GPU that cannot report free memory turns the automatic default to 1
        n, how = 1, how.split(" (auto")[0] + ", turned to 1: a GPU cannot report its free memory"
        evidence += tuple(evs(off.examples[:1]))
    return Slots(n, how, evidence)


def keep_alive_seconds(config) -> float:
    if config is None:
        return 300.0
    s = envdef.keep_alive_seconds(config.get("OLLAMA_KEEP_ALIVE") or "")
    return 300.0 if s is None else s


def gpu_expected(log: OllamaLogSummary | None, gpu: GpuFact | None = None) -> Evidence | None:
    """Evidence that this host has (or had) a GPU Ollama could use."""
    if log is not None:
        for s in log.startups:
            if s.has_gpu and s.examples:
                ex = next((e for e in s.examples if "library=cpu" not in e.line), s.examples[0])
                return Evidence(ex.source, ex.line)
    total = gpu_total_bytes(gpu)
    if total:
        return Evidence("gpu", f"GPU memory total {total / 2**30:.1f} GiB")
    return None


def gpu_total_bytes(gpu: GpuFact | None) -> int | None:
    """Summed total memory of the "gpu" fact's devices, None when unknown."""
    return gpu.total_bytes if gpu is not None else None


def gpu_process_bytes(gpu: GpuFact | None, names: tuple[str, ...] = ("ollama", "llama-server")) -> int | None:
    """GPU memory held by Ollama's processes (server, runners); None when no process list is known."""
    procs = gpu.processes if gpu is not None else ()
    if not procs:
        return None
    return sum(p.used_bytes for p in procs if p.used_bytes is not None and any(n in p.name for n in names))


def vram_held(log: OllamaLogSummary | None):
    """(startup, bytes held by others) for the last inventory where others held at least both
    floors (judge/thresholds.py OLLAMA_VRAM_HELD_*); None otherwise."""
    for s in reversed(log.startups if log is not None else ()):
        if s.gpu_total_bytes and s.gpu_available_bytes is not None:
            held = s.gpu_total_bytes - s.gpu_available_bytes
            if held >= VRAM_HELD_MIN_BYTES and held >= VRAM_HELD_SHARE * s.gpu_total_bytes:
                return s, held
            return None
    return None


@record
class ColdStart(Record):
    """A request after `idle_s` without traffic that took `seconds`, against the `typical_s`
    median of the requests that came without a pause: a reload, or a prompt not cached."""

    idle_s: float
    seconds: float
    typical_s: float
    example: Example
    warm: tuple[Example, ...]  # requests that came without a pause, for contrast


def cold_starts(requests) -> tuple[ColdStart, ...]:
    """The requests after a pause (knowledge.ollama.log.RequestTiming.timed) that took many times
    what the requests without one took (judge/thresholds.py: OLLAMA_IDLE_GAP_S, _COLD_FACTOR,
    _COLD_MARGIN_S)."""
    from llmdoctor.judge.thresholds import (OLLAMA_COLD_FACTOR, OLLAMA_COLD_MARGIN_S, OLLAMA_IDLE_GAP_S,
                                            OLLAMA_TYPICAL_FLOOR_S)

    timed = getattr(requests, "timed", ()) or ()
    warm = [t for t in timed if t.gap_s is not None and t.gap_s < OLLAMA_IDLE_GAP_S]
    if len(warm) <= 1:
        return ()
    typical = sorted(t.seconds for t in warm)[len(warm) // 2]
    return tuple(ColdStart(round(t.gap_s, 1), round(t.seconds, 3), round(typical, 3), t.example,
                           tuple(w.example for w in warm[:2]))
                 for t in timed
                 if t.gap_s is not None and t.gap_s >= OLLAMA_IDLE_GAP_S
                 and t.seconds >= OLLAMA_COLD_FACTOR * max(typical, OLLAMA_TYPICAL_FLOOR_S) and t.seconds - typical >= OLLAMA_COLD_MARGIN_S)
