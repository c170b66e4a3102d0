"""The probe's scenarios: warm-up, single short stream, single long prompt, a pair
released together, and (opt-in) load mode.

Each request runs in its own thread; the main thread only waits, so Ctrl-C lands
there, sets the shared `Interrupt` and shuts every open socket: the probe stops in
well under a second and returns what it measured so far. The overall deadline
works the same way, and every request's own time limit is capped by what is left.
"""
from __future__ import annotations

import math
import re
import threading
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import Callable

from llmdoctor.knowledge.probe import prompts
from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, stream
from llmdoctor.facts.live_probe.detect import Target
from llmdoctor.knowledge.probe.result import CONNECT_ERROR, HTTP_ERROR, INTERRUPTED, STALLED, TIMEOUT, ProbeResult, StreamSample
from llmdoctor.knowledge.probe.limits import (
    DEFAULT_DEADLINE_S, IDLE_WAIT_MAX_S, IDLE_WAIT_PER_RUN_S, IDLE_WAIT_SHARE, LIGHT_MAX_IN_FLIGHT,
    LOAD_LONG_PROMPT_TOKENS, LOAD_MAX_STREAMS, LONG_PROMPT_MAX_CONTEXT_SHARE, LONG_PROMPT_OUTPUT_TOKENS,
    LONG_PROMPT_TOKENS, MAX_OUTPUT_TOKENS, READ_TIMEOUT_S, REPEAT_OUTPUT_TOKENS, REQUEST_TIMEOUT_S, RUNS,
    WARMUP_OUTPUT_TOKENS, WARMUP_TIMEOUT_S,
)
from llmdoctor.knowledge.engines import OLLAMA
from llmdoctor.knowledge.probe.load import ServerLoad

Progress = Callable[[str], None]
LONG_PROMPT_MIN_TOKENS = 256  # a repeated long prompt is never shorter than this
MIN_SCENARIO_S = 2.0       # don't start a scenario with less time than this left
INJECT_AFTER_CHUNKS = 8    # load mode: inject the long prompt once streams are running
INJECT_AFTER_S = 3.0       # ... or after this long, whichever comes first


_LLAMA_OVERFLOW = re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)")
# vLLM: "... you requested N tokens (M in the messages, ...)" before 0.10; 0.32 says "your prompt
# contains [at least] M input tokens" (at least: it stops counting at the limit + 1).
_VLLM_OVERFLOW = re.compile(r"maximum context length is (\d+) tokens.*?(?:\((\d+) in the messages|"
                            r"prompt contains (?:at least )?(\d+) input tokens)", re.S)


def context_overflow(error: str) -> tuple[int, int] | None:
    """(prompt tokens, context) from a server's "prompt too long" error, else None."""
    m = _LLAMA_OVERFLOW.search(error)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = _VLLM_OVERFLOW.search(error)
    if m:
        return int(m.group(2) or m.group(3)), int(m.group(1))
    return None


def long_prompt_tokens(context: int | None, wanted: int = LONG_PROMPT_TOKENS) -> int:
    """Size the long prompt below the per-request context."""
    if context:
        return max(32, min(wanted, int(context * LONG_PROMPT_MAX_CONTEXT_SHARE)))
    return wanted


def load_streams(target: Target, concurrency: int | None) -> int:
    n = concurrency or ((target.slots + 1) if target.slots else 5)
    return max(1, min(n, LOAD_MAX_STREAMS))


def describe_light(target: Target, runs: int = RUNS) -> str:
    return (f"light probe of {target.engine} at {target.url}, model {target.model}: {1 + 4 * runs} requests "
            f"(a warm-up, then {runs} runs each of one stream, one long prompt and a pair), at most 2 at once "
            f"(limit {LIGHT_MAX_IN_FLIGHT}), <= {REPEAT_OUTPUT_TOKENS} output tokens each, "
            f"one ~{long_prompt_tokens(target.context, max(LONG_PROMPT_MIN_TOKENS, LONG_PROMPT_TOKENS // runs))}-token "
            "prompt per run; fixed harmless text")


