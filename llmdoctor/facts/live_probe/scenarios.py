"""The probe's scenarios: warm-up, single short stream, single long prompt, a pair
released together, and (opt-in) load mode.

Each request runs in its own thread; the main thread only waits, so Ctrl-C lands
there, sets the shared `Interrupt` and shuts every open socket: the probe stops in
well under a second and returns what it measured so far. The overall deadline
works the same way, and every request's own time limit is capped by what is left.
"""
from __future__ import annotations

import re
import threading
import time
from datetime import datetime, timezone
from typing import Callable

from llmdoctor.knowledge.probe import prompts
from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, stream
from llmdoctor.facts.live_probe.detect import Target
from llmdoctor.knowledge.probe.result import CONNECT_ERROR, HTTP_ERROR, INTERRUPTED, STALLED, TIMEOUT, ProbeResult, StreamSample
from llmdoctor.knowledge.probe.limits import (
    DEFAULT_DEADLINE_S, LIGHT_MAX_IN_FLIGHT, LOAD_LONG_PROMPT_TOKENS, LOAD_MAX_STREAMS,
    LONG_PROMPT_MAX_CONTEXT_SHARE, LONG_PROMPT_OUTPUT_TOKENS, LONG_PROMPT_TOKENS, MAX_OUTPUT_TOKENS,
    READ_TIMEOUT_S, REQUEST_TIMEOUT_S, WARMUP_OUTPUT_TOKENS, WARMUP_TIMEOUT_S,
)

Progress = Callable[[str], None]
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


def describe_light(target: Target) -> str:
    return (f"light probe of {target.engine} at {target.url}, model {target.model}: 5 requests, "
            f"at most 2 at once (limit {LIGHT_MAX_IN_FLIGHT}), <= {MAX_OUTPUT_TOKENS} output tokens each, "
            f"one ~{long_prompt_tokens(target.context)}-token prompt; fixed harmless text")


def describe_load(target: Target, concurrency: int | None) -> str:
    n = load_streams(target, concurrency)
    long_n = long_prompt_tokens(target.context, LOAD_LONG_PROMPT_TOKENS)
    return (f"load mode will send to {target.url} (model {target.model}): {n} concurrent streaming requests "
            f"(<= {MAX_OUTPUT_TOKENS} output tokens each, fixed harmless prompt) and, while they stream, "
            f"one ~{long_n}-token prompt; before that a warm-up and one single stream")


