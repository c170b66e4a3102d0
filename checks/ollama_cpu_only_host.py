"""A CPU-only Ollama on a host with no GPU: stated as a fact (info), never as a fault.

Where nothing says a GPU was there or planned for (no GPU device in Ollama's start-up
inventory, none in the host's GPU fact, no GPU library missing or without a device), a runner
on the CPU is how this host works: the reader should know that every figure is a CPU's, and
that the faults to look for are memory and bandwidth, not a lost GPU.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary


@check(id="ollama-cpu-only-host", cause=Cause.CPU_SPILL,
       purpose="Ollama's start-up inventory lists only the CPU and nothing shows a GPU on the host: a fact, not a fault",
       engines=("ollama",))
def cpu_only_host(ollama_log: OllamaLogSummary, gpu: GpuFact | None = None):
    from llmdoctor.judge.ollama import gpu_expected

    log = ollama_log
    starts = [s for s in log.startups if s.libraries and s.examples]
    if not starts or any(set(s.libraries) != {"cpu"} for s in starts) or gpu_expected(log, gpu) is not None:
        return  # a GPU listed, or an inventory line not read whole (a wrapped paste)
    if (log.gpu_seen is not None or log.gpu_libraries_empty.count or log.cpp.no_device or log.libdir_missing.count
            or log.gpu_init_failures.count or log.gpu_rejected.count
            or (log.estimator or {}).get("library", "cpu") != "cpu"):
        return  # a GPU was there or planned for: ollama-no-gpu-runner and ollama-gpu-lost speak
    ex = starts[-1].examples[0]
    yield Finding(
        Cause.CPU_SPILL, Severity.INFO,
        "Ollama runs on the CPU: its start-up inventory lists no GPU, and nothing shows one on this host",
        [Evidence(ex.source, ex.line)],
        Fix("Nothing is misconfigured if this host has no GPU: generation speed is bounded by memory bandwidth, so "
            "prefer small quantised models and keep the context modest. If it does have one, check that the "
            "driver is installed and the GPU is passed to Ollama (container, VM), then restart Ollama.",
            "nvidia-smi -L || lspci | grep -iE 'vga|3d|display'  # is there a GPU at all?"),
    )
