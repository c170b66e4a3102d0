"""CPU_SPILL in Ollama: GPU discovery found a GPU and refused it (its type, compute capability or
driver does not qualify), so every model runs on the CPU."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary

# What to do, by what discovery said (its words, lower case, as in knowledge/ollama/catalogue.py).
ADVICE = (
    (("amdgpu is not supported", "is not supported by", "amdgpu too old"),
     "The ROCm library Ollama found has no kernels for this AMD GPU's gfx type (the `supported types` list). On Linux "
     "set HSA_OVERRIDE_GFX_VERSION to the nearest supported type (e.g. 10.3.0 for gfx103x, 11.0.0 for gfx110x) in "
     "the service's environment; on Windows install a ROCm library built for this gfx type; an empty list means "
     "the rocblas library directory is missing: reinstall."),
    (("no compatible rocm library",),
     "An AMD GPU was found but no ROCm runner library: install Ollama's ROCm package (ollama-linux-amd64-rocm) or ROCm."),
    (("cuda gpu is too old",),
     "The GPU's CUDA compute capability is below what this Ollama build supports: use a build for older GPUs or "
     "another GPU."),
    (("nvidia driver too old",),
     "The NVIDIA driver is older than the bundled CUDA runtime needs: upgrade the driver (the line names the "
     "version required)."),
    (("version mismatch between driver",),
     "The NVIDIA kernel driver and its user-space library differ, typically after a driver upgrade without a "
     "reboot: reboot (or reload the nvidia modules)."),
)


@check(id="ollama-gpu-rejected", cause=Cause.CPU_SPILL,
       purpose="Ollama's GPU discovery found a GPU and refused it (unsupported AMD gfx type, CUDA compute capability "
               "or driver too old, driver/library mismatch): it computes on the CPU",
       engines=("ollama",))
def gpu_rejected(ollama_log: OllamaLogSummary, ollama_deployment: str | None = None):
    rejected = ollama_log.gpu_rejected
    if not rejected.count:
        return
    from llmdoctor.judge.fixes import ollama_gpu_recheck
    from llmdoctor.judge.ollama import evs

    # a later start that did get a GPU makes the refusal history, not the present
    last = ollama_log.startups[-1] if ollama_log.startups else None
    if last is not None and last.has_gpu:
        return
    lines = " ".join(e.line.lower() for e in rejected.examples)
    advice = [text for needles, text in ADVICE if any(n in lines for n in needles)]
    evidence = evs(rejected.examples[:3])
    if ollama_log.no_gpu.count:
        evidence += evs(ollama_log.no_gpu.examples[:1])
    if last is not None and last.examples:
        evidence += evs(last.examples[:1])
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL,
        "Ollama found a GPU but refused it: every model runs on the CPU",
        evidence,
        Fix(" ".join(advice) + " Then restart Ollama and check that the start-up log's `inference compute` line "
            "names the GPU.",
            ollama_gpu_recheck(ollama_deployment, "inference compute|not supported|too old") or
            ("systemctl restart ollama", "journalctl -u ollama -b | grep -E 'inference compute|not supported|too old'")),
    )
