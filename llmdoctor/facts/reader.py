"""Facts "reader", "host_gpu" and "vllm_version": what a fix's commands must fit - the user who
pastes them (sudo or not), whether the host has a GPU at all (no GPU flag without one), and the
vLLM release (its command and flags). Asked for only where a fix needs them (judge/fixes.Audience).
"""
from __future__ import annotations

from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.hosts.base import HostError


@provider("reader")
def reader(ctx: Context):
    """The host's own answer (this machine's user, the SSH login), else what a recording kept:
    `whoami.txt` (`id` or `whoami` output, or the user of a pasted ticket's prompts)."""
    host = ctx.host
    found = host.observe(lambda: host.reader(), lambda: _whoami(host))
    if found is None:
        raise FactUnavailable("who will run the fixes is not known (sudo kept where a command needs root)",
                              quiet=True)
    return found


def _whoami(host):
    from llmdoctor.knowledge.reader import parse_whoami

    for name in host.kept("whoami"):
        try:
            found = parse_whoami(host.as_written(name), name)
        except (OSError, HostError):
            continue
        if found is not None:
            return found
    return None


@provider("host_gpu")
def host_gpu(ctx: Context, engines=(), gpu=None, container=None, engine_no_gpu_line=None, log_sources=()):
    """(has a GPU, the evidence): True where nvidia-smi/NVML/amd-smi list a GPU or llama-server used
    a GPU device; False where the engine says it found none (llama-server's device lines, Ollama's
    discovery, vLLM's platform) and it does not run in a container (a container's engine may miss a
    GPU the host has: that fix passes the GPU in)."""
    if gpu is not None and gpu.gpus:
        return True, f"{gpu.source}: {len(gpu.gpus)} GPU(s)"
    cpp = _llamacpp_device_lines(ctx, engines, log_sources)
    if any(c.devices_found for c in cpp):
        return True, "llama-server's log names a GPU device in use"
    if container is None:
        said = next((c.no_device[0] for c in cpp if c.no_device), None)
        if said:
            return False, said
        if engine_no_gpu_line is not None:
            return False, engine_no_gpu_line[1]
    raise FactUnavailable("whether the host has a GPU is not shown", quiet=True)


def _llamacpp_device_lines(ctx: Context, engines, log_sources) -> list:
    """What llama.cpp's lines said of its devices, where a llama-server runs here (its log's scan, the
    same one llamacpp_log made: scan_once remembers it; llama.cpp's modules stay unimported elsewhere)."""
    from llmdoctor.knowledge.engines import LLAMACPP

    if not any(e.kind == LLAMACPP for e in engines or ()):
        return []
    from llmdoctor.facts.llamacpp import llamacpp_log

    try:
        found = llamacpp_log(ctx, engines, log_sources)
    except (FactUnavailable, HostError):
        return []
    return [c for c in (getattr(s, "cpp", None) for s in found.scans) if c is not None]


@provider("vllm_version")
def vllm_version(ctx: Context, vllm_log=None) -> str:
    """The release vLLM's log states at start-up (`vLLM API server version X`, `LLM engine (vX)`),
    read by the log's one scan: a pass of its own over every line cost a 1 GiB log seconds."""
    for scan in getattr(vllm_log, "scans", ()):
        if scan.release:
            return scan.release
    raise FactUnavailable("no vLLM log line states its version", quiet=True)
