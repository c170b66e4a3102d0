"""A real Prometheus scrapes the real exporter process and answers a query for it."""
from __future__ import annotations

import signal

import pytest

from tests.exporter.conftest import EVIDENCE, exporter_process, wait_http
from tests.support import prometheus as prom_support

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def prometheus_and_port():
    reason = prom_support.skip_reason()
    if reason:
        pytest.skip(reason)
    port = prom_support.free_port()
    with prom_support.running_prometheus([f"127.0.0.1:{port}"], job="llmdoctor") as prom:
        yield prom, port


def test_prometheus_scrapes_exporter_and_query_returns_metric(prometheus_and_port):
    prom, port = prometheus_and_port
    with exporter_process("--evidence", str(EVIDENCE), "--listen", f"127.0.0.1:{port}", "--interval", "1s") as proc:
        wait_http(f"http://127.0.0.1:{port}/metrics", needle=b"llmdoctor_up 1.0")
        up = prom.wait_for('llmdoctor_up{job="llmdoctor"} == 1', timeout=30)
        assert up, f"no llmdoctor_up in Prometheus; targets: {prom.targets()}"
        assert up[0]["metric"]["instance"] == f"127.0.0.1:{port}"
        info = prom.wait_for('llmdoctor_engine_info{engine="vllm"}', timeout=10)
        assert info and info[0]["metric"]["version"] == "0.8.5"
        queue = prom.wait_for('llmdoctor_queue_depth_requests{engine="vllm"}', timeout=10)
        assert queue and queue[0]["value"][1] == "0"  # vllm:num_requests_waiting from metrics.prom
        runs = prom.wait_for("llmdoctor_runs_total", timeout=10)
        assert float(runs[0]["value"][1]) >= 1
        health = prom.query(f'up{{job="llmdoctor",instance="127.0.0.1:{port}"}}')
        assert health and health[0]["value"][1] == "1"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0, proc.stderr.read().decode(errors="replace")
