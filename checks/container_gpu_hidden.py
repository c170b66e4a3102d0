"""The engine's container sees no GPU: none was passed in (`--gpus`, a device request,
`runtime: nvidia`, a CDI device), or one was requested and the engine still found none
(the NVIDIA container toolkit missing), while the host or the engine's log shows it matters."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.container import Container
    from llmdoctor.knowledge.nvidia import GpuFact


@check(id="container-gpu-hidden", cause=Cause.CPU_SPILL,
       purpose="the engine's container has no GPU passed in (or the toolkit is missing): it computes on the CPU")
def container_gpu_hidden(container: Container, engine_no_gpu_line: tuple[str, str] | None = None,
                         gpu: GpuFact | None = None):
    from llmdoctor.facts.engines import container_engine
    from llmdoctor.judge.fixes import container_gpu_fix

    requested = container.gpu_requested
    host_gpus = gpu.gpus if gpu is not None else ()
    if requested is None or (requested and engine_no_gpu_line is None):
        return
    if not requested and engine_no_gpu_line is None and not host_gpus and not getattr(container, "wants_gpu", False):
        return  # a CPU-only box running a CPU container: nothing is hidden
    proof = [Evidence(container.source, line) for line in container.gpu_lines()]
    if host_gpus:
        proof.append(Evidence(gpu.source, f"the host has {len(host_gpus)} GPU(s): {host_gpus[0].name}"))
    if engine_no_gpu_line is not None:
        proof.append(Evidence(*engine_no_gpu_line))
    podman = (container.runtime or "") in ("oci", "crun") or "podman" in container.source
    amd = gpu is not None and gpu.vendor == "amd"
    commands, config = container_gpu_fix(container_engine(container), container.image, podman, bool(requested),
                                         container.name, amd)
    if container.form == "pod":
        from llmdoctor.judge.pod_fixes import gpu_fix

        commands, config = gpu_fix(container.spec)
        summary = ("A pod gets a GPU only through a `nvidia.com/gpu` limit, which the NVIDIA device plugin allocates by; "
                   + ("the pod has one, yet the engine found no device: check the node's device plugin / GPU Operator "
                      "and the runtime class." if requested else
                      "this container has none, so the engine inside sees no GPU and computes on the CPU. Add the "
                      "limit to the Deployment's container; the rollout replaces the pod."))
        title = ("The pod has a GPU limit, but the engine found no GPU" if requested else
                 "The engine's pod has no nvidia.com/gpu limit, so it computes on the CPU")
    elif requested and amd:
        title = "The AMD GPU's devices are in the container, but the engine found none: groups or the image's ROCm"
        summary = ("The container has /dev/kfd and /dev/dri, yet the engine inside found no GPU, so it computes on the "
                   "CPU. Its user needs the devices' groups (video, render), and the image must be a ROCm build "
                   "(ollama/ollama:rocm, not the CUDA one); recreate the container with both.")
    elif requested:
        title = "A GPU was requested for the container, but the engine found none: the NVIDIA container toolkit is missing or broken"
        summary = ("The container asks for a GPU, yet the engine inside found no device, so it computes on the CPU. "
                   "Docker injects the GPU through the NVIDIA container toolkit: install it, register its runtime, "
                   "check that a plain container sees the GPU, then recreate the engine's container.")
    else:
        title = "The engine's container has no GPU passed in, so it computes on the CPU"
        summary = ("The container was created without a GPU (no `--gpus`, no device request, no `runtime: nvidia`, no "
                   "CDI device, no /dev/kfd for an AMD GPU), so the engine inside cannot see one and runs every layer on the CPU. Recreate the "
                   "container with the GPU passed in; a setting inside the container cannot change this.")
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL if host_gpus or engine_no_gpu_line else Severity.WARNING, title, proof,
        Fix(summary, commands, config), confidence=Confidence.HIGH if engine_no_gpu_line else Confidence.MEDIUM,
    )
