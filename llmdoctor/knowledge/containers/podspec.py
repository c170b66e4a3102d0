"""PodSpec: the engine's container in a Kubernetes pod, as every pod reader returns it.

Why apart from the readers: `kubectl get pod -o json`, a manifest (pod.py) and `kubectl describe`
text (describe.py) all give one, and the checks read it the way they read a docker container
(a ContainerSpec of form "pod"), with what only a pod has: its owner, limits, last state, events.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from llmdoctor.knowledge.containers.inspect import ContainerSpec

GPU_RESOURCE = re.compile(r"^(?:nvidia\.com/(?:gpu|mig-[\w.-]+)|amd\.com/gpu|gpu\.intel\.com/[\w.-]+)$")


@dataclass(frozen=True)
class PodSpec(ContainerSpec):
    """The engine's container in a pod, with what only a pod has."""

    namespace: str | None = None
    pod: str | None = None
    container: str | None = None  # the container's name in the pod
    owner: str | None = None  # "deploy/NAME", "sts/NAME", "ds/NAME" (None: a bare pod)
    context: str | None = None  # the kubeconfig context it was read through, when one was given
    node: str | None = None
    command: tuple[str, ...] = ()  # `command:` and `args:` apart: a fix edits the one the pod uses
    args: tuple[str, ...] = ()
    limits: dict[str, str] = field(default_factory=dict)
    env_from: tuple[str, ...] = ()  # names whose values come from a Secret, a ConfigMap or the API
    last_reason: str | None = None  # lastState.terminated.reason (OOMKilled, Error, Completed)
    last_finished: str | None = None
    waiting: str | None = None  # state.waiting.reason (CrashLoopBackOff, ...)
    runtime_class: str | None = None
    events: tuple[str, ...] = ()  # "Warning BackOff (x5): Back-off restarting failed container"
    others: tuple[str, ...] = ()  # the pod's other containers, by name
    picked: str | None = None  # which pod of a Deployment was read, and why that one
    limits_shown: bool = True  # False: a describe excerpt cut before the container's Limits

    @property
    def gpu_requested(self) -> bool | None:
        if any(GPU_RESOURCE.match(k) and str(v) not in ("0", "") for k, v in self.limits.items()):
            return True
        return False if (self.pod or self.container) and self.limits_shown else None

    def gpu_lines(self) -> list[str]:
        gpu = {k: v for k, v in self.limits.items() if GPU_RESOURCE.match(k)}
        if gpu:
            return [f"container {self.container}: resources.limits {', '.join(f'{k}: {v}' for k, v in gpu.items())}"]
        shown = ", ".join(f"{k}: {v}" for k, v in self.limits.items()) or "none"
        line = (f"container {self.container}: no nvidia.com/gpu in resources.limits (limits: {shown}), so the "
                "device plugin gives it no GPU")
        return [line + (f"; runtimeClassName: {self.runtime_class}" if self.runtime_class else "")]

    def state_lines(self) -> list[str]:
        out = []
        if self.last_reason:
            out.append(f"lastState.terminated.reason: {self.last_reason}"
                       + (f" (exitCode {self.exit_code})" if self.exit_code is not None else "")
                       + (f" at {self.last_finished}" if self.last_finished else ""))
        elif self.exit_code not in (None, 0):
            out.append(f"lastState.terminated.exitCode: {self.exit_code}"
                       + (" (137: killed, often for memory)" if self.exit_code == 137 else ""))
        if self.restart_count:
            out.append(f"restartCount: {self.restart_count}")
        if self.waiting:
            out.append(f"state.waiting.reason: {self.waiting}")
        return out

    @property
    def wants_gpu(self) -> bool:
        """The pod is meant for a GPU: a CUDA engine image (vllm/vllm-openai, not a -cpu build), the
        nvidia runtime class, or NVIDIA_VISIBLE_DEVICES in its env (all of which do nothing
        without a `nvidia.com/gpu` limit, which is what the device plugin allocates by)."""
        image = (self.image or "").lower()
        return bool(re.search(r"vllm/vllm-openai|llama\.cpp:server-cuda|:.*cuda|sglang", image)) and "cpu" not in image \
            or (self.runtime_class or "").startswith("nvidia") or "NVIDIA_VISIBLE_DEVICES" in self.env

    @property
    def engine_port(self) -> int | None:
        """The port the engine listens on in the pod: its `--port` flag, else the one containerPort."""
        for i, word in enumerate(self.argv):
            value = self.argv[i + 1] if word == "--port" and i + 1 < len(self.argv) else \
                word.split("=", 1)[1] if word.startswith("--port=") else None
            if value and value.isdigit():
                return int(value)
        ports = [p.split("/")[0] for p in self.ports]
        return int(ports[0]) if len(ports) == 1 and ports[0].isdigit() else None

    @property
    def memory_limit(self) -> str | None:
        return self.limits.get("memory")

    def where(self) -> str:
        """`deploy/NAME -n NS` (and `--context C`): what kubectl commands of a fix name."""
        obj = self.owner or f"pod/{self.pod or 'POD'}"
        return " ".join([obj, "-n", self.namespace or "default"] + (["--context", self.context] if self.context else []))


def engine_argv(command: tuple[str, ...], args: tuple[str, ...]) -> tuple[str, ...]:
    """The engine's own words: `sh -c "vllm serve M --flag"` (the docs' Deployment, 5h) and a whole
    command line written as one list item (vllm#4462) are split the way the shell would."""
    argv = command + args
    if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in ("sh", "bash") and argv[1] in ("-c", "-lc", "-ec"):
        argv = tuple(_split(argv[2])) + argv[3:]
    return tuple(w for a in argv for w in (_split(a) if " " in a.strip() and not a.startswith("-") else [a]))


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
