"""AMD GPU evidence for `collect`: amd-smi's (or rocm-smi's) JSON and copies of the amdgpu sysfs
memory counters, which facts/gpu_amd.py reads back from an evidence directory (hosts/bundle.py
names the files). A host without AMD tools or cards leaves no file and no note."""
from __future__ import annotations

from llmdoctor.facts.gpu_amd import AMD_SMI_METRIC, AMD_SMI_STATIC, ROCM_SMI, SYSFS_ROOT, TIMEOUT
from llmdoctor.hosts.base import CommandNotFound, Host, HostError


def collect_amd(host: Host, bundle) -> None:
    """Raises HostError naming the tools that are there but failed."""
    failed, wrote = [], set()
    for argv in (AMD_SMI_METRIC, AMD_SMI_STATIC, ROCM_SMI):
        if argv is ROCM_SMI and AMD_SMI_METRIC in wrote:
            break  # amd-smi answered: rocm-smi would say the same, slower
        try:
            res = host.run(list(argv), timeout=TIMEOUT)
        except CommandNotFound:
            continue
        except HostError as e:
            failed.append(f"{' '.join(argv[:2])}: {e}")
            continue
        if res.ok:
            bundle.command(list(argv), res.stdout)
            wrote.add(argv)
        else:
            failed.append(f"{' '.join(argv[:2])}: exit {res.returncode}: {(res.stderr or res.stdout).strip()[:160]}")
    _sysfs_copies(host, bundle)
    if failed:
        raise HostError("; ".join(failed))


def _sysfs_copies(host: Host, bundle) -> None:
    from llmdoctor.knowledge.amd import SYSFS_FILES

    try:
        cards = [n for n in host.listdir(SYSFS_ROOT) if n.startswith("card") and n[4:].isdecimal()]
    except (OSError, HostError):
        return
    for card in cards:
        base = f"{SYSFS_ROOT}/{card}/device"
        try:
            if host.read(f"{base}/vendor", 64).decode("ascii", "replace").strip().lower() != "0x1002":
                continue
        except (OSError, HostError):
            continue
        for name in SYSFS_FILES:
            try:
                bundle.copy(f"{base}/{name}", host.read(f"{base}/{name}", 64).decode("ascii", "replace"))
            except (OSError, HostError):
                pass
