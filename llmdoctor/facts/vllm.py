"""vLLM facts: the log scan, /metrics (two samples -> rates), and the serve command line. (The
records are plain llmdoctor.model.Records, never replace()d: a frozen dataclass costs ~1 ms of
start-up each to define.)"""
from __future__ import annotations

import time

from llmdoctor.knowledge.engines import DEFAULT_PORTS, VLLM, EngineInstance
from llmdoctor.hosts.base import HostError, NotInEvidence
from llmdoctor.parsing import ParseError
from llmdoctor.facts import Context, FactUnavailable, provider
from llmdoctor.facts.engines import first_instance, read_cmdline
from llmdoctor.model import Record


def vllm_instance(engines) -> EngineInstance:
    """The first vLLM server the "engines" fact names."""
    return first_instance(engines, VLLM, "vLLM server")


class VllmLog(Record):
    """What vLLM's logs show, one summary per source."""

    __slots__ = ("scans",)

    def __init__(self, scans: tuple) -> None:
        self.scans = scans  # VllmLogSummary per source that held vLLM lines

    def summary(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for s in self.scans:
            out += s.summary()
        return out


def scan_source(source):
    """Scan one LogSource, through its block reader when it has one (much faster)."""
    from llmdoctor.knowledge.vllm.log import VllmLogScanner

    scanner = VllmLogScanner(source.name)
    raw_regions = getattr(source, "raw_regions", None)  # whole lines in a reused buffer: no copy, no decoding
    raw_blocks = getattr(source, "raw_blocks", None)  # bytes of whole lines: no decoding at all
    blocks = getattr(source, "blocks", None)
    if callable(raw_regions):  # one process: a forked helper was slower on busy CPUs (issue 28)
        for buf, begin, end in raw_regions():
            scanner.feed_region(buf, begin, end)
    elif callable(raw_blocks):
        for block in raw_blocks():
            scanner.feed_raw_block(block)
    elif callable(blocks):
        for block in blocks():
            scanner.feed_block(block)
    else:
        scanner.feed_lines(source.lines())
    return scanner.result()


@provider("vllm_log")
def vllm_log(ctx: Context, engines, log_sources=()) -> VllmLog:
    vllm_instance(engines)
    from llmdoctor.knowledge.vllm.log import scan_vllm_lines
    from llmdoctor.facts.client_errors import CLIENT_ERRORS, client_errors_lines

    sources = [s for s in (log_sources or ()) if s.engine in (VLLM, None)]
    scans = []
    problems = []
    from llmdoctor.facts.log_memo import scan_once

    for src in sources:
        result = scan_once(src, "vllm", scan_source)
        if getattr(src, "error", None):
            problems.append(src.error)
        if src.engine == VLLM or not result.empty:
            scans.append(result)
    extra = client_errors_lines(ctx.host)
    if extra is not None:
        result = scan_vllm_lines(extra, CLIENT_ERRORS, client_errors=True)
        if not result.empty:
            scans.append(result)
    if not scans and not sources:
        raise FactUnavailable("no vLLM log to read (run vLLM under systemd, or name the file with --log)",
                              quiet=ctx.host.partial)
    if not scans:
        raise FactUnavailable("; ".join(problems) or "the logs hold no vLLM lines")
    if not any(s.lines for s in scans):
        raise FactUnavailable(f"{', '.join(s.source for s in scans)}: no line inside the log window")
    return VllmLog(tuple(scans))


class VllmMetricsSample(Record):
    """Two scrapes of vLLM's /metrics (one from a recording), for rates between them."""

    __slots__ = ("first", "second", "seconds", "source")

    def __init__(self, first: object, second: object | None, seconds: float, source: str) -> None:
        self.first = first  # VllmMetrics
        self.second = second  # VllmMetrics, None for a single scrape (evidence)
        self.seconds = seconds
        self.source = source

    @property
    def latest(self):
        return self.second if self.second is not None else self.first

    def preemption_rate(self):
        from llmdoctor.knowledge.vllm.metrics import preemption_rate

        if self.second is None:
            return None
        return preemption_rate(self.first, self.second, self.seconds)

    def summary(self) -> list[tuple[str, str]]:
        m = self.latest
        parts = []
        if m.running is not None:
            parts.append(f"running {m.running:g}")
        if m.waiting is not None:
            parts.append(f"waiting {m.waiting:g}")
        if m.kv_usage is not None:
            parts.append(f"KV {m.kv_usage * 100:.1f}%")
        return [("vLLM /metrics", ", ".join(parts))] if parts else []


SCRAPE_TIMEOUT = 10.0  # a vLLM busy with every core's worth of requests can take seconds to render /metrics


def _scrape(host, port: int, timeout: float):
    """One scrape of /metrics and where it came from."""
    r = host.http("GET", port, "/metrics", timeout=timeout)
    source = r.source or f"GET :{port}/metrics"
    if r.status != 200:
        raise FactUnavailable(f"{source} answered HTTP {r.status}")
    from llmdoctor.knowledge.vllm.metrics import is_vllm_exposition, parse_vllm_metrics  # (a scrape to parse)

    text = r.text
    if not is_vllm_exposition(text):
        raise FactUnavailable(f"{source} holds no vllm: metrics")
    try:
        return parse_vllm_metrics(text), source
    except ParseError as e:
        raise FactUnavailable(f"unparseable {source}: {e}")


@provider("vllm_metrics")
def vllm_metrics(ctx: Context, engines) -> VllmMetricsSample:
    inst = vllm_instance(engines)
    port = inst.port or DEFAULT_PORTS[VLLM]
    host = ctx.host
    try:
        first, source = _scrape(host, port, SCRAPE_TIMEOUT)
        # one scrape is all a recording holds: no rates
        return host.observe(lambda: _rates(ctx, port, first, source), lambda: VllmMetricsSample(first, None, 0.0, source))
    except NotInEvidence as e:
        raise FactUnavailable(f"vLLM /metrics: {e}", quiet=True)
    except HostError as e:
        raise FactUnavailable(f"vLLM /metrics: {e}")


def _rates(ctx: Context, port: int, first, source: str) -> VllmMetricsSample:
    """A second scrape after the sampling window, for rates."""
    from llmdoctor.steps import waiting

    waiting(ctx.host, f"sampling vLLM /metrics on port {port}", ctx.sample_seconds)
    start = time.monotonic()
    time.sleep(max(0.0, ctx.sample_seconds))
    try:
        second, source = _scrape(ctx.host, port, SCRAPE_TIMEOUT)
    except (HostError, FactUnavailable):  # a busy server missed the second: the first still says what it saw
        return VllmMetricsSample(first, None, 0.0, source)
    return VllmMetricsSample(first, second, time.monotonic() - start, source)


@provider("vllm_cmdline")
def vllm_cmdline(ctx: Context, engines, container=None):
    inst = vllm_instance(engines)
    host = ctx.host
    raw = read_cmdline(ctx, inst, "vLLM", container)
    from llmdoctor.knowledge.vllm.cmdline import looks_like_vllm_cmdline, parse_vllm_cmdline  # (with one to parse)

    parsed = parse_vllm_cmdline(raw)
    # a live process's command line is the engine's; a recorded one may be any pasted line
    if not parsed.argv or (host.partial and not looks_like_vllm_cmdline(list(parsed.argv))
                           and not parsed.settings):
        raise FactUnavailable("cmdline.txt is not a vLLM command line", quiet=True)
    return parsed
