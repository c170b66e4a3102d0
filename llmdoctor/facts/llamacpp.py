"""llama-server facts: its endpoints, its log, its command line."""
from __future__ import annotations

from llmdoctor.knowledge.engines import DEFAULT_PORTS, LLAMACPP, EngineInstance
from llmdoctor.model import Record, record
from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.facts.client_errors import CLIENT_ERRORS, client_errors_lines
from llmdoctor.facts.engines import first_instance, read_cmdline


def llama_instance(engines) -> EngineInstance:
    """The first llama-server the "engines" fact names."""
    return first_instance(engines, LLAMACPP, "llama-server")


@provider("llamacpp_state")
def llamacpp_state(ctx: Context, engines):
    inst = llama_instance(engines)
    from llmdoctor.facts.llamacpp_endpoints import read_state

    state = read_state(ctx.host, inst.port or DEFAULT_PORTS[LLAMACPP])
    if state.health is None and state.props is None and state.slots is None and state.metrics is None:
        raise FactUnavailable("llama-server endpoints: " + "; ".join(state.errors), quiet=ctx.host.partial)
    return state


@record
class LlamaLog(Record):
    """What llama-server's logs show, one summary per source."""

    scans: tuple  # LlamaLogSummary per source with llama-server lines (client_errors.txt included)

    def summary(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for s in self.scans:
            out += s.summary()
        return out


@provider("llamacpp_log")
def llamacpp_log(ctx: Context, engines, log_sources=()) -> LlamaLog:
    llama_instance(engines)
    from llmdoctor.facts.log_memo import scan_once
    from llmdoctor.knowledge.llamacpp.log import LlamaLogScanner

    sources = [s for s in (log_sources or ()) if s.engine in (LLAMACPP, None)]
    scans = []
    for src in sources:
        result = scan_once(src, "llamacpp", lambda s: LlamaLogScanner(s.name).feed_lines(s.lines()).result())
        if src.engine == LLAMACPP or not result.empty:
            scans.append(result)
    extra = client_errors_lines(ctx.host)
    if extra is not None:
        result = LlamaLogScanner(CLIENT_ERRORS).feed_lines(extra).result()
        if not result.empty:
            scans.append(result)
    if not scans:
        raise FactUnavailable("no llama-server log to read (run it under systemd, or name the file with --log)",
                              quiet=ctx.host.partial)
    if not any(s.lines for s in scans):
        raise FactUnavailable(f"{', '.join(s.source for s in scans)}: no line inside the log window")
    return LlamaLog(tuple(scans))


@provider("llamacpp_cmdline")
def llamacpp_cmdline(ctx: Context, engines, container=None):
    inst = llama_instance(engines)
    raw = read_cmdline(ctx, inst, "llama-server", container)
    from llmdoctor.knowledge.llamacpp.cmdline import looks_like_llama_cmdline, parse_llama_cmdline  # (with one to parse)

    parsed = parse_llama_cmdline(raw)
    if not looks_like_llama_cmdline(list(parsed.argv)):
        raise FactUnavailable("the command line is not llama-server's", quiet=True)
    return parsed
