"""Synthetic sweeps from a token-by-token server with known parameters (for the fit's tests).

Independent of knowledge/probe/service.py's event-jumping simulation on purpose: it steps
one token at a time, as an engine does, so a test that the fit recovers the parameters also
checks that the simulation's jumps agree with plain stepping.
"""
from __future__ import annotations

import random

from llmdoctor.knowledge.probe.result import StreamSample
from llmdoctor.knowledge.probe.sweep import SweepLevel, SweepPlan, SweepResult, concurrency_levels, rounds_at


def serve_round(c, slots, overhead, k, prompt, d0, d1, out, t0, noise, rng, tag, tell_tps=True):
    """`c` requests released together at t0; one StreamSample each (times on the sweep's clock)."""
    waiting = list(range(c))
    active = {}  # i -> tokens left
    chunks = {i: [] for i in range(c)}
    t = t0
    while waiting or active:
        new = []
        while waiting and len(active) + len(new) < slots:
            new.append(waiting.pop(0))
        dur = k * prompt * len(new) + (d0 + d1 * len(active) if active else 0.0)
        dur *= 1 + noise * (2 * rng.random() - 1)
        t += dur
        for i in list(active):
            chunks[i].append(t)
            active[i] -= 1
            if not active[i]:
                del active[i]
        for i in new:
            chunks[i].append(t + overhead)
            active[i] = out - 1
    samples = []
    for i in range(c):
        first = chunks[i][0]
        rel = tuple(x - t0 for x in [first] + [max(x, first) for x in chunks[i][1:]])
        samples.append(StreamSample(f"sweep-c{c}-{tag}-{i}", f"sweep-{c}", sent_s=t0, ttft_s=rel[0], chunk_s=rel,
                                    end_s=rel[-1], prompt_tokens=prompt, completion_tokens=out,
                                    prefill_tps=(1.0 / k) if k and tell_tps else None))
    return samples, t


def synthetic_sweep(slots=1, overhead=0.02, k=0.002, prompt=20, d0=0.01, d1=0.002, out=64, max_c=8,
                    noise=0.0, seed=1, tell_slots=True, engine="llamacpp", tell_tps=True):
    rng = random.Random(seed)
    t = 0.0
    levels = []
    for c in concurrency_levels(max_c):
        samples = []
        for r in range(rounds_at(c)):
            got, t = serve_round(c, slots, overhead, k, prompt, d0, d1, out, t + 0.05, noise, rng, f"r{r}", tell_tps)
            samples += got
        levels.append(SweepLevel(c, tuple(samples)))
    plan = SweepPlan(max_concurrency=max_c, max_tokens=out)
    return SweepResult("http://127.0.0.1:1", engine, "m", plan, slots if tell_slots else None, tuple(levels))
