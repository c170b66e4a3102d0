"""Part (or all) of a loaded model sits in system memory: ollama ps split, offloaded N/M < M."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.judge.fixes import env, remedy_fix
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Severity
from llmdoctor.judge.thresholds import CPU_SPILL_CRITICAL_PCT, OLLAMA_PS_ALL_CPU_PCT, OLLAMA_SPILL_PARALLEL as SLOTS

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.knowledge.nvidia import GpuFact
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.ollama.ps import LoadedModel


LEVERS = ("Make weights plus KV cache fit in GPU memory: fewer slots (OLLAMA_NUM_PARALLEL) or a smaller "
          "context (OLLAMA_CONTEXT_LENGTH / num_ctx) - KV memory is slots x context; a quantised KV cache "
          "(OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1 halves it); or a smaller quantisation of "
          "the model (e.g. Q4_K_M instead of Q8_0).")


VERIFY = ("ollama ps  # PROCESSOR should read 100% GPU",)


@check(id="ollama-cpu-spill", cause=Cause.CPU_SPILL,
       purpose="Part (or all) of a loaded model sits in system memory: ollama ps split, offloaded N/M < M",
       engines=("ollama",), needs=("ollama_ps", "ollama_log"))
def cpu_spill(
    ollama_ps: tuple[LoadedModel, ...] | None = None,
    ollama_log: OllamaLogSummary | None = None,
    gpu: GpuFact | None = None,
    ollama_deployment: str | None = None,
    ollama_config: OllamaConfig | None = None,
):
    if not ollama_ps and ollama_log is None:
        return  # nothing of Ollama's to look at (and the figures module stays unimported)
    from llmdoctor.judge.ollama import evs, gpu_expected, last_load_with
    from llmdoctor.knowledge.units import human_bytes as human

    evidence = []
    worst = shown = 0  # the CPU share by layers or by ps; shown: by ps (bytes) when it says
    for m in ollama_ps or ():
        if m.cpu_percent is None or m.cpu_percent == 0:
            continue
        if m.cpu_percent == OLLAMA_PS_ALL_CPU_PCT and gpu_expected(ollama_log, gpu) is None:
            continue  # a CPU-only host: nothing spilled
        worst = shown = max(worst, m.cpu_percent)
        detail = m.line if m.source.endswith(".txt") or m.source == "ollama ps" else (
            f"{m.name}: {m.processor} (size {human(m.size)}, on GPU {human(m.size_vram or 0)})")
        evidence.append(Evidence(m.source, detail))
    load = last_load_with(ollama_log, "offloaded")
    if load is not None and load.offloaded[0] < load.offloaded[1]:
        if load.offloaded[0] > 0 or gpu_expected(ollama_log, gpu) is not None:
            on, total = load.offloaded
            worst = max(worst, round(100 * (total - on) / total))
            evidence += evs([e for e in load.examples if "offloaded" in e.line or "buffer size" in e.line
                             or "output layer" in e.line][:4])
    # the memory estimate, in each version's keys (0.1.x `offload to gpu reallayers= layers=`, later layers.*)
    est = ollama_log.estimate_layers if ollama_log is not None and load is None else None
    if est is not None:
        on, total = est
        # an estimate for a GPU library (not `cpu`) proves a GPU was found; with no layer fitting, the model
        # loads on the CPU (llm/server.go:115-125 @ v0.3.14, :156 @ v0.9.6)
        on_gpu_lib = (ollama_log.estimator or {}).get("library", "cpu").lower() not in ("cpu", "")
        if 0 < on < total or (on == 0 < total and (on_gpu_lib or gpu_expected(ollama_log, gpu) is not None)):
            worst = max(worst, round(100 * (total - on) / total))
            evidence.append(Evidence(ollama_log.estimator_example.source, ollama_log.estimator_example.line))
    # a GPU evaluated, not one layer fits (ollama.llm.no_layer_fits), and no later estimate or load placed any
    nofit = ollama_log.no_layer_fits if ollama_log is not None else None
    if nofit and nofit.count and not evidence and not (est and est[0] > 0) and not (
            load is not None and load.offloaded[0] > 0):
        worst = 100
        evidence += evs(list(nofit.examples)[:2])
    if not evidence:
        return
    gpu_ev = gpu_expected(ollama_log, gpu)
    if gpu_ev is not None and not any(e.text == gpu_ev.text for e in evidence):
        evidence.append(gpu_ev)
    slots = ollama_config.get("OLLAMA_NUM_PARALLEL") if ollama_config is not None else None
    levers = {"OLLAMA_FLASH_ATTENTION": 1, "OLLAMA_KV_CACHE_TYPE": "q8_0"}
    summary = LEVERS
    if slots and slots.isdecimal() and int(slots) > SLOTS and not ollama_config.is_default("OLLAMA_NUM_PARALLEL"):
        levers = {"OLLAMA_NUM_PARALLEL": SLOTS, **levers}  # set high: its KV cache is the first thing to cut
        summary = (f"OLLAMA_NUM_PARALLEL={slots} reserves KV cache for {slots} requests at once ({slots} x the "
                   f"context): start by lowering it (to {SLOTS} here). " + LEVERS)
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL if worst >= CPU_SPILL_CRITICAL_PCT else Severity.WARNING,
        f"The model does not fit in GPU memory: about {shown or worst}% of it runs on the CPU, and every token "
        "waits for it",
        evidence, remedy_fix(summary, _remedy(ollama_deployment, levers)),
    )


def _remedy(where: str | None, levers: dict):
    """The levers' settings where the server runs (a unit's drop-in unless it runs in a container)."""
    if where in ("container", "kubernetes") or getattr(where, "name", None):  # a container, or the unit found
        return env(where, verify=VERIFY, **levers)
    return env(None, restart="reload", verify=VERIFY, **levers)
