"""A real, bounded burst of swap activity on this machine (TESTBED.md "Real swap activity").

Needs root, cgroup v1 memory controller and swapon. Everything it sets up is undone
in `finally`: the child process, the cgroup, the swap file.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

CGROUP_ROOT = "/sys/fs/cgroup/memory"

# Touches `mib` MiB in a loop for `seconds`; inside a 64 MiB cgroup this swaps.
_TOUCHER = r"""
import sys, time
mib, seconds = int(sys.argv[1]), float(sys.argv[2])
buf = bytearray(mib * 1024 * 1024)
end = time.monotonic() + seconds
while time.monotonic() < end:
    for i in range(0, len(buf), 4096):
        buf[i] = (buf[i] + 1) & 0xFF
"""


def skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (swapon, cgroup)"
    if not os.path.isfile(os.path.join(CGROUP_ROOT, "memory.limit_in_bytes")):
        return "no cgroup v1 memory controller at /sys/fs/cgroup/memory"
    for tool in ("mkswap", "swapon", "swapoff"):
        if shutil.which(tool) is None:
            return f"{tool} not installed"
    return None


@contextlib.contextmanager
def swapping(seconds: float = 6.0, mib: int = 192, limit_mib: int = 64, swap_mib: int = 512):
    """Yield the toucher's Popen while it swaps; undo everything afterwards."""
    tmp = tempfile.mkdtemp(prefix="llmdoctor-swap-")
    swapfile = os.path.join(tmp, "swapfile")
    cgroup = os.path.join(CGROUP_ROOT, f"llmdoctor-swaptest-{os.getpid()}")
    proc = None
    swap_on = False
    try:
        subprocess.run(["dd", "if=/dev/zero", f"of={swapfile}", "bs=1M", f"count={swap_mib}"],
                       check=True, capture_output=True, timeout=60)
        os.chmod(swapfile, 0o600)
        subprocess.run(["mkswap", swapfile], check=True, capture_output=True, timeout=30)
        subprocess.run(["swapon", swapfile], check=True, capture_output=True, timeout=30)
        swap_on = True
        os.mkdir(cgroup)
        with open(os.path.join(cgroup, "memory.limit_in_bytes"), "w") as f:
            f.write(str(limit_mib * 1024 * 1024))
        with open(os.path.join(cgroup, "memory.swappiness"), "w") as f:
            f.write("100")
        proc = subprocess.Popen(
            [sys.executable, "-c", _TOUCHER, str(mib), str(seconds)],
            preexec_fn=lambda: open(os.path.join(cgroup, "cgroup.procs"), "w").write(str(os.getpid())),
        )
        yield proc
    finally:
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
        if os.path.isdir(cgroup):
            for _ in range(50):
                try:
                    os.rmdir(cgroup)
                    break
                except OSError:
                    time.sleep(0.1)
        if swap_on:
            subprocess.run(["swapoff", swapfile], capture_output=True, timeout=120)
        shutil.rmtree(tmp, ignore_errors=True)
