"""Ollama reports "100% GPU" in ollama ps while the runner loaded only a CPU backend or holds no GPU memory."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import OLLAMA_GPU_HELD_SHARE

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel


@check(id="ollama-gpu-not-used", cause=Cause.CPU_SPILL,
       purpose='"100% GPU" in ollama ps while the runner loaded only a CPU backend or holds no GPU memory', engines=("ollama",))
def gpu_not_used(
    ollama_ps: tuple[LoadedModel, ...],
    ollama_log: OllamaLogSummary | None = None,
    gpu: GpuFact | None = None,
    ollama_deployment: str | None = None,
):
    from llmdoctor.judge.fixes import ollama_gpu_recheck
    from llmdoctor.judge.ollama import evs, gpu_process_bytes
    from llmdoctor.knowledge.units import human_bytes as human

    claimed = [m for m in ollama_ps if m.cpu_percent == 0]
    if not claimed:
        return
    m = claimed[0]
    proof = []
    load = ollama_log.loads[-1] if ollama_log is not None and ollama_log.loads else None
    if load is not None:
        if load.backends and all(b.upper().startswith("CPU") for b in load.backends):
            proof.append(Evidence(load.examples[0].source if load.examples else "ollama log",
                                  f"runner loaded only the {', '.join(load.backends)} backend"))
        if load.offloaded is not None and load.offloaded[0] == 0:
            proof += evs([e for e in load.examples if "offloaded" in e.line][:1])
        elif load.gpu_buffer_mib == 0 and load.host_buffer_mib > 0 and load.gpu_weights_bytes == 0:
            proof += evs([e for e in load.examples if "buffer size" in e.line][:2])
        elif load.host_weights_bytes > 0 and load.gpu_weights_bytes == 0:
            proof += evs([e for e in load.examples if "model weights" in e.line][:1])
    held = gpu_process_bytes(gpu)
    if held is not None and m.size and held < OLLAMA_GPU_HELD_SHARE * m.size:
        proof.append(Evidence("gpu", f"Ollama processes hold {human(held)} of GPU memory for a {human(m.size)} model"))
    if not proof:
        return
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL,
        f"`ollama ps` says {m.processor} for {m.name}, but the runner is computing on the CPU",
        [Evidence(m.source, m.line)] + proof,
        Fix("`ollama ps` shows the planned placement; the runner fell back to the CPU because the GPU backend did "
            "not load. Check the start-up log for CUDA/ROCm library errors, make sure the driver works "
            "(`nvidia-smi`), then restart Ollama and confirm the runner logs a CUDA/ROCm backend and GPU buffers.",
            ollama_gpu_recheck(ollama_deployment, "load_backend|buffer size|offloaded") or
            ("nvidia-smi", "systemctl restart ollama", "journalctl -u ollama -b | grep -E 'load_backend|buffer size|offloaded'")),
    )
