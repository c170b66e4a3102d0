"""Every fact a check can ask for: its name, the type of its value, one line of purpose,
and the module whose `@provider` collects it.

A check names facts as parameters, so this table is the contract between the two sides:
`llmdoctor facts` prints it, tests assert that each provider is registered under a name
listed here and returns the type written here, and only the modules listed here are
imported to collect facts (start-up time: nothing else in this package is loaded until a
provider needs it).
"""
from __future__ import annotations


class FactSpec:
    """One fact. (A plain class: this module is read on every run, and defining a dataclass
    costs more than the whole table.)"""

    __slots__ = ("name", "type", "purpose", "module")

    def __init__(self, name: str, type: str, purpose: str, module: str) -> None:
        self.name = name
        self.type = type  # the value's type, as a dotted path (typing forms allowed: tuple[X, ...])
        self.purpose = purpose
        self.module = module  # the provider's module, under llmdoctor.facts

    def __repr__(self) -> str:
        return f"FactSpec({self.name!r}, {self.type!r})"


K = "llmdoctor.knowledge."
F = "llmdoctor.facts."

CATALOGUE: tuple[FactSpec, ...] = (
    FactSpec("evidence_recognition", K + "recognize.Recognition",
             "which engine each recorded file speaks of (recordings only)", "engines"),
    FactSpec("engines", f"tuple[{K}engines.EngineInstance, ...]",
             "the LLM servers on the host: kind, port, unit, process", "engines"),
    FactSpec("log_sources", F + "logs.LogSources",
             "where engine log lines can be read: journals, --log files, recorded logs", "logs"),
    FactSpec("systemd_units", f"tuple[{K}systemd.units.UnitState, ...]",
             "each engine unit: its files, drop-ins, what systemd loaded, the process environment", "systemd"),
    FactSpec("shell_exports", f"tuple[{K}systemd.environ.ShellSetting, ...]",
             "engine variables set in shell start-up files a service never reads", "shell_env"),
    FactSpec("declared_settings", F + "declared.DeclaredSettings",
             "engine variables as the user wrote them, in any form (recordings only)", "declared"),
    FactSpec("container", F + "container.Container",
             "the container the engine runs in (docker/podman inspect, a compose file, or a Kubernetes pod: kubectl get pod, "
             "describe, a manifest): env, command, GPU, restarts",
             "container"),
    FactSpec("engine_no_gpu_line", "tuple[str, str]", "an engine log line saying it found no GPU (source, line)",
             "container"),
    FactSpec("memory", F + "memory.MemoryFact", "RAM and swap totals, and swap traffic now", "memory"),
    FactSpec("gpu", K + "nvidia.GpuFact", "NVIDIA GPUs, their memory and the processes holding it", "gpu"),
    FactSpec("prom_window", K + "prom_window.PromTarget",
             "one instance's series over the --since window, read from Prometheus (diagnose --prometheus only)",
             "prom_window"),
    FactSpec("gpu_health", K + "nvidia_query.GpuHealthFact",
             "each GPU's clocks and throttle reasons, power, temperature, PCIe link, ECC and row remaps, persistence "
             "mode (NVIDIA: NVML or nvidia-smi -q, nvidia_smi_q.txt; AMD: amdgpu's pp_dpm_* files)", "gpu_health"),
    FactSpec("gpu_xid", K + "nvidia_xid.KernelXids",
             "the NVIDIA driver's XID errors in the kernel log (journalctl -k, dmesg: kernel_xid.log)", "gpu_health"),
    FactSpec("ollama_version", "str", "the Ollama server's version", "ollama"),
    FactSpec("ollama_ps", f"tuple[{K}ollama.ps.LoadedModel, ...]",
             "models Ollama has loaded: size, CPU/GPU split, context, expiry", "ollama"),
    FactSpec("ollama_show", "dict", "/api/show of the first loaded model (architecture, parameters)", "ollama"),
    FactSpec("ollama_tags", "tuple[dict, ...]", "models Ollama has on disk", "ollama"),
    FactSpec("ollama_config", F + "ollama.OllamaConfig",
             "Ollama's effective settings: what the server reported, else what its service sets", "ollama"),
    FactSpec("ollama_log", K + "ollama.log.OllamaLogSummary",
             "what Ollama's log shows: loads, offload, evictions, queue, requests, errors", "ollama"),
    FactSpec("ollama_deployment", "str",
             "how Ollama runs (systemd, windows, macos, container, kubernetes), for the form of a fix", "ollama"),
    FactSpec("vllm_log", F + "vllm.VllmLog", "what vLLM's log shows: KV capacity, stats lines, preemptions, refusals",
             "vllm"),
    FactSpec("vllm_metrics", F + "vllm.VllmMetricsSample", "two scrapes of vLLM's /metrics and the rates between",
             "vllm"),
    FactSpec("vllm_cmdline", K + "vllm.cmdline.VllmCmdline", "the settings vLLM was started with", "vllm"),
    FactSpec("llamacpp_state", K + "llamacpp.endpoints.LlamaState",
             "llama-server's /health, /props, /slots and /metrics", "llamacpp"),
    FactSpec("llamacpp_log", F + "llamacpp.LlamaLog",
             "what llama-server's log shows: slots, offload, context shifts, timings", "llamacpp"),
    FactSpec("llamacpp_cmdline", K + "llamacpp.cmdline.LlamaCmdline", "the settings llama-server was started with",
             "llamacpp"),
    FactSpec("sglang_log", F + "sglang.SglangLog",
             "what SGLang's log shows: decode/prefill batches, retractions, context refusals, start-up settings",
             "sglang"),
    FactSpec("sglang_metrics", F + "sglang.SglangMetricsSample", "a scrape of SGLang's /metrics", "sglang"),
    FactSpec("sglang_server_info", "dict", "SGLang's /get_server_info: the server arguments in effect", "sglang"),
    FactSpec("sglang_cmdline", K + "sglang.cmdline.SglangCmdline", "the settings SGLang was started with",
             "sglang"),
    FactSpec("cpu_load", K + "cpu.CpuSample",
             "who used the CPUs over the sampling window: the engine's processes, other work, steal (cpu.json)", "cpu"),
    FactSpec("engine_progress", f"tuple[{F}progress.EngineProgress, ...]",
             "each engine's health answer and token counters across the sampling window (progress.json)", "progress"),
    FactSpec("probe", K + "probe.result.ProbeRuns",
             "the live probe's measurements (diagnose --probe), or the recorded probe.json", "probe"),
    FactSpec("reader", K + "reader.Reader",
             "who will paste the fixes: this machine's user, the SSH login, a ticket's prompt user (whoami.txt)",
             "reader"),
    FactSpec("host_gpu", "tuple[bool, str]",
             "whether the host has a GPU at all, and the line that says so (no GPU flag in a fix without one)",
             "reader"),
    FactSpec("vllm_version", "str", "the vLLM release its log states (its command and flags in a fix)", "reader"),
)

BY_NAME = {f.name: f for f in CATALOGUE}
MODULES = tuple(dict.fromkeys(f.module for f in CATALOGUE))
