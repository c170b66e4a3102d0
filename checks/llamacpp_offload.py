"""CPU_SPILL in llama-server: a GPU backend that found no device, or layers left on the CPU."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.judge.fixes import LIST_DEVICES, llama, remedy_fix
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.judge.thresholds import CPU_SPILL_CRITICAL_PCT

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.llamacpp import LlamaLog
    from llmdoctor.knowledge.llamacpp.cmdline import LlamaCmdline
    from llmdoctor.knowledge.nvidia import GpuFact


def _gpu_asked(cmdline) -> bool:
    return cmdline is not None and bool(cmdline.gpu_layers) and cmdline.gpu_layers > 0


def _init_failed(lines) -> bool:
    """"ggml_cuda_init: failed to initialize CUDA: ..." (catalogue llama.cpp.backend.cuda_init_failed): only a
    CUDA/ROCm build prints it, so a GPU backend is there and failed, whatever else the evidence holds."""
    return any("ggml_cuda_init: failed to initialize" in line for line in lines)


@check(id="llamacpp-cpu-fallback", cause=Cause.CPU_SPILL,
       purpose="llama-server computes on the CPU: its GPU backend found no device, or layers stayed on the CPU",
       engines=("llamacpp",))
def cpu_fallback(llamacpp_log: LlamaLog, llamacpp_cmdline: LlamaCmdline | None = None, gpu: GpuFact | None = None):
    for scan in llamacpp_log.scans:
        c = scan.cpp
        if c.no_device and (c.gpu_backend or _gpu_asked(llamacpp_cmdline) or "--gpu-layers" in c.no_device[0]
                            or _init_failed(c.no_device) or (gpu is not None and gpu.total_bytes)):
            ev = [Evidence(scan.source, line) for line in c.no_device[:2]]
            ev.append(Evidence(scan.source, "backends loaded: " + (", ".join(c.backends) or "none named")))
            yield Finding(
                Cause.CPU_SPILL, Severity.CRITICAL,
                f"llama-server runs every layer on the CPU: its {c.gpu_backend or 'GPU'} backend found no usable device",
                ev,
                Fix("The GPU backend loaded but saw no GPU, so llama-server fell back to the CPU. Make the device "
                    "visible to it: in a container pass the GPU (--gpus all / --device /dev/dri for Vulkan) and make "
                    "sure the image has the driver's user-space libraries (for Vulkan the GL/Vulkan loader, "
                    "libglvnd, and the Mesa or NVIDIA ICD); on the host check `nvidia-smi` or `vulkaninfo --summary`. "
                    "Restart and confirm the log shows the device and 'offloaded N/N layers to GPU'.",
                    LIST_DEVICES))
            return
        if c.offloaded is None:
            continue
        on, total = c.offloaded
        if total <= 0 or on >= total:
            continue
        gpu_there = c.gpu_backend or c.devices_found or c.gpu_buffer_mib > 0 or (gpu is not None and gpu.total_bytes)
        if on == 0 and not gpu_there:
            continue  # a CPU-only machine: nothing spilled
        from llmdoctor.knowledge.llamacpp.cmdline import flash_attention_flag
        share = round(100 * (total - on) / total)
        ev = [Evidence(scan.source, c.offload_line)] + [Evidence(scan.source, l) for l in c.buffer_lines[:2]]
        zero = on == 0
        yield Finding(
            Cause.CPU_SPILL, Severity.CRITICAL if share >= CPU_SPILL_CRITICAL_PCT else Severity.WARNING,
            (f"llama-server keeps all {total} layers on the CPU although a GPU is there" if zero else
             f"llama-server runs {total - on} of {total} layers ({share}%) on the CPU, and every token waits for them"),
            ev,
            remedy_fix(("No layers were offloaded: pass --n-gpu-layers (-ngl 999 offloads all that exist; older builds "
                 "offload none by default). " if zero else
                 "The model does not fit in GPU memory with this context. ")
                + "Make weights plus KV cache fit: a smaller quantisation, a smaller -c (KV memory is context "
                  "x slots), a quantised KV cache (-ctk q8_0 -ctv q8_0 with -fa on), or fewer slots.",
                llama({"-ngl": 999} if zero else {"-ngl": 999, "-fa": flash_attention_flag(scan.build), "-ctk": "q8_0",
                                                  "-ctv": "q8_0"})))
        return
