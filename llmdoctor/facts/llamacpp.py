"""llama-server facts: its endpoints, its log, its command line."""
from __future__ import annotations

from ..engines import DEFAULT_PORTS, LLAMACPP, EngineInstance
from ..hosts.base import HostError
from . import Context, FactUnavailable, provider


def llama_instances(engines) -> list[EngineInstance]:
    found = [e for e in (engines or ()) if e.kind == LLAMACPP]
    if not found:
        raise FactUnavailable("no llama-server here", quiet=True)
    return found


@provider("llamacpp_state")
def llamacpp_state(ctx: Context, engines):
    from ..engines.llamacpp import read_state

    inst = llama_instances(engines)[0]
    state = read_state(ctx.host, inst.port or DEFAULT_PORTS[LLAMACPP])
    if state.health is None and state.props is None and state.slots is None and state.metrics is None:
        raise FactUnavailable("llama-server endpoints: " + "; ".join(state.errors))
    return state


@provider("llamacpp_log")
def llamacpp_log(ctx: Context, engines, log_sources=()):
    from ..engines.llamacpp_log import LlamaLogScanner

    llama_instances(engines)
    sources = [s for s in (log_sources or ()) if s.engine in (LLAMACPP, None)]
    if not sources:
        raise FactUnavailable("no llama-server log to read (run it under systemd, or name the file with --log)")
    scans = []
    for src in sources:
        result = LlamaLogScanner(src.name).feed_lines(src.lines()).result()
        if src.engine == LLAMACPP or not result.empty:
            scans.append(result)
    if not scans:
        raise FactUnavailable("the logs hold no llama-server lines")
    # The source with the most to say; several llama-server logs on one host are rare.
    return max(scans, key=lambda s: (s.n_slots is not None, s.requests_timed + s.context_exceeded))


@provider("llamacpp_cmdline")
def llamacpp_cmdline(ctx: Context, engines):
    from ..engines.llamacpp_cmdline import looks_like_llama_cmdline, parse_llama_cmdline

    inst = llama_instances(engines)[0]
    host = ctx.host
    path = "cmdline.txt" if host.kind == "evidence" else (f"/proc/{inst.pid}/cmdline" if inst.pid else None)
    if path is None:
        raise FactUnavailable("llama-server process id unknown: command line not read")
    try:
        raw = host.read(path, 256 * 1024)
    except (OSError, HostError) as e:
        raise FactUnavailable(f"llama-server command line: {e}", quiet=host.kind == "evidence")
    parsed = parse_llama_cmdline(raw)
    if not looks_like_llama_cmdline(list(parsed.argv)):
        raise FactUnavailable("the command line is not llama-server's", quiet=True)
    return parsed
