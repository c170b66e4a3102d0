"""The concurrency sweep's driver: a warm-up, then bursts of 1, 2, 4, ... streams.

Each request is one `stream_client.stream` in its own thread, released together by a
barrier; the main thread only waits, so Ctrl-C lands there and an outside `cancel`
(the command's SIGTERM handler sets it) is seen within 50 ms: both shut every open
socket and the sweep returns what it measured, marked partial. Before each round the
token budget (the round's worst case must fit) and the deadline are checked; every
request's own time limit is capped by what is left of the deadline, and a request the
deadline cut off counts as interrupted, not failed.

The first measured request (level 1's first, after the warm-up that may pay for a model
load) times the plan: the default plan is cut to what fits the deadline, an explicit one
is kept; either way one line says what it will send, about how long that takes, and -
where it cannot fit - the --deadline it needs.
"""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import Callable

from llmdoctor.facts.live_probe.detect import Target
from llmdoctor.hosts.stream_client import Interrupt, StreamRequest, stream
from llmdoctor.knowledge.probe import prompts
from llmdoctor.knowledge.probe.limits import READ_TIMEOUT_S, WARMUP_TIMEOUT_S
from llmdoctor.knowledge.probe.result import CONNECT_ERROR, INTERRUPTED, STALLED, TIMEOUT, StreamSample
from llmdoctor.knowledge.probe.sweep import (BY_BUDGET, BY_DEADLINE, BY_FAILURE, BY_INTERRUPT, COMPLETE, FIT_SHARE,
                                             WARMUP_TOKENS, SweepLevel, SweepPlan, SweepResult, about, output_tokens,
                                             rounds_at, sweep_prompt)

Progress = Callable[[str], None]
MIN_ROUND_S = 1.0   # don't start a round with less of the deadline left than this
_GIVE_UP = (CONNECT_ERROR, TIMEOUT, STALLED)


class SweepRunner:
    def __init__(self, target: Target, plan: SweepPlan, progress: Progress | None = None,
                 cancel: threading.Event | None = None, request_timeout_s: float | None = None,
                 read_timeout_s: float = READ_TIMEOUT_S, warmup_timeout_s: float = WARMUP_TIMEOUT_S,
                 announce: Progress | None = None) -> None:
        self.target, self.plan = target, plan
        self.progress = progress or (lambda _msg: None)
        self.announce = announce or (lambda _msg: None)  # always shown (the plan line), progress only on a TTY
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
        self.spent_before = 0.0  # seconds of the deadline gone before the first measured request

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
                              f"was reached after {sent} requests; the result is partial{self.to_finish()}")
            return False
        return True

    def to_finish(self) -> str:
        """What a deadline stop adds: how long the plan needs and the flag to give it that."""
        if self.plan.estimate_s is None:
            return ""
        return f" (the plan needs about {about(self.plan.estimate_s)}: {self.plan.raise_deadline(self.spent_before)})"

    def size(self, first: StreamSample) -> None:
        """After the first measured request: fit the default plan to the deadline, time an
        explicit one, and say which in one line (before the next request)."""
        if not first.ok or first.end_s is None:
            return  # nothing to time it by; the deadline check before each round still holds
        request_s = max(first.end_s, 0.001)
        self.spent_before = max(0.0, first.sent_s)  # the warm-up (and a model load) came first
        room = self.plan.deadline_s - self.spent_before
        planned = self.plan
        if planned.fit_to_deadline:
            self.plan = planned.fitted(request_s, self.target.slots, room)
        else:
            self.plan = replace(planned, estimate_s=round(planned.needs_s(request_s, self.target.slots), 1))
        fits = self.plan.estimate_s <= FIT_SHARE * room
        slots = (f"{self.target.slots} slot{'s' if self.target.slots != 1 else ''}" if self.target.slots
                 else "slots unknown, counted as one")
        line = (f"plan: {self.plan.summary()} (one request took {request_s:.1f} s; {slots}); "
                f"the deadline is {about(self.plan.deadline_s)}")
        if self.plan.levels != planned.levels or self.plan.min_samples != planned.min_samples:
            line += f", so the default {planned.summary()} was cut to fit"
            self.notes.append(f"the default plan was cut to fit the {planned.deadline_s:g} s deadline: "
                              f"{self.plan.summary()} (one request took {request_s:.1f} s)")
        if not fits:
            line += f"; it will not fit: {self.plan.raise_deadline(self.spent_before)}"
        self.announce(line)

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
        at = 0
        while self.stopped_by == COMPLETE and at < len(self.plan.levels):  # (sizing may shorten the plan)
            c = self.plan.levels[at]
            at += 1
            samples: list[StreamSample] = []
            r = 0
            while r < rounds_at(c, self.plan.min_samples):
                r += 1
                if not self.may_start(c, sent):
                    break
                self.progress(f"sweep: {c} stream{'s' if c > 1 else ''} at once, round {r}/"
                              f"{rounds_at(c, self.plan.min_samples)} ({sent}/{self.plan.requests} sent, "
                              f"{self.tokens} tokens, {max(0.0, self.remaining()):.0f} s left)")
                samples += self.burst([self.request(f"sweep-c{c}-r{r}-{i}", f"sweep-{c}", self.plan.max_tokens)
                                       for i in range(1, c + 1)])
                sent += c
                if sent == 1 and not self.stop.is_set():
                    self.size(samples[0])
            rounds = rounds_at(c, self.plan.min_samples)
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
        elif self.stopped_by == BY_DEADLINE and not any(n.startswith("stopped before") for n in self.notes):
            self.notes.append(f"the {self.plan.deadline_s:g} s deadline stopped requests in flight; "
                              f"the result is partial{self.to_finish()}")
        t = self.target
        return SweepResult(url=t.url, engine=t.engine, model=t.model, plan=self.plan, slots=t.slots,
                           levels=tuple(levels), warmup=warm, stopped_by=self.stopped_by, tokens_used=self.tokens,
                           wall_s=round(time.monotonic() - self.t0, 3), started_at=started, notes=tuple(self.notes))
