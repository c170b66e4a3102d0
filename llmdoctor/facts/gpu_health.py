"""Facts "gpu_health" (clocks, throttle reasons, power, temperature, PCIe link, ECC, persistence
of each NVIDIA GPU) and "gpu_xid" (the driver's XID errors in the kernel log).

gpu_health: the readings NVML took with the memory (fact "gpu") where it reached the GPUs;
otherwise `nvidia-smi -q` through the host (an evidence directory answers with
nvidia_smi_q.txt, or an nvidia_smi.txt that holds `-q` output). gpu_xid: `journalctl -k` of
this boot, else `dmesg` (kernel_xid.log in evidence). No NVIDIA GPU, no tool, no permission:
a quiet "unavailable" - a host without a GPU gets no GPU finding and no noise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.hosts.base import CommandNotFound, HostError, NotInEvidence

if TYPE_CHECKING:
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact
    from llmdoctor.knowledge.nvidia_xid import KernelXids

QUERY = ["nvidia-smi", "-q"]
# journald's own filter keeps the output small on a busy host; dmesg where there is no journal
KERNEL_LOG = (["journalctl", "-k", "-b", "-q", "--no-pager", "-o", "short-iso", "--grep", "NVRM: Xid"],
              ["dmesg", "-T"])
TIMEOUT_S = 20


def _nvidia_driver_loaded(ctx: Context) -> bool:
    try:
        return ctx.host.exists("/proc/driver/nvidia/version")
    except (OSError, HostError):
        return False


@provider("gpu_health")
def gpu_health(ctx: Context, gpu: GpuFact | None = None) -> GpuHealthFact:
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact, looks_like_query, parse_query
    from llmdoctor.parsing import ParseError

    if gpu is not None and gpu.health:
        return GpuHealthFact(gpu.source, gpu.health, gpu.driver)
    if gpu is not None and gpu.vendor == "amd":
        return _amd(ctx)
    try:
        res = ctx.host.run(QUERY, timeout=TIMEOUT_S)
    except (CommandNotFound, NotInEvidence):
        raise FactUnavailable("no `nvidia-smi -q` output (no NVIDIA GPU, or not recorded)", quiet=True) from None
    except HostError as e:
        raise FactUnavailable(f"nvidia-smi -q: {e}") from None
    if res.source and res.source not in ctx.host.kept("nvidia-smi -q") and not looks_like_query(res.stdout):  # nvidia_smi.txt's table answered
        raise FactUnavailable(f"no `nvidia-smi -q` output ({res.source} is another form)", quiet=True)
    if not res.ok:
        first = (res.stdout.strip() or res.stderr.strip() or f"exit status {res.returncode}").splitlines()[0]
        raise FactUnavailable(f"nvidia-smi -q: {first[:160]}", quiet=gpu is None and not res.source)
    try:
        fact = parse_query(res.stdout)
    except ParseError as e:
        raise FactUnavailable(f"unparseable {res.source or 'nvidia-smi -q output'}: {e}",
                              quiet=gpu is None and not res.source) from None
    return GpuHealthFact(res.source or fact.source, fact.gpus, fact.driver)


def _amd(ctx: Context) -> GpuHealthFact:
    """amdgpu's own files (pp_dpm_sclk, pp_dpm_pcie, gpu_busy_percent) per card: clock and link
    levels against the highest, and busy time. (amd-smi's throttle status is not read yet.)"""
    from llmdoctor.facts.gpu_amd import SYSFS_ROOT
    from llmdoctor.knowledge.amd import HEALTH_FILES, parse_sysfs_health
    from llmdoctor.knowledge.nvidia_query import GpuHealthFact

    try:
        cards = sorted((n for n in ctx.host.listdir(SYSFS_ROOT) if n.startswith("card") and n[4:].isdecimal()),
                       key=lambda n: int(n[4:]))
    except (OSError, HostError):
        raise FactUnavailable("AMD GPUs: no amdgpu power-management files to read", quiet=True) from None
    gpus = []
    for card in cards:
        files = {}
        for name in HEALTH_FILES:
            try:
                files[name] = ctx.host.read(f"{SYSFS_ROOT}/{card}/device/{name}", 4096).decode("ascii", "replace")
            except (OSError, HostError):
                pass
        found = parse_sysfs_health(len(gpus), f"AMD GPU ({card})", files)
        if found is not None:
            gpus.append(found)
    if not gpus:
        raise FactUnavailable("AMD GPUs: no amdgpu power-management files to read", quiet=True)
    from llmdoctor.facts.gpu_amd import sysfs_source

    return GpuHealthFact(sysfs_source(ctx.host, SYSFS_ROOT), tuple(gpus))


@provider("gpu_xid")
def gpu_xid(ctx: Context, gpu: GpuFact | None = None) -> KernelXids:
    from llmdoctor.knowledge.nvidia_xid import KernelXids, parse_xids

    def driver_loaded() -> None:  # a GPU that fell off the bus keeps it loaded
        if (gpu is None or gpu.vendor != "nvidia") and not _nvidia_driver_loaded(ctx):
            raise FactUnavailable("no NVIDIA driver loaded", quiet=True)

    ctx.host.observe(driver_loaded, lambda: None)  # a recording's kernel log is read whatever its GPUs
    tried = []
    for argv in KERNEL_LOG:
        try:
            res = ctx.host.run(argv, timeout=TIMEOUT_S)
        except (CommandNotFound, NotInEvidence) as e:
            tried.append(str(e))
            continue
        except HostError as e:
            tried.append(f"{argv[0]}: {e}")
            continue
        # journalctl --grep exits 1 when nothing matches: that is an answer (no XID), not a failure
        if res.ok or (argv[0] == "journalctl" and res.returncode == 1 and not res.stderr.strip()):
            return KernelXids(res.source or " ".join(argv[:2]), parse_xids(res.stdout))
        tried.append(f"{argv[0]}: {(res.stderr.strip() or f'exit status {res.returncode}').splitlines()[0][:120]}")
    if gpu is not None and gpu.source == "NVML":  # NVML answers here, the kernel log does not (a container): its events
        from llmdoctor.hosts.nvml import watch_xids
        from llmdoctor.knowledge.nvidia import GpuUnavailable
        from llmdoctor.knowledge.nvidia_xid import XidEvent

        try:
            seen = watch_xids(ctx.sample_seconds)
        except GpuUnavailable as e:
            tried.append(str(e))
        else:
            return KernelXids(f"NVML XID events over {ctx.sample_seconds:g} s", tuple(
                XidEvent(code, f"GPU {index}", None, "", "", f"GPU {index}: XID {code} (NVML event)")
                for index, code in seen))
    raise FactUnavailable("kernel log not readable: " + "; ".join(tried), quiet=True)
