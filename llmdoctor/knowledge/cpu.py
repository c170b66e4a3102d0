"""CPU time on a host and who took it, as values (pure: the text comes from facts/cpu.py).

Read from `/proc/stat` (the aggregate `cpu` line: user nice system idle iowait irq softirq
steal, in clock ticks since boot; one `cpuN` line per core), `/proc/loadavg`, and each
process's `/proc/PID/stat` (fields 14-15, utime and stime, after the command name, which may
itself hold spaces and parentheses: the fields are counted from the last ")"). Two readings a
few seconds apart give the share of every core that was busy, stolen by the hypervisor, and
used by the engine's own processes; the rest of the busy time is other work's.
"""
from __future__ import annotations

from llmdoctor.model import Record, record
from llmdoctor.parsing import ParseError

TICKS_PER_S = 100  # USER_HZ: 100 on every Linux architecture llmdoctor runs on


@record
class CpuTimes(Record):
    """One reading: the aggregate ticks, the core count, every process's ticks and parent."""

    busy: int  # user + nice + system + irq + softirq (not steal, not iowait)
    idle: int  # idle + iowait
    steal: int
    cores: int
    procs: dict[int, tuple[int, int]]  # pid -> (ppid, utime + stime ticks)
    load1: float | None = None


def parse_proc_text(text: str) -> CpuTimes:
    """`cat /proc/stat /proc/loadavg /proc/[0-9]*/stat` in one text. ParseError without a `cpu` line."""
    busy = idle = steal = None
    cores = 0
    load1 = None
    procs: dict[int, tuple[int, int]] = {}
    for line in text.splitlines():
        if line.startswith("cpu "):
            f = [int(x) for x in line.split()[1:9] if x.isdigit()]
            if len(f) >= 8:
                user, nice, system, idl, iowait, irq, softirq, st = f[:8]
                busy, idle, steal = user + nice + system + irq + softirq, idl + iowait, st
        elif line.startswith("cpu") and line[3:4].isdigit():
            cores += 1
        elif ")" in line and line[:1].isdigit():
            pid_text, _, rest = line.partition(" (")
            fields = line[line.rfind(")") + 2:].split()
            if pid_text.isdigit() and len(fields) >= 13 and fields[1].isdigit() and fields[11].isdigit() \
                    and fields[12].isdigit():
                procs[int(pid_text)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
        elif load1 is None and line.count(" ") >= 4 and "/" in line:
            try:
                load1 = float(line.split()[0])
            except ValueError:
                pass
    if busy is None:
        raise ParseError("no aggregate `cpu` line (is this /proc/stat?)")
    return CpuTimes(busy, idle or 0, steal or 0, max(cores, 1), procs, load1)


def descendants(procs: dict[int, tuple[int, int]], roots) -> set[int]:
    """The roots and every process below them (Ollama computes in its runner, a child)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), [r for r in roots if r in procs]
    while todo:
        pid = todo.pop()
        if pid not in out:
            out.add(pid)
            todo += children.get(pid, [])
    return out


@record
class CpuSample(Record):
    """Between two readings, as shares of every core's time (1.0 = all cores for the whole window)."""

    seconds: float
    cores: int
    busy: float
    steal: float
    engine: float | None  # the engine's processes (None: none of them was found)
    others: float | None  # busy time that was not the engine's
    load1: float | None = None
    engine_pids: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__} | {"engine_pids": list(self.engine_pids)}

    @classmethod
    def from_dict(cls, d) -> "CpuSample":
        if not isinstance(d, dict):
            raise ValueError("cpu.json must be an object")

        def share(name: str, optional: bool = False) -> float | None:
            v = d.get(name)
            if v is None and optional:
                return None
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1e6:
                raise ValueError(f"{name!r} must be a number, not {v!r:.40}")
            return float(v)

        cores = d.get("cores")
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            raise ValueError("'cores' must be a positive integer")
        pids = d.get("engine_pids") or []
        return cls(share("seconds"), cores, share("busy"), share("steal"), share("engine", True),
                   share("others", True), share("load1", True), tuple(int(p) for p in pids if isinstance(p, int)))


def sample(before: CpuTimes, after: CpuTimes, seconds: float, engine_roots) -> CpuSample:
    total = (after.busy - before.busy) + (after.idle - before.idle) + (after.steal - before.steal)
    if total <= 0:
        raise ParseError("the two readings of /proc/stat are the same")
    pids = descendants(after.procs, engine_roots)
    engine = None
    if pids:
        used = sum(after.procs[p][1] - before.procs.get(p, (0, after.procs[p][1]))[1] for p in pids)
        engine = max(0.0, used / total)
    busy = (after.busy - before.busy) / total
    return CpuSample(round(seconds, 3), after.cores, busy, (after.steal - before.steal) / total, engine,
                     None if engine is None else max(0.0, busy - engine), after.load1, tuple(sorted(pids)))
