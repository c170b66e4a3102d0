"""Fact "gpu": the GPUs (memory total/used/free, driver) and the processes holding memory.

NVIDIA first: NVML on this machine; `nvidia-smi --query-* --format=csv` through host.run on
other hosts; nvidia_smi.txt (table or CSV) in an evidence directory. Where there is none, AMD:
amd-smi, rocm-smi or the amdgpu sysfs counters (facts/gpu_amd.py). No GPU is not an
error of the run: it becomes a "..." line naming what was tried.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from llmdoctor.hosts.base import CommandNotFound, HostError, NotInEvidence, Unanswerable
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider

if TYPE_CHECKING:  # llmdoctor.knowledge.nvidia is imported where used, once a GPU is to be read (start-up time)
    from llmdoctor.knowledge.nvidia import GpuFact

# What nvidia-smi is asked for, in this order (the CSV parsers are given the same tuples).
QUERY_GPU_FIELDS = ("index", "name", "memory.total", "memory.used", "memory.free", "driver_version", "uuid")
QUERY_APPS_FIELDS = ("gpu_uuid", "pid", "process_name", "used_memory")


def _process_names(ctx: Context, fact: GpuFact) -> GpuFact:
    """NVML gives PIDs only; name them from /proc/PID/comm where readable."""
    named = []
    for p in fact.processes:
        name = p.name
        if not name:
            try:
                name = ctx.host.read(f"/proc/{p.pid}/comm", 256).decode("utf-8", "replace").strip()
            except (OSError, HostError):
                name = ""
        named.append(replace(p, name=name))
    return replace(fact, processes=tuple(named))


def _remote(ctx: Context) -> GpuFact:
    try:
        res = ctx.host.run(
            ["nvidia-smi", f"--query-gpu={','.join(QUERY_GPU_FIELDS)}", "--format=csv,noheader,nounits"], timeout=15
        )
    except CommandNotFound:
        raise FactUnavailable("nvidia-smi not found: no NVIDIA driver") from None
    except NotInEvidence:
        try:  # only `nvidia-smi -q` was recorded (nvidia_smi_q.txt): its memory section
            res = ctx.host.run(["nvidia-smi", "-q"], timeout=15)
        except HostError:
            raise FactUnavailable("not in the evidence (no nvidia_smi.txt)", quiet=True) from None
    from llmdoctor.knowledge.nvidia import GpuFact, parse_compute_apps_csv, parse_nvidia_smi, parse_query_gpu_csv

    if res.source:  # a recorded output, in whatever form it was saved: the table or CSV with headers
        try:
            return replace(parse_nvidia_smi(res.stdout), source=res.source)
        except ParseError as e:
            raise FactUnavailable(f"unparseable {res.source}: {e}") from None
    if not res.ok:
        first = (res.stdout.strip() or res.stderr.strip() or f"exit status {res.returncode}").splitlines()[0]
        raise FactUnavailable(f"nvidia-smi: {first[:160]}")
    try:
        gpus = parse_query_gpu_csv(res.stdout, QUERY_GPU_FIELDS)
    except ParseError as e:
        raise FactUnavailable(f"unparseable nvidia-smi --query-gpu output: {e}") from None
    notes: list[str] = []
    procs = ()
    try:
        apps = ctx.host.run(
            ["nvidia-smi", f"--query-compute-apps={','.join(QUERY_APPS_FIELDS)}", "--format=csv,noheader,nounits"],
            timeout=15,
        )
        if apps.ok:
            procs = parse_compute_apps_csv(apps.stdout, QUERY_APPS_FIELDS, gpus)
        else:
            notes.append(f"nvidia-smi --query-compute-apps: exit status {apps.returncode}")
    except (HostError, ParseError) as e:
        notes.append(f"nvidia-smi --query-compute-apps: {e}")
    drivers = {g.driver for g in gpus if g.driver}
    return GpuFact("nvidia-smi", gpus, procs, drivers.pop() if len(drivers) == 1 else None, tuple(notes))


def _nvidia(ctx: Context) -> GpuFact:
    try:
        return _process_names(ctx, ctx.host.nvml())
    except Unanswerable:
        pass
    except HostError as e:  # NVML there, but no GPU or driver to read
        raise FactUnavailable(str(e)) from None
    return _process_names(ctx, _remote(ctx))


@provider("gpu")
def gpu(ctx: Context) -> GpuFact:
    """NVML where the host can reach it, else nvidia-smi through the host (a recording answers
    with its nvidia_smi.txt, table or CSV); where neither finds an NVIDIA GPU, the AMD ones."""
    try:
        return _nvidia(ctx)
    except FactUnavailable as e:
        nvidia = e
    from llmdoctor.facts.gpu_amd import read_amd

    try:
        return read_amd(ctx.host)
    except FactUnavailable as amd:
        if amd.quiet or nvidia.quiet:
            raise (nvidia if amd.quiet else amd) from None
        raise FactUnavailable(f"{nvidia.reason}; {amd.reason}") from None
