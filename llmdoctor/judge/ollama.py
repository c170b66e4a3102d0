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


@record
class SerialService(Record):
    """Groups of access-log requests served one at a time (`bursts`), the first with the highest
    peak (its `figures` and `examples`), and the `parallel_pairs` that show more than one slot."""

    bursts: int
    parallel_pairs: int
    figures: str
    examples: tuple


def serial_service(requests) -> SerialService:
    """Judge the scanner's groups of requests in flight together (knowledge.ollama.log.GroupCell,
    figures kept as grid points at or below them) with OLLAMA_SERIAL_* and
    OLLAMA_PARALLEL_MIN_TYPICAL_S (read at the call: a site's file sets them)."""
    from llmdoctor.judge import thresholds as t

    bursts, best = 0, None
    for cell in getattr(requests, "groups", ()) or ():
        if (cell.requests >= t.OLLAMA_SERIAL_MIN_REQUESTS and cell.peak >= t.OLLAMA_SERIAL_MIN_PEAK
                and cell.gap_s >= t.OLLAMA_SERIAL_MIN_GAP_S and cell.gap_share >= t.OLLAMA_SERIAL_GAP_SHARE):
            bursts += cell.count
            if best is None or (cell.best_peak, -cell.best_order) > (best.best_peak, -best.best_order):
                best = cell
    pairs = sum(n for typical, n in getattr(requests, "pairs", ()) or () if typical >= t.OLLAMA_PARALLEL_MIN_TYPICAL_S)
    return SerialService(bursts, pairs, best.best_figures if best else "", best.best_examples if best else ())


# -- an answer's own figures (knowledge/ollama/response.py) ----------------------------------

@record
class PromptWait(Record):
    """Prompt evaluation's share of what the answers took (less their loads), with the figures."""

    share: float
    prompt_s: float
    busy_s: float
    answers: int
    tokens: int
    rate: float | None  # prompt tokens per second over those answers
    eval_rate: float | None
    worst: object  # the answer whose prompt took longest (knowledge.ollama.response.Answer)


def answer_prefill(answers) -> PromptWait | None:
    """PREFILL from the answers' figures: their prompts took OLLAMA_ANSWER_PREFILL_SHARE or more of
    the time they spent past loading, and OLLAMA_ANSWER_PREFILL_MIN_S or more in all."""
    from llmdoctor.judge.thresholds import OLLAMA_ANSWER_PREFILL_MIN_S, OLLAMA_ANSWER_PREFILL_SHARE

    timed = [a for a in answers if a.prompt_ns and a.total_ns and a.total_ns > (a.load_ns or 0)]
    if not timed:
        return None
    prompt_s = sum(a.prompt_ns for a in timed) / 1e9
    busy_s = sum(a.total_ns - (a.load_ns or 0) for a in timed) / 1e9
    share = prompt_s / busy_s
    if share < OLLAMA_ANSWER_PREFILL_SHARE or prompt_s < OLLAMA_ANSWER_PREFILL_MIN_S:
        return None
    tokens = sum(a.prompt_tokens or 0 for a in timed)
    eval_tokens = sum(a.eval_tokens or 0 for a in timed if a.eval_ns)
    eval_s = sum(a.eval_ns for a in timed if a.eval_ns) / 1e9
    return PromptWait(round(share, 3), round(prompt_s, 3), round(busy_s, 3), len(timed), tokens,
                      tokens / prompt_s if tokens else None, eval_tokens / eval_s if eval_tokens and eval_s else None,
                      max(timed, key=lambda a: a.prompt_ns))