class ProbeRunner:
    def __init__(self, target: Target, deadline_s: float = DEFAULT_DEADLINE_S,
                 max_tokens: int = MAX_OUTPUT_TOKENS, progress: Progress | None = None,
                 stop: Interrupt | None = None, request_timeout_s: float = REQUEST_TIMEOUT_S,
                 read_timeout_s: float = READ_TIMEOUT_S, warmup_timeout_s: float = WARMUP_TIMEOUT_S) -> None:
        self.target = target
        self.max_tokens = max(1, min(max_tokens, MAX_OUTPUT_TOKENS))
        self.progress = progress or (lambda _msg: None)
        self.stop = stop or Interrupt()
        self.request_timeout_s = request_timeout_s
        self.read_timeout_s = read_timeout_s
        self.warmup_timeout_s = warmup_timeout_s
        self.deadline_s = deadline_s
        self.t0 = time.monotonic()
        self.deadline = self.t0 + deadline_s
        self.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.samples: list[StreamSample] = []
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.interrupted = False
        self.fatal = False  # a failure that makes further requests pointless

    # -- plumbing --------------------------------------------------------------------
    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def request(self, id: str, scenario: str, prompt: str, max_tokens: int,
                on_chunk: Callable[[str, int], None] | None = None, patient: bool = False) -> StreamRequest:
        """`patient`: may wait for a model load before its first byte (the warm-up)."""
        path, body = prompts.request(self.target.engine, self.target.model, prompt, max_tokens)
        limit = max(self.request_timeout_s, self.warmup_timeout_s) if patient else self.request_timeout_s
        first = max(self.read_timeout_s, self.warmup_timeout_s) if patient else self.read_timeout_s
        return StreamRequest(id=id, scenario=scenario, url=self.target.url, path=path, body=body,
                             wire=self.target.wire, timeout_s=max(0.5, min(limit, self.remaining())),
                             read_timeout_s=self.read_timeout_s, first_byte_timeout_s=first, on_chunk=on_chunk)

    def can_start(self, scenario: str) -> bool:
        if self.interrupted or self.fatal:
            return False
        if self.remaining() < MIN_SCENARIO_S:
            self.notes.append(f"skipped {scenario}: the {self.deadline_s:.0f} s probe deadline was reached")
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
                    self.stop.set()
                for t in threads:
                    t.join(0.05)
        except KeyboardInterrupt:
            self.interrupted = True
            self.stop.set()
            if barrier is not None:
                barrier.abort()
            for t in threads:
                t.join(2.0)
        if self.stop.is_set() and not self.interrupted and self.remaining() > 0:
            self.interrupted = True
        samples = [out.get(r.id) or StreamSample(r.id, r.scenario, status=INTERRUPTED,
                                                error="never sent: the probe was stopped")
                   for r in all_reqs]
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
        if self.interrupted:
            self.notes.append("stopped early (Ctrl-C or deadline): the figures cover what was measured")
        return ProbeResult(url=t.url, engine=t.engine, model=t.model, version=t.version, mode=mode,
                           slots=t.slots, slots_source=t.slots_source, context=t.context, rtt_s=t.rtt_s,
                           started_at=self.started_at, wall_s=round(time.monotonic() - self.t0, 4),
                           samples=tuple(self.samples), errors=tuple(self.errors),
                           notes=tuple(self.notes), interrupted=self.interrupted)

    # -- scenarios -------------------------------------------------------------------
    def baseline(self) -> None:
        """Warm-up (does the first request carry a model load?) and one short stream."""
        if self.can_start("warm-up"):
            self.progress("warm-up request (does the first request pay for a model load?)")
            self.run([self.request("warmup", "warmup", prompts.short_prompt(), WARMUP_OUTPUT_TOKENS, patient=True)])
        if self.can_start("single stream"):
            self.progress(f"single stream, short prompt, {self.max_tokens} tokens")
            self.run([self.request("single", "single", prompts.short_prompt(), self.max_tokens)])

    def long_prompt(self) -> None:
        if self.can_start("long prompt"):
            n = long_prompt_tokens(self.target.context)
            self.progress(f"single stream, ~{n}-token prompt (prefill speed)")
            (first,) = self.run([self.request("long", "long", prompts.long_prompt(n), LONG_PROMPT_OUTPUT_TOKENS)])
            over = context_overflow(first.error) if first.status == HTTP_ERROR else None
            if over and self.can_start("long prompt (resized)"):
                # The tokenizer packs fewer words per token than estimated: resize once.
                got, context = over
                smaller = max(32, int(n * context * LONG_PROMPT_MAX_CONTEXT_SHARE / got))
                self.errors.remove(f"{first.id}: {first.error}")
                self.notes.append(f"the ~{n}-token long prompt was {got} tokens, over the {context}-token "
                                  f"context; resent at ~{smaller}")
                self.run([self.request("long-2", "long", prompts.long_prompt(smaller), LONG_PROMPT_OUTPUT_TOKENS)])

    def pair(self) -> None:
        if self.can_start("pair"):
            self.progress("two streams released together (queueing or batching?)")
            self.run([self.request(f"pair-{i}", "pair", prompts.short_prompt(), self.max_tokens) for i in (1, 2)],
                     together=True)

    def light(self) -> ProbeResult:
        self.progress(describe_light(self.target))
        self.baseline()
        self.long_prompt()
        self.pair()
        return self.result("light")

    def load(self, concurrency: int | None = None) -> ProbeResult:
        n = load_streams(self.target, concurrency)
        self.baseline()
        if self.can_start("load"):
            started = threading.Event()

            def on_chunk(_id: str, count: int) -> None:
                if count >= INJECT_AFTER_CHUNKS:
                    started.set()

            streams = [self.request(f"load-{i}", "load", prompts.short_prompt(), self.max_tokens, on_chunk)
                       for i in range(1, n + 1)]
            long_n = long_prompt_tokens(self.target.context, LOAD_LONG_PROMPT_TOKENS)
            inject = self.request("load-long", "load-long", prompts.long_prompt(long_n), LONG_PROMPT_OUTPUT_TOKENS)
            timer = threading.Timer(INJECT_AFTER_S, started.set)
            timer.daemon = True
            timer.start()
            self.progress(f"load: {n} streams at once, then one ~{long_n}-token prompt while they stream")
            try:
                self.run(streams, together=True, later=(started, inject))
            finally:
                timer.cancel()
        return self.result("load")
