"""Snapshot collector and background schedule, with a stand-in diagnosis."""
from __future__ import annotations

import threading
import time
import urllib.request

import pytest

from llmdoctor.app.exporter.collector import dedicated_registry, exposition
from llmdoctor.app.exporter.scheduler import Scheduler
from llmdoctor.app.exporter.service import serve_http
from tests.exporter.conftest import finding, full_facts, result
from tests.support import prometheus as prom_support


class CountingDiagnosis:
    """Stands in for diagnose_target: counts calls, records whether the probe was asked for."""

    def __init__(self, facts=None, fail_on=()):
        self.calls: list[tuple[str, bool]] = []
        self.facts = facts if facts is not None else full_facts()
        self.fail_on = set(fail_on)
        self.lock = threading.Lock()

    def __call__(self, target: str, probe: bool):
        with self.lock:
            self.calls.append((target, probe))
        if target in self.fail_on:
            raise RuntimeError("ssh: connection refused")
        facts = dict(self.facts)
        if not probe:
            facts.pop("probe", None)
        return result(facts, [finding()], target=target)


def test_scrape_never_runs_the_diagnosis():
    registry, collector = dedicated_registry()
    diagnosis = CountingDiagnosis()
    s = Scheduler(["h"], diagnosis, collector.publish, interval=60)
    assert exposition(registry) == b""  # before the first run: nothing, and no diagnosis
    s.run_cycle()
    for _ in range(50):
        exposition(registry)
    assert len(diagnosis.calls) == 1


@pytest.mark.skipif(prom_support.promtool_skip_reason() is not None, reason=prom_support.promtool_skip_reason() or "")
def test_exposition_passes_promtool_check_metrics():
    registry, collector = dedicated_registry()
    s = Scheduler(["a", "b"], CountingDiagnosis(fail_on={"b"}), collector.publish, interval=60, probe_interval=600)
    s.run_cycle()
    text = exposition(registry)
    assert b'llmdoctor_up{target="b"} 0.0' in text and b'llmdoctor_up{target="a"} 1.0' in text
    assert b'llmdoctor_down_info{reason="' in text and b'target="b"' in text.split(b"llmdoctor_down_info{", 2)[-1]
    p = prom_support.promtool("check", "metrics", stdin=text)
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


def test_failed_run_counts_and_keeps_counters():
    registry, collector = dedicated_registry()
    diagnosis = CountingDiagnosis()
    s = Scheduler(["h"], diagnosis, collector.publish, interval=60)
    s.run_cycle()
    diagnosis.fail_on.add("h")
    s.run_cycle()
    text = exposition(registry).decode()
    assert "llmdoctor_up 0.0" in text
    assert "llmdoctor_runs_total 2.0" in text and "llmdoctor_run_failures_total 1.0" in text
    assert 'llmdoctor_preemptions_total{engine="vllm"} 12.0' in text  # counters stay while the target is down


def test_probe_runs_on_its_own_interval_and_its_figures_persist():
    now = [0.0]
    registry, collector = dedicated_registry()
    diagnosis = CountingDiagnosis()
    s = Scheduler(["h"], diagnosis, collector.publish, interval=60, probe_interval=600, monotonic=lambda: now[0])
    for t in (0, 60, 120, 600, 660):
        now[0] = float(t)
        s.run_cycle()
    assert [p for _, p in diagnosis.calls] == [True, False, False, True, False]
    assert 'llmdoctor_probe_ttft_seconds{engine="ollama",percentile="95"} 2.5' in exposition(registry).decode()


def test_without_probe_interval_never_probes():
    _, collector = dedicated_registry()
    diagnosis = CountingDiagnosis()
    s = Scheduler(["h"], diagnosis, collector.publish, interval=60)
    s.run_cycle()
    s.run_cycle()
    assert not any(p for _, p in diagnosis.calls)


def test_background_schedule_runs_repeatedly_and_stops():
    registry, collector = dedicated_registry()
    diagnosis = CountingDiagnosis()
    s = Scheduler(["h"], diagnosis, collector.publish, interval=0.05)
    s.start()
    deadline = time.monotonic() + 10
    while len(diagnosis.calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert s.stop(5)
    n = len(diagnosis.calls)
    assert n >= 3
    time.sleep(0.15)
    assert len(diagnosis.calls) == n  # stopped means stopped


def test_http_server_serves_snapshot_on_loopback_and_stops():
    stop = threading.Event()
    bound = {}
    ready = threading.Event()

    def on_ready(addr):
        bound["addr"] = addr
        ready.set()

    diagnosis = CountingDiagnosis()
    codes = []
    t = threading.Thread(target=lambda: codes.append(serve_http(["h"], diagnosis, ("127.0.0.1", 0), 0.05, stop=stop, ready=on_ready)))
    t.start()
    try:
        assert ready.wait(10)
        host, port = bound["addr"]
        assert host == "127.0.0.1"
        deadline = time.monotonic() + 10
        body = b""
        while b"llmdoctor_up 1.0" not in body and time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                body = r.read()
            time.sleep(0.02)
        assert b"llmdoctor_up 1.0" in body
        assert b"process_resident_memory_bytes" not in body  # dedicated registry: ours only
    finally:
        stop.set()
        t.join(15)
    assert codes == [0]
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=1)


def test_probe_findings_stay_active_until_the_next_probe():
    from llmdoctor.model import Cause, Severity

    now = [0.0]
    queueing = [True]

    def diagnose(target, probe):
        found = [finding()]
        if probe and queueing[0]:
            found.append(finding("probe-queueing", Cause.QUEUEING, Severity.WARNING, "queued"))
        return result({"probe": full_facts()["probe"]} if probe else {}, found, target=target)

    registry, collector = dedicated_registry()
    s = Scheduler(["h"], diagnose, collector.publish, interval=60, probe_interval=600,
                  monotonic=lambda: now[0], probe_checks={"probe-queueing"})
    line = 'llmdoctor_finding{cause="QUEUEING",check="probe-queueing",severity="warning"} 1.0'
    texts = []
    for t, still_queueing in ((0, True), (60, True), (600, False), (660, False)):
        now[0], queueing[0] = float(t), still_queueing
        s.run_cycle()
        texts.append(exposition(registry).decode())
    assert [line in t for t in texts] == [True, True, False, False]
    assert all('check="ollama-cpu-spill"' in t for t in texts)
