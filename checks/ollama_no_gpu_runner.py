"""Ollama's runner has no GPU backend (libraries missing, none compatible, or the device not found): it computes on the CPU."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


GPU_NAMES = ("cuda", "rocm", "hip", "vulkan", "metal", "mtl", "sycl", "oneapi", "cann", "musa")


def _is_gpu_backend(name: str) -> bool:
    return any(name.lower().startswith(g) for g in GPU_NAMES)


@check(id="ollama-no-gpu-runner", cause=Cause.CPU_SPILL,
       purpose="Ollama's runner has no GPU backend (libraries missing, none compatible, or the device not found): it computes on the CPU",
       engines=("ollama",))
# A CPU-only runner inventory is a finding only where a GPU was found or planned for; missing
# libraries and a GPU backend without a device are one wherever they occur.
def no_gpu_runner(ollama_log: OllamaLogSummary, gpu: GpuFact | None = None, ollama_deployment: str | None = None):
    from llmdoctor.judge.fixes import ollama_gpu_recheck
    from llmdoctor.judge.ollama import evs, gpu_expected

    log = ollama_log
    seen = gpu_expected(log, gpu)
    if seen is None and log.gpu_seen is not None:
        seen = Evidence(log.gpu_seen.source, log.gpu_seen.line)
    proof, why = [], ""
    if seen is not None and log.runner_backends is not None and not any(_is_gpu_backend(b) for b in log.runner_backends):
        proof.append(Evidence(log.runner_backends_example.source, log.runner_backends_example.line))
        why = f"the runner loaded only {', '.join(log.runner_backends) or 'no'} backend(s)"
        if log.runner_backends == ("CPU",) and "SSE" not in log.runner_backends_example.line \
                and "AVX" not in log.runner_backends_example.line:
            why += " (not even an optimised CPU library)"
    if log.gpu_libraries_empty.count:
        proof += evs(log.gpu_libraries_empty.examples[:1])
        why = why or "no compatible GPU runner library was found"
    if seen is not None and log.runner_libraries is not None and not any(_is_gpu_backend(r) for r in log.runner_libraries):
        proof.append(Evidence(log.runner_libraries_example.source, log.runner_libraries_example.line))
        why = why or f"the runners installed are {', '.join(log.runner_libraries)}: none for a GPU"
    if log.cpp.no_device:
        proof.append(Evidence(log.sources[0] if log.sources else "ollama log", log.cpp.no_device[0]))
        why = why or "the runner's GPU backend found no device"
    if log.libdir_missing.count:
        proof += evs(log.libdir_missing.examples[:1])
        why = why or "Ollama's runner library directory is missing"
    if not proof:
        return
    if seen is not None and not any(seen.text == p.text for p in proof):
        proof.insert(0, seen)
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL if seen is not None else Severity.WARNING,
        f"Ollama computes on the CPU{' although a GPU was found for it' if seen is not None else ''}: {why}",
        proof,
        Fix("The GPU runner libraries (lib/ollama/cuda_v12, rocm, ...) were not found next to the ollama binary, so "
            "every layer runs on the CPU even where the plan says GPU. This happens when two installs are mixed "
            "(a tarball unpacked into /usr beside the install script's /usr/local), when only the binary was "
            "copied to an offline host, or when a container has no GPU passed in. Install once, completely: "
            "remove the other copies, unpack the whole archive (bin/ and lib/ollama/) into one prefix or rerun "
            "the install script on this host, then restart and check that the start-up log lists a CUDA/ROCm "
            "backend and 'offloaded N/N layers to GPU'.",
            ollama_gpu_recheck(ollama_deployment, "inference compute|load_backend|offloaded") or
            ("which -a ollama", "ls /usr/local/lib/ollama /usr/lib/ollama", "curl -fsSL https://ollama.com/install.sh | sh",
             "systemctl restart ollama", "journalctl -u ollama -b | grep -E 'inference compute|load_backend|offloaded'")),
        confidence=Confidence.HIGH if seen is not None else Confidence.MEDIUM,
    )
