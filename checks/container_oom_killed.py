"""The engine's container (or pod) was killed for memory: `lastState.terminated.reason: OOMKilled`
on Kubernetes, `State.OOMKilled` under Docker. Every kill is a restart: the model loads again
from disk and every request in flight fails or waits, which users see as a slow, flaky server.
The limit is the container's memory limit (or the node's RAM), not an engine setting."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.container import Container

LEVERS = ("Give the container the memory the engine needs (the model's weights it maps, the KV cache or its "
          "CPU share, the runtime), or make it need less: a smaller or more quantised model, a shorter context, "
          "fewer parallel slots.")


@check(id="container-oom-killed", cause=Cause.SWAP,
       purpose="the engine's container or pod was OOM-killed (memory limit or node RAM): it restarts and reloads")
def container_oom_killed(container: Container):
    if not container.oom_killed:
        return
    proof = [Evidence(container.source, line) for line in container.state_lines()]
    pod = container.form == "pod"
    limit = container.limits.get("memory") if pod else None
    if pod:
        proof.append(Evidence(container.source, f"container {container.container}: resources.limits.memory "
                                                f"{limit or 'not set (the node RAM is the limit)'}"))
        from llmdoctor.judge.pod_fixes import EVENTS

        proof += [Evidence(container.source if not e.startswith(("Warning", "Normal")) else EVENTS, e)
                  for e in container.events if "OOM" in e or "BackOff" in e][:3]
    if pod:
        from llmdoctor.judge.pod_fixes import memory_fix, top_pod

        commands, config = memory_fix(container.spec, _double(limit) if limit else "32Gi")
        commands += top_pod(container.pod, container.namespace)
    else:
        from llmdoctor.judge.fixes import container_memory_fix

        commands, config = container_memory_fix(container.name or "CONTAINER", "32g"), ""
    yield Finding(
        Cause.SWAP, Severity.CRITICAL,
        f"The engine's {'pod' if pod else 'container'} was killed for memory (OOMKilled)"
        + (f" and restarted {container.restart_count} time(s)" if container.restart_count else ""),
        proof, Fix(LEVERS + (" On Kubernetes the memory limit is the container's resources.limits.memory: raise it "
                             "in the Deployment (with the request, so the scheduler places it on a node that has "
                             "it)." if pod else ""), commands, config),
    )


def _double(limit: str) -> str:
    """`20G` -> `40G`, `90Mi` -> `180Mi`: a first step up, the user sizes it from the model."""
    digits = "".join(ch for ch in limit if ch.isdigit() or ch == ".")
    unit = limit[len(digits):]
    try:
        return f"{float(digits) * 2:g}{unit}"
    except ValueError:
        return limit
