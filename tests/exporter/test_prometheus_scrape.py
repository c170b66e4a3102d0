"""A real Prometheus scrapes the real exporter process, answers queries for its
metrics, and evaluates the packaged alert rules on them without errors."""
from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.exporter.conftest import EVIDENCE, exporter_process, wait_http
from tests.support import prometheus as prom_support

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "packaging" / "prometheus" / "rules.yml"
QUEUEING = ROOT / "tests" / "fixtures" / "evidence" / "vllm-queueing"  # Waiting: 15 reqs in its log


@pytest.fixture(scope="module")
def prometheus_and_port():
    reason = prom_support.skip_reason()
    if reason:
        pytest.skip(reason)
    port = prom_support.free_port()
    with prom_support.running_prometheus([f"127.0.0.1:{port}"], job="llmdoctor", rule_files=[str(RULES)]) as prom:
        yield prom, port


def test_prometheus_scrapes_exporter_and_evaluates_the_rules(prometheus_and_port):
    prom, port = prometheus_and_port
    evidence = ["--evidence", str(EVIDENCE)] + (["--evidence", str(QUEUEING)] if QUEUEING.is_dir() else [])
    with exporter_process(*evidence, "--listen", f"127.0.0.1:{port}", "--interval", "1s") as proc:
        wait_http(f"http://127.0.0.1:{port}/metrics", needle=b"llmdoctor_up{")
        up = prom.wait_for('llmdoctor_up{job="llmdoctor",target="gpu-box"} == 1', timeout=30)
        assert up, f"no llmdoctor_up in Prometheus; targets: {prom.targets()}"
        assert up[0]["metric"]["instance"] == f"127.0.0.1:{port}"
        info = prom.wait_for('llmdoctor_engine_info{engine="vllm",target="gpu-box"}', timeout=10)
        assert info and info[0]["metric"]["version"] == "0.8.5"
        queue = prom.wait_for('llmdoctor_queue_depth_requests{engine="vllm",target="gpu-box"}', timeout=10)
        assert queue and queue[0]["value"][1] == "0"  # vllm:num_requests_waiting from metrics.prom
        runs = prom.wait_for("llmdoctor_runs_total", timeout=10)
        assert float(runs[0]["value"][1]) >= 1
        health = prom.query(f'up{{job="llmdoctor",instance="127.0.0.1:{port}"}}')
        assert health and health[0]["value"][1] == "1"

        # The packaged rules evaluate on the real series without errors ...
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(r["health"] == "unknown" for r in prom.rules()):
            time.sleep(0.2)
        rules = prom.rules()
        assert rules and all(r["health"] == "ok" for r in rules), [(r["name"], r.get("lastError")) for r in rules]
        # ... and a queue that the evidence shows puts the queueing alert in pending (its for: is 10m)
        if QUEUEING.is_dir():
            pending = prom.wait_for('ALERTS{alertname="LLMRequestsQueueing",target="vllm-queueing"}', timeout=20)
            assert pending and pending[0]["metric"]["alertstate"] == "pending", (
                prom.query("ALERTS"), prom.query("llmdoctor_queue_depth_requests"), prom.rules()[0])
            assert not prom.query('ALERTS{target="gpu-box"}')  # the healthy target raises nothing

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0, proc.stderr.read().decode(errors="replace")
