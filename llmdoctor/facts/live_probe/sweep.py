"""The concurrency sweep's driver: a warm-up, then bursts of 1, 2, 4, ... streams.

Each request is one `stream_client.stream` in its own thread, released together by a
barrier; the main thread only waits, so Ctrl-C lands there and an outside `cancel`
(the command's SIGTERM handler sets it) is seen within 50 ms: both shut every open
socket and the sweep returns what it measured, marked partial. Before each round the
token budget (the round's worst case must fit) and the deadline are checked; every
request's own time limit is capped by what is left of the deadline, and a request the
deadline cut off counts as interrupted, not failed.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Callable

from llmdoctor.facts.live_probe.detect import Target
from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, stream
from llmdoctor.knowledge.probe import prompts
from llmdoctor.knowledge.probe.limits import READ_TIMEOUT_S, WARMUP_TIMEOUT_S
from llmdoctor.knowledge.probe.result import CONNECT_ERROR, INTERRUPTED, STALLED, TIMEOUT, StreamSample
from llmdoctor.knowledge.probe.sweep import (BY_BUDGET, BY_DEADLINE, BY_FAILURE, BY_INTERRUPT, COMPLETE, WARMUP_TOKENS,
                                             SweepLevel, SweepPlan, SweepResult, output_tokens, rounds_at,
                                             sweep_prompt)

Progress = Callable[[str], None]
MIN_ROUND_S = 1.0   # don't start a round with less of the deadline left than this
_GIVE_UP = (CONNECT_ERROR, TIMEOUT, STALLED)


class SweepRunner:
    def __init__(self, target: Target, plan: SweepPlan, progress: Progress | None = None,
                 cancel: threading.Event | None = None, request_timeout_s: float | None = None,
                 read_timeout_s: float = READ_TIMEOUT_S, warmup_timeout_s: float = WARMUP_TIMEOUT_S) -> None:
        self.target, self.plan = target, plan
        self.progress = progress or (lambda _msg: None)
        self.cancel = cancel or threading.Event()
        self.stop = Interrupt()  # this sweep's own: its deadline must not stop the next URL's
        # One request may take the whole deadline: behind one slot, the 8th of 8 waits for 7 streams.
        self.request_timeout_s = request_timeout_s or plan.deadline_s
        self.read_timeout_s, self.warmup_timeout_s = read_timeout_s, warmup_timeout_s
        self.t0 = time.monotonic()
        self.deadline = self.t0 + plan.deadline_s
        self.stopped_by = COMPLETE
        self.notes: list[str] = []
        self.tokens = 0

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def request(self, id: str, scenario: str, max_tokens: int, patient: bool = False) -> StreamRequest:
        """A request may wait for its first byte as long as it may run: waiting in the
        server's queue is what the sweep measures (both are capped by the deadline)."""
        path, body = prompts.request(self.target.engine, self.target.model, sweep_prompt(), max_tokens)
        limit = max(self.request_timeout_s, self.warmup_timeout_s) if patient else self.request_timeout_s
        limit = max(0.5, min(limit, self.remaining()))
        return StreamRequest(id=id, scenario=scenario, url=self.target.url, path=path, body=body,
                             wire=self.target.wire, timeout_s=limit, read_timeout_s=self.read_timeout_s,
                             first_byte_timeout_s=limit)

    def burst(self, requests: list[StreamRequest]) -> list[StreamSample]:
        """Send the requests at once; the samples in request order."""
        out: dict[str, StreamSample] = {}
        barrier = threading.Barrier(len(requests)) if len(requests) > 1 else None

        def work(req: StreamRequest) -> None:
            try:
                out[req.id] = stream(req, self.t0, self.stop, barrier)
            except Exception as e:  # a bug must become a line in the result, not a lost thread
                out[req.id] = StreamSample(req.id, req.scenario, status=CONNECT_ERROR,
                                           error=f"probe failed: {type(e).__name__}: {e}")

        threads = [threading.Thread(target=work, args=(r,), daemon=True) for r in requests]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                if not self.stop.is_set() and (self.cancel.is_set() or self.remaining() <= 0):
                    self.halt(BY_INTERRUPT if self.cancel.is_set() else BY_DEADLINE)
                for t in threads:
                    t.join(0.05)
        except KeyboardInterrupt:
            self.cancel.set()
            self.halt(BY_INTERRUPT)
            if barrier is not None:
                barrier.abort()
            for t in threads:
                t.join(2.0)
        if self.remaining() <= 0:  # a request capped by the deadline may have timed out just before we saw it
            self.halt(BY_DEADLINE)
        samples = [out.get(r.id) or StreamSample(r.id, r.scenario, status=INTERRUPTED,
                                                error="never sent: the sweep was stopped") for r in requests]
        if self.stop.is_set():  # whatever ended while we stopped was cut off by us, not failed by the server
            samples = [s if s.ok else StreamSample(s.id, s.scenario, s.sent_s, INTERRUPTED, error=s.error)
                       for s in samples]
        self.tokens += sum(output_tokens(s) for s in samples)
        return samples

    def halt(self, why: str) -> None:
        if self.stopped_by == COMPLETE:
            self.stopped_by = why
        self.stop.set()

    def may_start(self, concurrency: int, sent: int) -> bool:
        """Whether a round of `concurrency` streams may start; else say why not."""
        if self.stop.is_set() or self.cancel.is_set():
            self.stopped_by = self.stopped_by or BY_INTERRUPT
            return False
        if self.tokens + concurrency * self.plan.max_tokens > self.plan.token_budget:
            self.stopped_by = BY_BUDGET
            self.notes.append(f"stopped before {concurrency} streams: the token budget of {self.plan.token_budget} "
                              f"output tokens ({self.tokens} used) would not cover its "
                              f"{concurrency * self.plan.max_tokens} more; the result is partial")
            return False
        if self.remaining() < MIN_ROUND_S:
            self.stopped_by = BY_DEADLINE
            self.notes.append(f"stopped before {concurrency} streams: the {self.plan.deadline_s:g} s deadline "
                              f"was reached after {sent} requests; the result is partial")
            return False
        return True

    def run(self) -> SweepResult:
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        warm = None
        if self.may_start(1, 0):
            self.progress("sweep: warm-up request (the first request may pay for a model load)")
            (warm,) = self.burst([self.request("sweep-warmup", "sweep-warmup", WARMUP_TOKENS, patient=True)])
            if not warm.ok and warm.status != INTERRUPTED:
                self.stopped_by = BY_FAILURE
                self.notes.append(f"the warm-up failed ({warm.status}: {warm.error}); nothing more was sent")
        levels: list[SweepLevel] = []
        sent = 0
        for c in self.plan.levels if self.stopped_by == COMPLETE else ():
            samples: list[StreamSample] = []
            rounds = rounds_at(c)
            for r in range(1, rounds + 1):
                if not self.may_start(c, sent):
                    break
                self.progress(f"sweep: {c} stream{'s' if c > 1 else ''} at once, round {r}/{rounds} "
                              f"({sent}/{self.plan.requests} sent, {self.tokens} tokens, "
                              f"{max(0.0, self.remaining()):.0f} s left)")
                samples += self.burst([self.request(f"sweep-c{c}-r{r}-{i}", f"sweep-{c}", self.plan.max_tokens)
                                       for i in range(1, c + 1)])
                sent += c
            if samples:
                done = len(samples) == c * rounds and not any(s.status == INTERRUPTED for s in samples)
                levels.append(SweepLevel(c, tuple(samples), complete=done))
            if self.stopped_by != COMPLETE:
                break
            if any(s.status in _GIVE_UP for s in samples) and c != self.plan.levels[-1]:
                self.stopped_by = BY_FAILURE
                self.notes.append(f"stopped after {c} streams: requests failed or timed out there, and more "
                                  f"streams would only add load")
                break
        if self.stopped_by == BY_INTERRUPT:
            self.notes.append("stopped by Ctrl-C or SIGTERM; the result is partial")
        elif self.stopped_by == BY_DEADLINE and not any("deadline" in n for n in self.notes):
            self.notes.append(f"the {self.plan.deadline_s:g} s deadline stopped requests in flight; "
                              f"the result is partial")
        t = self.target
        return SweepResult(url=t.url, engine=t.engine, model=t.model, plan=self.plan, slots=t.slots,
                           levels=tuple(levels), warmup=warm, stopped_by=self.stopped_by, tokens_used=self.tokens,
                           wall_s=round(time.monotonic() - self.t0, 3), started_at=started, notes=tuple(self.notes))