def cut_sizes(n_ctx: int) -> dict[int, str]:
    """The prompt_eval_count an answer reports when the runner cut an over-long prompt to fit n_ctx,
    by runner (each from its source; num_keep as Ollama sends it, knowledge/ollama/env.py NUM_KEEP):
    - the Go runners keep num_keep tokens and the last n_ctx - num_keep: n_ctx exactly
      (llama/runner/runner.go:124-129 @ v0.5.7, runner/llamarunner/runner.go:124-128 @ v0.12.0);
    - the C++ ext_server keeps n_keep and half of what is left: n_keep + (n_ctx - n_keep) / 2
      (llm/ext_server/server.cpp:1662-1681 @ v0.3.14, v0.2.0 to v0.3.14);
    - llama-server under Ollama >= 0.30 frees about half: n_ctx - (n_ctx - n_keep) / 2
      (llm/llama_server.go:301-330 @ v0.33.0-rc2, n_keep + 1 with a BOS token)."""
    sizes = {n_ctx: "the Go runner (Ollama 0.4-0.2x) keeps exactly num_ctx tokens of a longer prompt"}
    for keep in envdef.NUM_KEEP:
        sizes.setdefault(keep + (n_ctx - keep) // 2, f"the C++ runner (Ollama 0.2-0.3) keeps {keep} tokens and half "
                                                     f"of the rest of a {n_ctx:,}-token context")
        sizes.setdefault(n_ctx - max((n_ctx - keep) // 2, 1), f"Ollama >= 0.30 cuts a longer prompt to about half "
                                                              f"of a {n_ctx:,}-token context")
    return sizes


@record
class CutAnswer(Record):
    answer: object  # knowledge.ollama.response.Answer
    n_ctx: int
    how: str
    known: bool  # n_ctx came from this evidence (else: a default Ollama shipped)


def cut_answers(answers, contexts: tuple[int, ...]) -> tuple[CutAnswer, ...]:
    """Answers whose prompt_eval_count is exactly what a runner cuts a longer prompt to, for a context
    known from the evidence (`contexts`) or else one Ollama shipped as its default."""
    tried = [(n, True) for n in dict.fromkeys(contexts) if n > 1]
    tried += [(n, False) for n in envdef.DEFAULT_CONTEXTS if not contexts]
    out = []
    for a in answers:
        for n, known in tried:
            how = cut_sizes(n).get(a.prompt_tokens or 0)
            if how:
                out.append(CutAnswer(a, n, how, known))
                break
    return tuple(out)


def answer_contexts(log, config=None) -> tuple[int, ...]:
    """The per-request contexts this evidence shows: the runners' (--ctx-size over --parallel before
    Ollama 0.30, where the runner's context is num_ctx x parallel), the truncation lines' limits,
    and OLLAMA_CONTEXT_LENGTH as the server printed it."""
    found: list[int] = []
    for load in getattr(log, "loads", ()) or ():
        if load.ctx_size:
            found.append(load.ctx_size // max(load.parallel or 1, 1))
            found.append(load.ctx_size)
    found += list(getattr(log, "truncation_limits", ()) or ())
    if config is not None and config.origin("OLLAMA_CONTEXT_LENGTH") == "server config log line":
        value = config.get("OLLAMA_CONTEXT_LENGTH") or ""
        if value.isdecimal() and int(value) > 0:
            found.append(int(value))
    return tuple(dict.fromkeys(found))


# -- evictions from the scheduler's bookkeeping ------------------------------------------------

@record
class CountedEviction(Record):
    """A runner for `by` started `after_s` after `evicted`'s own load, and the scheduler's count of
    loaded runners did not grow (`count` after it): `evicted` was unloaded for it."""

    evicted: str
    by: object  # the new runner's knowledge.ollama.log.Load (its --ctx-size and --parallel are what it reserved)
    after_s: float
    count: int
    examples: tuple


def counted_evictions(log, keep_alive_s: float) -> tuple[CountedEviction, ...]:
    """Loads of another model that left the loaded-runner count where it was (server/sched.go logs
    `loaded runners count=N` after each load: :449 @ v0.3.14, :470 @ v0.12.0, :728 @ v0.33.0-rc2),
    sooner after the previous model's load than keep-alive lets a runner expire: a runner's
    keep-alive timer starts only once its last request ends (server/sched.go:339-345 @ v0.3.14),
    so before keep_alive_s it can have left only by being unloaded for the new one (or by a crash,
    which is not counted here: runner_died)."""
    if keep_alive_s <= 0 or getattr(log, "runner_died", None) is not None and log.runner_died.count:
        return ()
    loads = [ld for ld in getattr(log, "loads", ()) or () if ld.model and ld.started_at and ld.runners_after]
    out = []
    for prev, cur in zip(loads, loads[1:]):
        after = (cur.started_at - prev.started_at).total_seconds()
        if cur.model != prev.model and cur.runners_after <= prev.runners_after and 0 <= after < keep_alive_s:
            out.append(CountedEviction(prev.model, cur, round(after, 1), cur.runners_after,
                                       tuple(cur.examples[:1]) + tuple(prev.examples[:1])))
    return tuple(out)


@record
class UnloadBesideLoad(Record):
    """An unloaded runner's VRAM-recovery wait began `gap_s` before (negative: after) a runner load."""

    unload: object  # the knowledge.ollama.log.Example of `gpu VRAM usage didn't recover within timeout`
    load: object  # the knowledge.ollama.log.Load
    gap_s: float


def unloads_beside_loads(log) -> tuple[UnloadBesideLoad, ...]:
    """Runner unloads that began within OLLAMA_UNLOAD_LOAD_GAP_S of a runner load. The scheduler
    starts its VRAM-recovery wait only when it unloads a runner (expired, keep_alive 0, or evicted
    for another load: server/sched.go:376 @ v0.3.14, :379 @ v0.6.8, :458 @ v0.32.15), and the wait
    logs `gpu VRAM usage didn't recover within timeout` with `seconds=` since it began (again every
    250 ms until the memory shows free), so time= minus seconds= is when the unload began. An
    unload next to a load is a model swapped out, or loaded again, between requests."""
    import re
    from datetime import timedelta

    from llmdoctor.judge.thresholds import OLLAMA_UNLOAD_LOAD_GAP_S
    from llmdoctor.knowledge.ollama.log import line_time

    def began(ld):  # `llama runner started in N seconds` minus N, else the load's first stamped line
        done = next((t for x in ld.examples if "started in" in x.line and (t := line_time(x.line)) is not None), None)
        return done - timedelta(seconds=ld.load_seconds or 0.0) if done is not None else ld.started_at

    sig = getattr(log, "vram_not_recovered", None)
    loads = [(ld, t) for ld in getattr(log, "loads", ()) or () if (t := began(ld)) is not None]
    if sig is None or not sig.count or not loads:
        return ()
    out, begun = [], []
    for ex in sig.examples:
        at, secs = line_time(ex.line), re.search(r"\bseconds=(\d+(?:\.\d+)?)", ex.line)
        if at is None or secs is None:
            continue
        start = at - timedelta(seconds=float(secs.group(1)))
        if any(abs((start - b).total_seconds()) < 1.0 for b in begun):
            continue  # the same wait, logged again 250 ms later
        begun.append(start)
        for ld, t in loads:
            gap = (t - start).total_seconds()
            if abs(gap) <= OLLAMA_UNLOAD_LOAD_GAP_S + (ld.load_seconds or 0.0):
                out.append(UnloadBesideLoad(ex, ld, round(gap, 1)))
                break
    return tuple(out)


def embed_and_chat(log) -> bool:
    """The access log shows both embedding and chat/generate requests (models that evict each other
    are then an embedding model and a chat model: a RAG pipeline's pair)."""
    lines = [t.example.line for t in getattr(getattr(log, "requests", None), "timed", ()) or ()]
    embed = any("/embed" in x for x in lines)
    chat = any(p in x for x in lines for p in ("/api/chat", "/api/generate", "/v1/chat/completions", "/v1/completions"))
    return embed and chat


def added_loads(log) -> tuple:
    """Loads that raised the scheduler's loaded-runner count over the previous load's (server/sched.go
    `loaded runners count=N`): a model loaded next to the others, not one loaded again."""
    loads = [ld for ld in getattr(log, "loads", ()) or () if ld.runners_after]
    return tuple(cur for prev, cur in zip(loads, loads[1:]) if cur.runners_after > prev.runners_after)
