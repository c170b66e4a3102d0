"""CPU_SPILL in Ollama: part of the model in system memory, or a GPU that is claimed but not used."""
from llmdoctor.judge.fixes import OLLAMA_UNIT, dropin, reload_and_restart
from llmdoctor.plugins import check
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

LEVERS = ("Make weights plus KV cache fit in GPU memory: fewer slots (OLLAMA_NUM_PARALLEL) or a smaller "
          "context (OLLAMA_CONTEXT_LENGTH / num_ctx) - KV memory is slots x context; a quantised KV cache "
          "(OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1 halves it); or a smaller quantisation of "
          "the model (e.g. Q4_K_M instead of Q8_0).")
FIX_CONFIG = dropin(OLLAMA_UNIT, {"OLLAMA_FLASH_ATTENTION": 1, "OLLAMA_KV_CACHE_TYPE": "q8_0"})
COMMANDS = (reload_and_restart(OLLAMA_UNIT), "ollama ps  # PROCESSOR should read 100% GPU")


@check(id="ollama-cpu-spill", cause=Cause.CPU_SPILL,
       purpose="Part (or all) of a loaded model sits in system memory: ollama ps split, offloaded N/M < M")
def cpu_spill(ollama_ps=None, ollama_log=None, gpu=None):
    if not ollama_ps and ollama_log is None:
        return  # nothing of Ollama's to look at (and the figures module stays unimported)
    from llmdoctor.judge.ollama import evs, gpu_expected, last_load_with
    from llmdoctor.knowledge.memory import human_bytes as human

    evidence = []
    worst = 0
    for m in ollama_ps or ():
        if m.cpu_percent is None or m.cpu_percent == 0:
            continue
        if m.cpu_percent == 100 and gpu_expected(ollama_log, gpu) is None:
            continue  # a CPU-only host: nothing spilled
        worst = max(worst, m.cpu_percent)
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
    est = ollama_log.estimator if ollama_log is not None and load is None else None
    if est and est.get("layers.offload", "").isdecimal() and est.get("layers.model", "").isdecimal():
        on, total = int(est["layers.offload"]), int(est["layers.model"])
        if 0 < on < total or (on == 0 < total and gpu_expected(ollama_log, gpu) is not None):
            worst = max(worst, round(100 * (total - on) / total))
            evidence.append(Evidence(ollama_log.estimator_example.source, ollama_log.estimator_example.line))
    if not evidence:
        return
    gpu_ev = gpu_expected(ollama_log, gpu)
    if gpu_ev is not None and not any(e.text == gpu_ev.text for e in evidence):
        evidence.append(gpu_ev)
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL if worst >= 50 else Severity.WARNING,
        f"The model does not fit in GPU memory: about {worst}% of it runs on the CPU, and every token waits for it",
        evidence, Fix(LEVERS, COMMANDS, FIX_CONFIG),
    )


@check(id="ollama-gpu-not-used", cause=Cause.CPU_SPILL,
       purpose='"100% GPU" in ollama ps while the runner loaded only a CPU backend or holds no GPU memory')
def gpu_not_used(ollama_ps, ollama_log=None, gpu=None):
    from llmdoctor.judge.ollama import evs, gpu_process_bytes
    from llmdoctor.knowledge.memory import human_bytes as human

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
    if held is not None and m.size and held < 0.05 * m.size:
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
            ("nvidia-smi", "systemctl restart ollama", "journalctl -u ollama -b | grep -E 'load_backend|buffer size|offloaded'")),
    )


@check(id="ollama-gpu-lost", cause=Cause.CPU_SPILL,
       purpose="The GPU vanished from Ollama (CUDA init error 999, or a later start found only the CPU) - typical after suspend")
def gpu_lost(ollama_log):
    from llmdoctor.judge.ollama import evs

    evidence = evs(ollama_log.gpu_init_failures.examples[:3])
    starts = ollama_log.startups
    if len(starts) >= 2 and starts[-1].libraries and not starts[-1].has_gpu and any(s.has_gpu for s in starts[:-1]):
        before = next(s for s in starts if s.has_gpu)
        evidence += evs(before.examples[:1]) + evs(starts[-1].examples[:1])
    if not evidence:
        return
    yield Finding(
        Cause.CPU_SPILL, Severity.CRITICAL,
        "Ollama lost the GPU and runs on the CPU (CUDA failed to initialise, as happens after suspend/resume)",
        evidence,
        Fix("Reload the NVIDIA UVM driver and restart Ollama; to keep it from recurring, let the driver preserve "
            "video memory across suspend (NVreg_PreserveVideoMemoryAllocations=1 with nvidia-suspend/-resume "
            "services enabled).",
            ("systemctl stop ollama", "rmmod nvidia_uvm && modprobe nvidia_uvm", "systemctl start ollama",
             "echo 'options nvidia NVreg_PreserveVideoMemoryAllocations=1' > /etc/modprobe.d/nvidia-power.conf",
             "systemctl enable nvidia-suspend.service nvidia-resume.service")),
    )


GPU_NAMES = ("cuda", "rocm", "hip", "vulkan", "metal", "mtl", "sycl", "oneapi", "cann", "musa")


def _is_gpu_backend(name: str) -> bool:
    return any(name.lower().startswith(g) for g in GPU_NAMES)


@check(id="ollama-no-gpu-runner", cause=Cause.CPU_SPILL,
       purpose="Ollama's runner has no GPU backend (libraries missing, none compatible, or the device not found): it computes on the CPU")
# A CPU-only runner inventory is a finding only where a GPU was found or planned for; missing
# libraries and a GPU backend without a device are one wherever they occur.
def no_gpu_runner(ollama_log, gpu=None):
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
            ("which -a ollama", "ls /usr/local/lib/ollama /usr/lib/ollama", "curl -fsSL https://ollama.com/install.sh | sh",
             "systemctl restart ollama", "journalctl -u ollama -b | grep -E 'inference compute|load_backend|offloaded'")),
        confidence="high" if seen is not None else "medium",
    )
