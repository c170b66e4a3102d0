"""ENGINE_STALLED: the engine accepts connections or answers its health endpoint, but makes no
progress - requests in flight and not one token across the sampling window, or a port that
takes connections while its API answers nothing."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.progress import EngineProgress

NAMES = {"llamacpp": "llama-server", "vllm": "vLLM", "sglang": "SGLang"}
STACKS = {"llamacpp": "gdb -p PID -batch -ex 'thread apply all bt'",
          "vllm": "py-spy dump --pid PID  # the EngineCore process, and the API server's",
          "sglang": "py-spy dump --pid PID  # the scheduler process"}


@check(id="engine-stalled", cause=Cause.ENGINE_STALLED,
       purpose="The engine takes connections or answers /health but makes no progress: requests in flight, no token",
       needs=("engine_progress",))
def engine_stalled(engine_progress: tuple[EngineProgress, ...] = ()):
    from llmdoctor.judge.progress import STALLED, from_readings

    for p in engine_progress:
        where = f"{NAMES.get(p.kind, p.kind)} :{p.port}"
        if p.health == "timeout":
            why, lines = "its port takes connections but the health endpoint answers nothing", (p.health_line,)
        else:
            verdict = from_readings(p.readings, p.health_line)
            if verdict is None or verdict.state != STALLED:
                continue
            why, lines = verdict.reason, verdict.evidence
        yield Finding(
            Cause.ENGINE_STALLED, Severity.CRITICAL,
            f"{where} is up but not serving: {why}",
            [Evidence(where, line) for line in lines],
            Fix("A wedged engine does not recover on its own and a health check that only asks /health will not "
                "notice. Take a stack of its processes first (it shows where it hangs: a collective, a CUDA call, a "
                "lock), then restart it. Give the load balancer or orchestrator a check that proves progress: "
                "`llmdoctor ready URL` (exit 2 exactly in this state).",
                (STACKS.get(p.kind, "py-spy dump --pid PID"), "systemctl restart UNIT  # or restart the container/pod",
                 f"llmdoctor ready http://127.0.0.1:{p.port}")),
        )
