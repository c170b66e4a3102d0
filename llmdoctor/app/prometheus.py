"""`diagnose --prometheus URL`: the last hours of a fleet, read from its Prometheus.

The series of every engine instance over the window become a `prom_window` fact each
(knowledge/prom_window.py), and each instance is a target diagnosed through the usual
pipeline (app/diagnose.py) on a host that holds nothing else: the checks that read a
window (checks/prom_window.py, checks/prom_replicas.py) say when what they found held.
"""
from __future__ import annotations

import time
from typing import Any

from llmdoctor.hosts.base import NotInEvidence
from llmdoctor.hosts.prometheus import PrometheusClient, PrometheusError
from llmdoctor.knowledge.promql import choose_step, parse_names, parse_range, parse_selector
from llmdoctor.parsing import ParseError

__all__ = ["PrometheusError", "read_window", "diagnose_prometheus"]


def read_window(client: PrometheusClient, since_seconds: float, selector: str = "", now: float | None = None):
    """The PromTargets of the window ending now. PrometheusError (one line) when the server
    is down, slow, refuses, answers something that is not its API, or holds no engine series."""
    from llmdoctor.knowledge.prom_window import NAME_PATTERN, targets, wanted_queries

    try:
        matchers = parse_selector(selector)
    except ParseError as e:
        raise PrometheusError(f"--selector: {e}") from None
    end = float(int(time.time() if now is None else now))
    start = end - max(60.0, since_seconds)
    step = choose_step(end - start)
    span = [("start", f"{start:.0f}"), ("end", f"{end:.0f}")]
    try:
        body = client.get("/api/v1/label/__name__/values", [("match[]", f'{{__name__=~"{NAME_PATTERN}"}}'), *span])
        try:
            names = set(parse_names(body))
        except ParseError:  # a store without match[] on label values (older Prometheus): ask for every quantity
            names = every_name()
        answers = []
        for kind, quantity, expr in wanted_queries(names, matchers, step):
            body = client.get("/api/v1/query_range", [("query", expr), *span, ("step", f"{step:g}"),
                                                      ("timeout", f"{client.query_timeout:g}s")])
            answers.append((kind, quantity, parse_range(body)))
    except ParseError as e:
        raise PrometheusError(f"{client.name}: {e}") from None
    found = targets(answers, start, end, step, f"Prometheus {client.name}")
    if not found:
        raise PrometheusError(f"{client.name}: no series of vLLM, SGLang, llama-server, llmdoctor's exporter, "
                              f"node_exporter or dcgm-exporter in the window"
                              + (f" under {selector.strip()}" if matchers else ""))
    return found


def every_name() -> set[str]:
    """Every name llmdoctor queries (histograms by their buckets)."""
    from llmdoctor.knowledge.prom_window import ENGINE_SERIES, HOST_SERIES, P95

    tables = [t for table in ENGINE_SERIES.values() for t in table.values()] + list(HOST_SERIES.values())
    return {n + "_bucket" if how == P95 else n for names, how in tables for n in names}


class WindowHost:
    """The host of a target read from Prometheus: it answers nothing but its window (set as
    a fact), so no collector reads the machine llmdoctor runs on instead."""

    kind = "prometheus"
    recorded = True
    partial = True  # (a machine's facts are missing from a window by design: no line for each)
    complete_listings = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.meta: dict[str, Any] = {}
        self.problems: list[str] = []

    def _none(self, *args: Any, **kwargs: Any) -> Any:
        raise NotInEvidence("read from Prometheus: only the series over the window")

    run = read = listdir = stream = journal = log_file = container_inspect = _none
    container_log = pod_events = pod_describe = nvml = http = base_url = as_written = _none

    def kept(self, what: str) -> tuple[str, ...]:
        return ()

    def observe(self, live, recall):
        return recall()

    def exists(self, path: str) -> bool:
        return False

    def where(self, path: str) -> str:
        return ""

    def recorded_logs(self) -> list[str]:
        return []

    def files(self) -> list[str]:
        return []

    def close(self) -> None:
        pass


def diagnose_prometheus(client: PrometheusClient, since_seconds: float, selector: str, opts):
    """(Report, results): one target per instance in the window. PrometheusError as read_window."""
    from llmdoctor import __version__
    from llmdoctor.app.diagnose import diagnose_target, select
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.knowledge.engines import EngineInstance
    from llmdoctor.knowledge.prom_window import port_of
    from llmdoctor.model import Report
    from llmdoctor.plugins import load_checks

    specs, load_errors = load_checks(opts.checks_dirs, deferred=True)
    select(specs, opts.only)  # an unknown --only name is an error before anything is read
    results = []
    for t in read_window(client, since_seconds, selector):
        host = WindowHost(t.key)
        engines = () if t.kind == "none" else (EngineInstance(t.kind, port=port_of(t.key), found_by="prometheus"),)
        ctx = Context(host=host, since_seconds=since_seconds, sample_seconds=0.0, options=opts.options)
        store = FactStore(ctx, preset={"engines": engines, "prom_window": t})
        results.append(diagnose_target(host, opts, specs, load_errors, store=store))
    return Report(__version__, tuple(r.report for r in results)), results
