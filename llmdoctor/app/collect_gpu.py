"""AMD GPU evidence for `collect`: amd-smi's (or rocm-smi's) JSON and copies of the amdgpu sysfs
memory counters under files/sys/class/drm/, the files facts/gpu_amd.py reads back from an
evidence directory. A host without AMD tools or cards leaves no file and no note."""
from __future__ import annotations

from llmdoctor.facts.gpu_amd import AMD_SMI_METRIC, AMD_SMI_STATIC, ROCM_SMI, SYSFS_ROOT, TIMEOUT
from llmdoctor.hosts.base import CommandNotFound, Host, HostError

OUTPUTS = ((AMD_SMI_METRIC, "amd_smi_metric.json"), (AMD_SMI_STATIC, "amd_smi_static.json"), (ROCM_SMI, "rocm_smi.json"))


def collect_amd(host: Host, put) -> None:
    """Raises HostError naming the tools that are there but failed."""
    failed, wrote = [], set()
    for argv, name in OUTPUTS:
        if name == "rocm_smi.json" and "amd_smi_metric.json" in wrote:
            break  # amd-smi answered: rocm-smi would say the same, slower
        try:
            res = host.run(list(argv), timeout=TIMEOUT)
        except CommandNotFound:
            continue
        except HostError as e:
            failed.append(f"{' '.join(argv[:2])}: {e}")
            continue
        if res.ok:
            put(name, res.stdout)
            wrote.add(name)
        else:
            failed.append(f"{' '.join(argv[:2])}: exit {res.returncode}: {(res.stderr or res.stdout).strip()[:160]}")
    _sysfs_copies(host, put)
    if failed:
        raise HostError("; ".join(failed))


def _sysfs_copies(host: Host, put) -> None:
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
                put(f"files{base}/{name}", host.read(f"{base}/{name}", 64).decode("ascii", "replace"))
            except (OSError, HostError):
                pass