def describe_load(target: Target, concurrency: int | None, runs: int = RUNS) -> str:
    n = load_streams(target, concurrency)
    long_n = long_prompt_tokens(target.context, max(LONG_PROMPT_MIN_TOKENS, LOAD_LONG_PROMPT_TOKENS // runs))
    return (f"load mode will send to {target.url} (model {target.model}): {runs} rounds of {n} concurrent "
            f"streaming requests (<= {REPEAT_OUTPUT_TOKENS} output tokens each, fixed harmless prompt) and, "
            f"while they stream, one ~{long_n}-token prompt; before that a warm-up and {runs} single streams")


class ProbeRunner:
    def __init__(self, target: Target, deadline_s: float = DEFAULT_DEADLINE_S,
                 max_tokens: int = REPEAT_OUTPUT_TOKENS, progress: Progress | None = None,
                 stop: Interrupt | None = None, request_timeout_s: float = REQUEST_TIMEOUT_S,
                 read_timeout_s: float = READ_TIMEOUT_S, warmup_timeout_s: float = WARMUP_TIMEOUT_S,
                 runs: int = RUNS, read_load: bool = True, deadline_flag: str = "--probe-deadline") -> None:
        self.target = target
        self.max_tokens = max(1, min(max_tokens, MAX_OUTPUT_TOKENS))
        self.runs = max(1, runs)
        self.read_load = read_load  # off: no load readings, no token counting (a test's bare runner)
        self.loads: list[ServerLoad] = []
        self.idle_wait_s = 0.0
        self._long_tokens: dict[int, int] = {}  # wanted -> size that fits the slot
        told = progress or (lambda _msg: None)
        # each step with how far the probe is and what is left of its deadline
        self.progress = lambda msg: told(f"{msg} [{len(self.samples)} request{'s' if len(self.samples) != 1 else ''}"
                                         f" done, {max(0.0, self.remaining()):.0f} s left]")
        self.stop = stop or Interrupt()
        self.request_timeout_s = request_timeout_s
        self.read_timeout_s = read_timeout_s
        self.warmup_timeout_s = warmup_timeout_s
        self.deadline_s = deadline_s
        self.deadline_flag = deadline_flag  # how the command raises it: probe --deadline, diagnose --probe-deadline
        self.by_deadline = False
        self.planned = 0  # requests the light probe means to send (a resent long prompt aside)
        self.t0 = time.monotonic()
        self.deadline = self.t0 + deadline_s
        self.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.samples: list[StreamSample] = []
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.interrupted = False
        self.by_user = False  # Ctrl-C, not the probe's own deadline
        self.fatal = False  # a failure that makes further requests pointless

    # -- plumbing --------------------------------------------------------------------
    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def request(self, id: str, scenario: str, prompt: str, max_tokens: int,
                on_chunk: Callable[[str, int], None] | None = None, patient: bool = False,
                run: int = 0) -> StreamRequest:
        """`patient`: may wait for a model load before its first byte (the warm-up)."""
        path, body = prompts.request(self.target.engine, self.target.model, prompt, max_tokens)
        limit = max(self.request_timeout_s, self.warmup_timeout_s) if patient else self.request_timeout_s
        first = max(self.read_timeout_s, self.warmup_timeout_s) if patient else self.read_timeout_s
        return StreamRequest(id=id, scenario=scenario, url=self.target.url, path=path, body=body,
                             wire=self.target.wire, timeout_s=max(0.5, min(limit, self.remaining())),
                             read_timeout_s=self.read_timeout_s, first_byte_timeout_s=first, on_chunk=on_chunk,
                             run=run)

    def time_needed(self) -> str:
        """What a deadline stop adds: the time the whole probe needs at the pace measured so far,
        and the flag that gives it that."""
        done = sum(1 for s in self.samples if s.ok)
        spent = time.monotonic() - self.t0
        if not self.planned or not done or done >= self.planned:
            return f"{self.deadline_flag} gives it more time"
        need = spent * self.planned / done
        return (f"at this pace all {self.planned} requests need about {need:.0f} s: raise {self.deadline_flag} to "
                f"{min(600, math.ceil(need * 1.2 / 10) * 10):.0f}")

    def can_start(self, scenario: str) -> bool:
        if self.interrupted or self.fatal:
            return False
        if self.remaining() < MIN_SCENARIO_S:
            self.notes.append(f"skipped {scenario}: the {self.deadline_s:.0f} s probe deadline was reached")
            self.by_deadline = True
            return False
        return True

    def run(self, requests: list[StreamRequest], together: bool = False,
            later: tuple[threading.Event, StreamRequest] | None = None) -> list[StreamSample]:
        """Run requests concurrently (released at once when `together`); `later` is
        a request sent when its event fires. Returns samples in request order."""
        out: dict[str, StreamSample] = {}
        barrier = threading.Barrier(len(requests)) if together and len(requests) > 1 else None

        def work(req: StreamRequest, release: threading.Barrier | None, gate: threading.Event | None) -> None:
            if gate is not None:
                while not gate.wait(0.05):
                    if self.stop.is_set():
                        return
            try:
                out[req.id] = stream(req, self.t0, self.stop, release)
            except Exception as e:  # a bug must become a line in the report, not a lost thread
                out[req.id] = StreamSample(req.id, req.scenario, status=CONNECT_ERROR,
                                           error=f"probe failed: {type(e).__name__}: {e}")

        threads = [threading.Thread(target=work, args=(r, barrier, None), daemon=True) for r in requests]
        all_reqs = list(requests)
        if later is not None:
            threads.append(threading.Thread(target=work, args=(later[1], None, later[0]), daemon=True))
            all_reqs.append(later[1])
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                if self.remaining() <= 0 and not self.stop.is_set():
                    self.notes.append(f"the {self.deadline_s:.0f} s probe deadline stopped requests in flight")
                    self.by_deadline = True
                    self.stop.set()
                for t in threads:
                    t.join(0.05)
        except KeyboardInterrupt:
            self.interrupted = self.by_user = True
            self.stop.set()
            if barrier is not None:
                barrier.abort()
            for t in threads:
                t.join(2.0)
        if self.stop.is_set() and not self.interrupted and self.remaining() > 0:
            self.interrupted = self.by_user = True  # stopped from outside (Ctrl-C in the command), not by the deadline
        samples = [replace(out.get(r.id) or StreamSample(r.id, r.scenario, status=INTERRUPTED,
                                                        error="never sent: the probe was stopped"), run=r.run)
                   for r in all_reqs]
        if self.remaining() <= 0 and not self.by_user:
            # Every request's limit is capped by what is left of the deadline, so one that timed out or
            # went quiet as the deadline came was cut by us: a stall is a silence of read_timeout_s,
            # and the deadline did not let this one last that long.
            if not self.by_deadline:
                self.notes.append(f"the {self.deadline_s:.0f} s probe deadline stopped requests in flight")
            self.by_deadline = True
            self.stop.set()
            samples = [replace(x, status=INTERRUPTED, error=f"cut by the {self.deadline_s:.0f} s probe deadline "
                                                            f"({x.error})")
                       if x.status in (TIMEOUT, STALLED) else x for x in samples]
        for s in samples:
            self.samples.append(s)
            if not s.ok:
                self.errors.append(f"{s.id}: {s.error}")
            if (not s.ok and s.scenario == "warmup") or s.status in (TIMEOUT, STALLED, CONNECT_ERROR):
                # 404 model not found, 503 queue full, a crashed runner, a server that
                # stopped answering: more requests would only add waiting.
                if not self.fatal and s.status != INTERRUPTED:
                    self.notes.append(f"stopped after {s.id} failed ({s.status}): further requests would not help")
                self.fatal = s.status != INTERRUPTED or self.fatal
        return samples

    def result(self, mode: str) -> ProbeResult:
        t = self.target
        if self.by_user:
            self.notes.append("stopped by Ctrl-C: the figures cover what was measured")
        elif self.interrupted or self.by_deadline:
            self.notes.append(f"stopped early by the {self.deadline_s:.0f} s probe deadline (ours: the server did not "
                              f"stall): the figures cover what was measured; {self.time_needed()}")
        if self.read_load and self.samples:
            self.look("end")
        result = ProbeResult(url=t.url, engine=t.engine, model=t.model, version=t.version, mode=mode,
                             slots=t.slots, slots_source=t.slots_source, context=self.context, rtt_s=t.rtt_s,
                             started_at=self.started_at, wall_s=round(time.monotonic() - self.t0, 4),
                             samples=tuple(self.samples), errors=tuple(self.errors),
                             notes=tuple(self.notes), interrupted=self.interrupted, loads=tuple(self.loads),
                             idle_wait_s=round(self.idle_wait_s, 3), runs=self.runs)
        if self.read_load and self.samples:
            from llmdoctor.facts.probe_runs import remember

            remember(result, time.time() - (time.monotonic() - self.t0))
        return result

    # -- surroundings ----------------------------------------------------------------
    @property
    def context(self) -> int | None:
        """The per-request context: the smallest slot /slots listed, else what detection read."""
        ctxs = [x.slot_ctx for x in self.loads if x.slot_ctx]
        found = min(ctxs) if ctxs else None
        if found and self.target.context:
            return min(found, self.target.context)
        return found or self.target.context or next(
            (x.contexts.get(self.target.model) for x in self.loads if x.contexts.get(self.target.model)), None)

    def look(self, at: str, wait_s: float = 0.0) -> ServerLoad | None:
        """Read the server's load before a scenario run (the probe has nothing in flight then:
        whatever runs is someone else's); while busy, wait up to `wait_s` for it to go idle."""
        if not self.read_load:
            return None
        from llmdoctor.facts.live_probe.load import wait_for_idle

        budget = max(0.0, min(wait_s, self.idle_budget_left(), self.remaining() - MIN_SCENARIO_S))
        first, load, waited = wait_for_idle(self.target.url, self.target.engine, budget, self.stop)
        self.idle_wait_s += waited
        if first is not load:  # it was busy and the probe waited: keep what it found first too
            self.loads.append(replace(first, at=f"{at} (before waiting)", t_s=time.monotonic() - self.t0 - waited))
        load = replace(load, at=at, t_s=time.monotonic() - self.t0)
        self.loads.append(load)
        if first.busy and at != "end":
            self.progress(f"server busy before {at}: {first.describe()}"
                          + (f"; waited {waited:.1f} s: {'still busy' if load.busy else 'idle now'}"
                             if waited >= 0.1 else ""))
        return load

    def idle_budget_left(self) -> float:
        return min(IDLE_WAIT_MAX_S, IDLE_WAIT_SHARE * self.deadline_s) - self.idle_wait_s

    def long_tokens(self, wanted: int) -> int:
        """A long prompt that fits the slot: sized from the context read, then counted by the
        server's own tokenizer where it has one (llama-server /tokenize) and shrunk to fit."""
        if wanted in self._long_tokens:
            return self._long_tokens[wanted]
        # the runs share the one long prompt's budget of prompt tokens
        n = long_prompt_tokens(self.context, max(LONG_PROMPT_MIN_TOKENS, wanted // self.runs))
        if self.read_load and self.context:
            from llmdoctor.facts.live_probe.load import count_tokens

            limit = int(self.context * LONG_PROMPT_MAX_CONTEXT_SHARE)
            for _ in range(3):
                got = count_tokens(self.target.url, self.target.engine, prompts.long_prompt(n))
                if got is None or got <= limit:
                    break
                n = max(32, int(n * limit / got * 0.95))
        self._long_tokens[wanted] = n
        return n

    # -- scenarios -------------------------------------------------------------------
    def warmup(self) -> None:
        """Does the first request carry a model load? Once: only a first request can."""
        if self.can_start("warm-up"):
            self.look("warmup", IDLE_WAIT_MAX_S)
        if self.can_start("warm-up"):
            self.progress("warm-up request (does the first request pay for a model load?)")
            self.run([self.request("warmup", "warmup", prompts.short_prompt(), WARMUP_OUTPUT_TOKENS, patient=True)])
            if self.target.engine == OLLAMA and self.read_load:
                self.look("after warmup")  # /api/ps after: the model is in memory now

    def single(self, run: int = 0) -> None:
        name = f"single.{run}" if run else "single"
        if run and self.can_start("single stream"):
            self.look(f"single {run}", IDLE_WAIT_PER_RUN_S)
        if self.can_start("single stream"):
            self.progress(f"single stream, short prompt, {self.max_tokens} tokens" + (f" (run {run})" if run else ""))
            self.run([self.request(name, "single", prompts.short_prompt(), self.max_tokens, run=run)])

    def baseline(self) -> None:
        """Warm-up (does the first request carry a model load?) and one short stream."""
        self.warmup()
        self.single(1 if self.runs > 1 else 0)

    def long_prompt(self, run: int = 0) -> None:
        if run and self.can_start("long prompt"):
            self.look(f"long {run}", IDLE_WAIT_PER_RUN_S)
        if self.can_start("long prompt"):
            n = self.long_tokens(LONG_PROMPT_TOKENS)
            self.progress(f"single stream, ~{n}-token prompt (prefill speed)" + (f" (run {run})" if run else ""))
            (first,) = self.run([self.request(f"long.{run}" if run else "long", "long", prompts.long_prompt(n),
                                              LONG_PROMPT_OUTPUT_TOKENS, run=run)])
            over = context_overflow(first.error) if first.status == HTTP_ERROR else None
            if over and self.can_start("long prompt (resized)"):
                # The tokenizer packs fewer words per token than estimated: resize once.
                got, context = over
                smaller = max(32, int(n * context * LONG_PROMPT_MAX_CONTEXT_SHARE / got))
                self._long_tokens[LONG_PROMPT_TOKENS] = smaller
                self.errors.remove(f"{first.id}: {first.error}")
                self.notes.append(f"the ~{n}-token long prompt was {got} tokens, over the {context}-token "
                                  f"context; resent at ~{smaller}")
                self.run([self.request(f"long-2.{run}" if run else "long-2", "long", prompts.long_prompt(smaller),
                                       LONG_PROMPT_OUTPUT_TOKENS, run=run)])

    def pair(self, run: int = 0) -> None:
        if run and self.can_start("pair"):
            self.look(f"pair {run}", IDLE_WAIT_PER_RUN_S)
        if self.can_start("pair"):
            self.progress("two streams released together (queueing or batching?)" + (f" (run {run})" if run else ""))
            suffix = f".{run}" if run else ""
            self.run([self.request(f"pair-{i}{suffix}", "pair", prompts.short_prompt(), self.max_tokens, run=run)
                      for i in (1, 2)], together=True)

    def light(self) -> ProbeResult:
        self.planned = 1 + 4 * self.runs  # a warm-up, then a single, a long prompt and a pair each run
        self.progress(describe_light(self.target, self.runs))
        self.warmup()
        for run in range(1, self.runs + 1) if self.runs > 1 else (0,):
            self.single(run)
            self.long_prompt(run)
            self.pair(run)
        return self.result("light")

    def load(self, concurrency: int | None = None) -> ProbeResult:
        n = load_streams(self.target, concurrency)
        self.warmup()
        repeated = self.runs > 1
        for run in range(1, self.runs + 1) if repeated else (0,):
            self.single(run)
        for run in range(1, self.runs + 1) if repeated else (0,):
            if not self.can_start("load"):
                break
            if run:
                self.look(f"load {run}", IDLE_WAIT_PER_RUN_S)
            started = threading.Event()

            def on_chunk(_id: str, count: int, started=started) -> None:
                if count >= INJECT_AFTER_CHUNKS:
                    started.set()

            suffix = f".{run}" if run else ""
            streams = [self.request(f"load-{i}{suffix}", "load", prompts.short_prompt(), self.max_tokens, on_chunk,
                                    run=run) for i in range(1, n + 1)]
            long_n = self.long_tokens(LOAD_LONG_PROMPT_TOKENS)
            inject = self.request(f"load-long{suffix}", "load-long", prompts.long_prompt(long_n),
                                  LONG_PROMPT_OUTPUT_TOKENS, run=run)
            timer = threading.Timer(INJECT_AFTER_S, started.set)
            timer.daemon = True
            timer.start()
            self.progress(f"load: {n} streams at once, then one ~{long_n}-token prompt while they stream"
                          + (f" (run {run})" if run else ""))
            try:
                self.run(streams, together=True, later=(started, inject))
            finally:
                timer.cancel()
        return self.result("load")
