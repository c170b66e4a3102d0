"""SGLang facts: the scheduler log scan, /metrics, /get_server_info and the launch command line."""
from __future__ import annotations

from llmdoctor.model import Record
from llmdoctor.knowledge.engines import DEFAULT_PORTS, SGLANG, EngineInstance
from llmdoctor.hosts.base import HostError, NotInEvidence
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.facts.engines import first_instance, read_cmdline


def sglang_instance(engines) -> EngineInstance:
    """The first SGLang server the "engines" fact names."""
    return first_instance(engines, SGLANG, "SGLang server")


# The records here are plain classes (llmdoctor.model.Record: a dataclass's ==, hash and repr),
# never replace()d or copied: a frozen dataclass costs ~1 ms of start-up to define.
class SglangLog(Record):
    """What SGLang's logs show, one summary per source."""

    __slots__ = ("scans",)

    def __init__(self, scans: tuple) -> None:
        self.scans = scans  # SglangLogSummary per source that held SGLang lines

    def summary(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for s in self.scans:
            out += s.summary()
        return out


@provider("sglang_log")
def sglang_log(ctx: Context, engines, log_sources=()) -> SglangLog:
    sglang_instance(engines)
    from llmdoctor.knowledge.sglang.log import scan_sglang_lines, scan_sglang_regions
    from llmdoctor.facts.client_errors import CLIENT_ERRORS, client_errors_lines

    sources = [s for s in (log_sources or ()) if s.engine in (SGLANG, None)]
    scans, problems = [], []
    for src in sources:
        raw_regions = getattr(src, "raw_regions", None)  # whole lines, undecoded: only candidates are decoded
        result = (scan_sglang_regions(raw_regions(), src.name) if callable(raw_regions)
                  else scan_sglang_lines(src.lines(), src.name))
        if getattr(src, "error", None):
            problems.append(src.error)
        if src.engine == SGLANG or not result.empty:
            scans.append(result)
    extra = client_errors_lines(ctx.host)
    if extra is not None:
        result = scan_sglang_lines(extra, CLIENT_ERRORS)
        if not result.empty:
            scans.append(result)
    if not scans and not sources:
        raise FactUnavailable("no SGLang log to read (run SGLang under systemd, or name the file with --log)",
                              quiet=ctx.host.partial)
    if not scans:
        raise FactUnavailable("; ".join(problems) or "the logs hold no SGLang lines")
    if not any(s.lines for s in scans):
        raise FactUnavailable(f"{', '.join(s.source for s in scans)}: no line inside the log window")
    return SglangLog(tuple(scans))


class SglangMetricsSample(Record):
    """One scrape of SGLang's /metrics."""

    __slots__ = ("latest", "source")

    def __init__(self, latest: object, source: str) -> None:
        self.latest = latest  # knowledge.sglang.metrics.SglangMetrics
        self.source = source

    def summary(self) -> list[tuple[str, str]]:
        m = self.latest
        parts = [f"{label} {v:g}" for label, v in (("running", m.running), ("queued", m.queued)) if v is not None]
        if m.token_usage is not None:
            parts.append(f"token usage {m.token_usage:.2f}")
        return [("SGLang /metrics", ", ".join(parts))] if parts else []


def _get(ctx: Context, engines, path: str, what: str):
    inst = sglang_instance(engines)
    port = inst.port or DEFAULT_PORTS[SGLANG]
    try:
        r = ctx.host.http("GET", port, path, timeout=5.0)
    except NotInEvidence as e:
        raise FactUnavailable(f"SGLang {what}: {e}", quiet=True)
    except HostError as e:
        raise FactUnavailable(f"SGLang {what}: {e}")
    source = r.source or f"GET :{port}{path}"
    if r.status != 200:
        raise FactUnavailable(f"{source} answered HTTP {r.status}"
                              + (" (SGLang serves /metrics only with --enable-metrics)" if path == "/metrics" else ""))
    return r.text, source


@provider("sglang_metrics")
def sglang_metrics(ctx: Context, engines) -> SglangMetricsSample:
    """One scrape: SGLang's gauges are the scheduler's last logged values, not counters to diff."""
    text, source = _get(ctx, engines, "/metrics", "/metrics")
    from llmdoctor.knowledge.sglang.metrics import is_sglang_exposition, parse_sglang_metrics  # (a scrape to parse)

    if not is_sglang_exposition(text):
        raise FactUnavailable(f"{source} holds no sglang: metrics", quiet=ctx.host.partial)
    try:
        return SglangMetricsSample(parse_sglang_metrics(text), source)
    except ParseError as e:
        raise FactUnavailable(f"unparseable {source}: {e}")


@provider("sglang_server_info")
def sglang_server_info(ctx: Context, engines) -> dict:
    text, source = _get(ctx, engines, "/get_server_info", "/get_server_info")
    from llmdoctor.knowledge.sglang.server_info import parse_server_info

    try:
        return {**parse_server_info(text), "_source": source}
    except ParseError as e:
        raise FactUnavailable(f"unparseable {source}: {e}")


@provider("sglang_cmdline")
def sglang_cmdline(ctx: Context, engines):
    inst = sglang_instance(engines)
    raw = read_cmdline(ctx, inst, "SGLang")
    from llmdoctor.knowledge.sglang.cmdline import looks_like_sglang_cmdline, parse_sglang_cmdline  # (with one to parse)

    parsed = parse_sglang_cmdline(raw)
    if not parsed.argv or (ctx.host.partial and not looks_like_sglang_cmdline(parsed.argv)):
        raise FactUnavailable("cmdline.txt is not an SGLang command line", quiet=True)
    return parsed
