"""`llmdoctor probe`: which URLs, the run over them, and the report (judged by app/diagnose.py
judge_probe, the diagnosis's own steps). The CLI parses arguments, prints and exits."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from llmdoctor.knowledge.probe.result import ProbeRuns
    from llmdoctor.model import Report


def default_urls() -> list[str]:
    """The engines discovered on this host (as `diagnose` finds them)."""
    from llmdoctor.facts import Context, FactStore, FactUnavailable
    from llmdoctor.hosts.local import LocalHost

    host = LocalHost()
    try:
        engines = FactStore(Context(host=host)).get("engines")
    except FactUnavailable:
        engines = ()
    return [host.base_url(e.port) for e in engines if e.port]


def pod_urls(target: str):
    """`probe k8s://…`: the pod's engine (found the way diagnose finds it) through a kubectl
    port-forward, which stops when the run ends (hosts/kube.py: close, exit, SIGTERM)."""
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.hosts.kube import KubeHost

    host = KubeHost(target)
    host.connect()
    engines = FactStore(Context(host=host, sample_seconds=0)).get("engines")
    return host, [host.base_url(e.port) for e in engines if e.port]


def probe(urls: list[str], model: str | None, mode: str, concurrency: int | None, deadline_s: float,
          progress: Callable[[str], None], announce: Callable[[str], None]) -> tuple[Report, ProbeRuns]:
    """Detect and probe each URL in turn (light, or load when asked), then judge what was measured;
    a URL that could not be probed is an unreachable target, Ctrl-C ends the run with what it has.
    `announce` says what a load probe is about to send before it sends it."""
    from llmdoctor.app.diagnose import judge_probe, with_unreachable
    from llmdoctor.facts.live_probe import Interrupt, ProbeError
    from llmdoctor.facts.live_probe.detect import detect
    from llmdoctor.facts.live_probe.scenarios import ProbeRunner, describe_load
    from llmdoctor.knowledge.probe.result import ProbeRuns
    from llmdoctor.redact import redact_text

    stop = Interrupt()
    results, failures = [], []
    try:
        for u in urls:
            try:
                target = detect(u, model=model)
            except ProbeError as e:
                failures.append(redact_text(f"{u}: {e}"))
                continue
            runner = ProbeRunner(target, deadline_s=deadline_s, progress=progress, stop=stop, deadline_flag="--deadline")
            if mode == "load":
                announce(describe_load(target, concurrency))
                results.append(runner.load(concurrency))
            else:
                results.append(runner.light())
            if runner.interrupted:
                break
    except KeyboardInterrupt:
        stop.set()
        failures.append("interrupted")
    runs = ProbeRuns(tuple(results))
    return with_unreachable(judge_probe(runs), failures), runs


def sweep(urls: list[str], model: str | None, plan, progress: Callable[[str], None], cancel,
          announce: Callable[[str], None]) -> tuple[Report, tuple]:
    """The concurrency sweep on each URL in turn until `cancel` (a threading.Event) is set: each
    engine's judged sweep (judge/probe/sweep.py) and the report of them (app/diagnose.py
    sweep_target); a URL that could not be detected is an unreachable target. `announce` states
    the plan before the first request, and again, timed, after it. Ctrl-C between two bursts sets `cancel` and ends the run."""
    from llmdoctor import __version__
    from llmdoctor.app.diagnose import sweep_target, unreachable
    from llmdoctor.facts.live_probe import ProbeError
    from llmdoctor.facts.live_probe.detect import detect
    from llmdoctor.facts.live_probe.sweep import SweepRunner
    from llmdoctor.judge.probe.sweep import judge_sweep
    from llmdoctor.model import Report

    verdicts, targets = [], []
    try:
        for u in urls:
            if cancel.is_set():
                break
            try:
                target = detect(u, model=model)
            except ProbeError as e:
                targets.append(unreachable(u, f"{u}: {e}").report)
                continue
            announce(plan.describe(target.url))
            v = judge_sweep(SweepRunner(target, plan, progress=progress, cancel=cancel, announce=announce).run())
            verdicts.append(v)
            targets.append(sweep_target(target.url, target.engine, v))
    except KeyboardInterrupt:  # between two bursts (detection, rendering of the plan)
        cancel.set()
    return Report(__version__, tuple(targets)), tuple(verdicts)
