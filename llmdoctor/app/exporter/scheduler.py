"""Run the diagnosis in the background, every interval, and publish a fresh snapshot.

The diagnosis itself is passed in (`diagnose(target, probe) -> TargetResult`), so
the schedule can be tested with a stand-in and without waiting on real hosts.
Targets of one cycle run concurrently (a slow host never delays the others);
cycles never overlap: when one takes longer than the interval, the next starts
right after it.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from prometheus_client.core import Metric

from llmdoctor.app.exporter.counters import MonotonicTotals
from llmdoctor.app.exporter.metrics import RunOutcome, families
from llmdoctor.app.exporter.queue_history import QueueHistory
from llmdoctor.app.exporter.readings import safe_counter_readings

log = logging.getLogger(__name__)

DiagnoseFn = Callable[[str, bool], Any]
PublishFn = Callable[[list[Metric]], None]


def run_line(o: RunOutcome, probe: bool) -> str:
    """One run as the -v log says it: "gpu1: 2 findings (QUEUEING, SWAP) in 3.1 s, with the probe"."""
    took = f"in {o.duration:.1f} s" + (", with the probe" if probe else "")
    if not o.up:
        return f"{o.target}: down {took}: {o.down_reason or 'no reason given'}"
    findings = getattr(getattr(o.result, "report", None), "findings", ()) or ()
    if not findings:
        return f"{o.target}: nothing found {took}"
    causes = ", ".join(dict.fromkeys(str(getattr(f.cause, "value", f.cause)) for f in findings))
    return f"{o.target}: {len(findings)} finding{'s' if len(findings) != 1 else ''} ({causes}) {took}"


class Scheduler:
    def __init__(
        self,
        targets: Sequence[str],
        diagnose: DiagnoseFn,
        publish: PublishFn,
        interval: float,
        probe_interval: float | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        max_workers: int = 8,
        resumed_logs: Collection[str] = (),
        probe_checks: Collection[str] = (),
        history: Any = None,
    ) -> None:
        """`resumed_logs`: targets whose log scans resume where the previous run
        stopped, so their log counts are new events (added), not window totals.
        `probe_checks`: ids of checks that need the probe; their findings from the
        last probe run stay active until the next one. `history`: a history.History that
        records each cycle's settings and finding transitions (None: not kept)."""
        if not targets:
            raise ValueError("no target to diagnose")
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.targets = list(dict.fromkeys(targets))
        self.diagnose = diagnose
        self.publish = publish
        self.interval = float(interval)
        self.probe_interval = probe_interval
        self.clock = clock
        self.monotonic = monotonic
        self.max_workers = max(1, min(max_workers, len(self.targets)))
        self.resumed_logs = frozenset(resumed_logs)
        self.probe_checks = frozenset(probe_checks)
        self.probe_findings: dict[str, tuple[Any, ...]] = {}
        self.totals = MonotonicTotals()
        self.queue_history = QueueHistory()
        self.outcomes: dict[str, RunOutcome] = {}
        self.runs: dict[str, tuple[int, int]] = {t: (0, 0) for t in self.targets}
        self.probes: dict[str, Mapping[str, Any]] = {}
        self.history = history
        self.cycles = 0
        self._next_probe: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- one cycle ---------------------------------------------------------------
    def probe_due(self) -> bool:
        if not self.probe_interval:
            return False
        return self._next_probe is None or self.monotonic() >= self._next_probe

    def _run_one(self, target: str, probe: bool) -> RunOutcome:
        started, t0 = self.clock(), self.monotonic()
        try:
            result = self.diagnose(target, probe)
            return RunOutcome(target, started, self.monotonic() - t0, result)
        except Exception as e:  # one failed run is a `llmdoctor_up 0`, never a dead exporter
            log.warning("diagnosis of %s failed: %s: %s", target, type(e).__name__, e)
            return RunOutcome(target, started, self.monotonic() - t0, None, f"{type(e).__name__}: {e}")

    def run_cycle(self, probe: bool | None = None) -> list[RunOutcome]:
        """Diagnose every target once (with the probe when it is due, or as told) and publish."""
        if probe is None:
            probe = self.probe_due()
        if probe:
            self._next_probe = self.monotonic() + float(self.probe_interval or 0)
        if self.max_workers == 1:
            outcomes = [self._run_one(t, probe) for t in self.targets]
        else:
            with ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="llmdoctor-run") as pool:
                outcomes = list(pool.map(lambda t: self._run_one(t, probe), self.targets))
        for o in outcomes:
            log.info("%s", run_line(o, probe))  # exporter -v: one line a run
            runs, failures = self.runs.get(o.target, (0, 0))
            self.runs[o.target] = (runs + 1, failures + (0 if o.up else 1))
            self.outcomes[o.target] = o
            if o.up:
                mode = "delta" if o.target in self.resumed_logs else "total"
                self.totals.feed(o.target, safe_counter_readings(o.facts, mode))
                self.queue_history.feed(o.target, o.facts)
                if probe and o.facts.get("probe") is not None:
                    self.probes[o.target] = {"probe": o.facts["probe"]}
                    report = getattr(o.result, "report", None)
                    self.probe_findings[o.target] = tuple(
                        f for f in getattr(report, "findings", ()) or () if f.check in self.probe_checks
                    )
        if self.history is not None:
            self._record_history(outcomes)
        self.cycles += 1
        self.publish(self.snapshot())
        return outcomes

    def _record_history(self, outcomes: list[RunOutcome]) -> None:
        from llmdoctor.app.exporter.settings_snapshot import settings_snapshot

        for o in outcomes:
            if not o.up:
                continue  # an unreachable target's settings are unknown, not removed
            report = getattr(o.result, "report", None)
            findings = list(getattr(report, "findings", ()) or ())
            checks = {f.check for f in findings}
            findings += [f for f in self.probe_findings.get(o.target, ()) if f.check not in checks]
            try:
                self.history.observe(o.target, o.started, settings_snapshot(o.facts, self.history.key), findings)
            except Exception:  # the history is a convenience: never the reason a cycle fails
                log.exception("history of %s not recorded", o.target)
        try:
            self.history.save()
        except OSError as e:
            log.warning("history not saved: %s", e)

    def snapshot(self) -> list[Metric]:
        return families(
            self.outcomes,
            self.totals,
            self.interval,
            runs=self.runs,
            probes=self.probes,
            multi_target=len(self.targets) > 1,
            probe_findings=self.probe_findings,
            queue_trends=self.queue_history.shapes(),
            settings=self._settings_samples(),
        )

    def _settings_samples(self) -> dict[str, list[tuple[str, str, float]]]:
        """target -> [(setting, value, when it last changed or 0)] from the history."""
        if self.history is None:
            return {}
        out: dict[str, list[tuple[str, str, float]]] = {}
        for target in self.targets:
            last = self.history.last.get(target)
            if not last:
                continue
            changed = self.history.last_changes(target)
            out[target] = [(k, str(v[0]), changed.get(k, 0.0)) for k, v in sorted((last.get("settings") or {}).items())]
        return out

    # -- background thread --------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            t0 = self.monotonic()
            try:
                self.run_cycle()
            except Exception:  # keep serving the previous snapshot
                log.exception("diagnosis cycle failed")
            self._stop.wait(max(0.0, self.interval - (self.monotonic() - t0)))

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="llmdoctor-scheduler", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask the loop to end and wait for the running cycle; True when it ended in time."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True
