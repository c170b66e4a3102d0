"""Give a real engine's session a lower CPU share than the test that drives and diagnoses it.

With the kernel's session autogroups on (the default here, kernel 6.18), a CPU-bound server started in
its own session (`start_new_session=True`) starved every process of the test's session on this 2-core
VM: while vLLM's CPU workers ran, one second of CPU took a busy loop of the test's session 60-100 s of
wall time, the load generator's clients could not send (vLLM logged `Waiting: 0 reqs` under eight
clients), and `llmdoctor diagnose` ran 180-220 s (CI, stop 36). With the server's autogroup at nice 5
the same second takes 1.0 s. Engines on real hosts run in their own services; this only keeps the
test's clients and the diagnosis from being starved by a scheduler quirk of this VM.
"""
from __future__ import annotations

import contextlib

ENGINE_AUTOGROUP_NICE = 5


def lower_session_share(pid: int, nice: int = ENGINE_AUTOGROUP_NICE) -> bool:
    """Set the autogroup nice of `pid`'s session; False where there are no autogroups or no right to."""
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
        return True
    return False
