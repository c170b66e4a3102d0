"""CPU_SPILL in Ollama: other processes hold much of the GPU's memory when Ollama takes its
inventory (`inference compute ... total= available=`), and every load is planned against what
is left, so a model that would fit the card runs partly on the CPU."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.plugins import check
from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel

COMMANDS = ("nvidia-smi  # (or rocm-smi) the processes that hold GPU memory besides Ollama",
            "ollama ps  # PROCESSOR should read 100% GPU once the memory is free")


@check(id="ollama-vram-held", cause=Cause.CPU_SPILL,
       purpose="Other processes hold much of the GPU's memory at Ollama's inventory: models get only what is "
               "left and spill to the CPU",
       engines=("ollama",))
def vram_held(ollama_log: OllamaLogSummary, ollama_ps: tuple[LoadedModel, ...] | None = None):
    from llmdoctor.judge.ollama import last_load_with, vram_held as held_at_start
    from llmdoctor.knowledge.units import human_bytes as human

    found = held_at_start(ollama_log)
    if found is None:
        return
    start, held = found
    load = last_load_with(ollama_log, "offloaded")
    if (load is not None and load.offloaded[0] >= load.offloaded[1]) or \
            (ollama_ps and all(m.cpu_percent == 0 for m in ollama_ps)):
        return  # what was loaded fit in what was left
    total = start.gpu_total_bytes
    ex = next((e for e in start.examples if "available=" in e.line and "library=cpu" not in e.line), start.examples[0])
    yield Finding(
        Cause.CPU_SPILL, Severity.WARNING,
        f"Other processes held {human(held)} ({round(100 * held / total)}%) of the GPU's {human(total)} when Ollama "
        f"started: models get only {human(total - held)}, and a larger one runs partly on the CPU",
        (Evidence(ex.source, ex.line),),
        Fix("Ollama plans every load against the GPU memory that is free at the time, so memory another program "
            "holds (a second Ollama or inference server, a desktop app, a notebook's CUDA context) is lost to the "
            "model and the rest of its layers go to the CPU. Stop or move that program, or give Ollama a GPU of its "
            "own (CUDA_VISIBLE_DEVICES); then reload the model.", COMMANDS),
        confidence=Confidence.HIGH if load is not None or ollama_ps else Confidence.MEDIUM)
