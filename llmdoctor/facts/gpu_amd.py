"""AMD GPUs for the "gpu" fact, asked in this order: `amd-smi` (ROCm 6+), `rocm-smi` (older
ROCm, deprecated but widespread), then the amdgpu sysfs counters (no ROCm installed at all, as on
many Ollama and llama.cpp Vulkan hosts). Each failure (not installed, timed out, exit status,
output that is not the expected JSON) becomes part of one report line, never a traceback.
Parsing is llmdoctor.knowledge.amd's.
"""
from __future__ import annotations

from dataclasses import replace

from llmdoctor.facts import FactUnavailable
from llmdoctor.hosts.base import CommandNotFound, CommandTimeout, HostError, NotInEvidence
from llmdoctor.parsing import ParseError

AMD_SMI_METRIC = ("amd-smi", "metric", "--mem-usage", "--json")
AMD_SMI_STATIC = ("amd-smi", "static", "--asic", "--driver", "--json")
ROCM_SMI = ("rocm-smi", "--showmeminfo", "vram", "gtt", "--showproductname", "--json")
SYSFS_ROOT = "/sys/class/drm"
TIMEOUT = 15.0  # amd-smi initialises every GPU; seconds on a busy host


class _Skip(Exception):
    """This way of asking gave nothing; str() is its part of the report line ("" when quiet)."""


def _run(host, argv: tuple[str, ...]):
    try:
        res = host.run(list(argv), timeout=TIMEOUT)
    except CommandNotFound:
        raise _Skip(f"{argv[0]} not found") from None
    except CommandTimeout:
        raise _Skip(f"{argv[0]} timed out after {TIMEOUT:.0f} s") from None
    except NotInEvidence:
        raise _Skip("") from None
    except HostError as e:
        raise _Skip(f"{argv[0]}: {e}") from None
    if not res.source and not res.ok:
        first = (res.stderr.strip() or res.stdout.strip() or f"exit status {res.returncode}").splitlines()[0]
        raise _Skip(f"{' '.join(argv[:2])}: {first[:160]}")
    return res


def _amd_smi(host):
    res = _run(host, AMD_SMI_METRIC)
    from llmdoctor.knowledge import amd  # only once there is an output to read (start-up time)

    notes: list[str] = []
    static = {}
    try:
        static = amd.parse_amd_smi_static(_run(host, AMD_SMI_STATIC).stdout)
    except (_Skip, ParseError) as e:
        if str(e):
            notes.append(f"GPU names not read: {e}")
    try:
        cards = amd.parse_amd_smi_metric(res.stdout, static)
    except ParseError as e:
        raise _Skip(f"unparseable {res.source or 'amd-smi metric'} output: {e}") from None
    return amd.fact(cards, res.source or "amd-smi", tuple(notes))


def _rocm_smi(host):
    res = _run(host, ROCM_SMI)
    from llmdoctor.knowledge import amd

    try:
        return amd.fact(amd.parse_rocm_smi(res.stdout), res.source or "rocm-smi")
    except ParseError as e:
        raise _Skip(f"unparseable {res.source or 'rocm-smi'} output: {e}") from None


def _sysfs(host, root: str):
    try:
        names = host.listdir(root)
    except (OSError, HostError):
        raise _Skip("" if host.partial else f"no {root}") from None
    from llmdoctor.knowledge import amd

    cards = []
    for card in sorted((n for n in names if n.startswith("card") and n[4:].isdecimal()), key=lambda n: int(n[4:])):
        files = {}
        for name in amd.SYSFS_FILES:
            try:
                files[name] = host.read(f"{root}/{card}/device/{name}", 64).decode("ascii", "replace")
            except (OSError, HostError):
                pass
        found = amd.parse_sysfs_card(card, files)
        if found is not None:
            cards.append(replace(found, index=len(cards), name=f"{found.name} ({card})"))
    if not cards:
        raise _Skip("" if host.partial else f"no amdgpu card in {root}")
    return amd.fact(cards, sysfs_source(host, root))


def sysfs_source(host, root: str) -> str:
    """What the amdgpu files were read from, for evidence lines (a recording's copy of them)."""
    where = host.where(root)
    return where if where and where != root else "amdgpu sysfs"


def read_amd(host, sysfs_root: str = SYSFS_ROOT):
    """GpuFact of the host's AMD GPUs; FactUnavailable (quiet where a recording simply holds none)."""
    reasons = []
    for way in (_amd_smi, _rocm_smi, lambda h: _sysfs(h, sysfs_root)):
        try:
            return way(host)
        except _Skip as e:
            if str(e):
                reasons.append(str(e))
    if not reasons:
        raise FactUnavailable("not in the evidence (no amd_smi_metric.json, rocm_smi.json or amdgpu sysfs copy)", quiet=True)
    raise FactUnavailable("no AMD GPU: " + ", ".join(reasons))
