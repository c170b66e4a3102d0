"""Fact "cpu_load": who used the CPUs across the sampling window - the engine's processes, the
rest of the host, the hypervisor (steal) - so a slow engine on a box whose cores other work
holds is told from one that is slow on its own.

Live hosts: `/proc/stat`, `/proc/loadavg` and every `/proc/PID/stat` in one command at each end
of the window (one round trip over SSH). A recording answers from `cpu.json` (the sample as
`collect` computed it).
"""
from __future__ import annotations

import json
import time

from llmdoctor.facts import Context, FactUnavailable, provider, kept_json
from llmdoctor.hosts.base import HostError
from llmdoctor.parsing import ParseError

READ = ["sh", "-c", "cat /proc/stat /proc/loadavg /proc/[0-9]*/stat 2>/dev/null"]
MIN_WINDOW_S = 1.0  # ticks are 10 ms: a shorter window says little
MAX_WINDOW_S = 3.0  # enough for the shares; the run's other samplers take their own windows after


def _listeners(host, ports) -> list[int]:
    """The processes listening on the engines' ports, where discovery named a port but no
    process (an engine found by its API only): `ss -ltnp` (iproute2)."""
    import re

    pids: list[int] = []
    for port in ports:
        try:
            res = host.run(["ss", "-ltnpH", f"sport = :{port}"], timeout=5)
        except HostError:
            return pids
        pids += [int(p) for p in re.findall(r"\bpid=(\d+)", res.stdout)]
    return pids


@provider("cpu_load")
def cpu_load(ctx: Context, engines=()):
    from llmdoctor.knowledge.cpu import CpuSample

    return ctx.host.observe(lambda: _sample(ctx, engines),
                            lambda: kept_json(ctx.host, "cpu", lambda data: CpuSample.from_dict(json.loads(data))))


def _sample(ctx: Context, engines):
    """Who uses the CPUs, sampled now over the window."""
    from llmdoctor.knowledge.cpu import parse_proc_text, sample

    host = ctx.host
    if ctx.sample_seconds < MIN_WINDOW_S:
        raise FactUnavailable(f"CPU use not sampled (a window under {MIN_WINDOW_S:g} s)", quiet=True)

    def read():
        res = host.run(READ, timeout=15)
        if not res.stdout:
            raise FactUnavailable(f"/proc/stat could not be read: {res.stderr.strip()[:200] or 'no output'}")
        return parse_proc_text(res.stdout), time.monotonic()

    try:
        roots = [e.pid for e in engines or () if e.pid] or _listeners(host, [e.port for e in engines or () if e.port])
        (first, t0) = read()
        from llmdoctor.steps import waiting

        waiting(host, "sampling CPU load (/proc/stat)", min(ctx.sample_seconds, MAX_WINDOW_S))
        time.sleep(min(ctx.sample_seconds, MAX_WINDOW_S))
        (second, t1) = read()
        return sample(first, second, t1 - t0, roots)
    except HostError as e:
        raise FactUnavailable(f"CPU use: {e}") from None
    except ParseError as e:
        raise FactUnavailable(f"unparseable /proc/stat: {e}") from None
