"""`diagnose --prometheus` against a real Prometheus (Debian's package) scraping real servers:
two real llama-servers through a bounded load with a burst (the burst is found with its time;
the one-slot replica that took most of the load is the imbalanced one), and recorded vLLM
0.32 and SGLang expositions, llmdoctor's own exporter, node_exporter and dcgm-exporter lines
(tests/support/host_exporters.py) served on loopback for it to scrape."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support import prometheus as promsupport
from tests.support.exposition import serving
from tests.support.host_exporters import dcgm_exporter_text, node_exporter_text
from tests.support.inprocess import cli

pytestmark = pytest.mark.real
FIX = Path(__file__).resolve().parents[1] / "fixtures"
CLOCK = re.compile(r"from (\d\d:\d\d:\d\d) to (\d\d:\d\d:\d\d)")


@pytest.fixture(autouse=True)
def _needs_prometheus():
    reason = promsupport.skip_reason()
    if reason:
        pytest.skip(reason)


def _secs(hms: str) -> int:
    h, m, s = map(int, hms.split(":"))
    return h * 3600 + m * 60 + s


def _local(t: float) -> int:
    return _secs(time.strftime("%H:%M:%S", time.localtime(t)))


def _wait_targets_up(prom, n: int, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(prom.query("up == 1")) >= n:
            return
        time.sleep(0.5)
    raise AssertionError(f"Prometheus did not scrape {n} targets: {prom.targets()}")


def _findings(doc, check: str):
    return {t["target"]: [f for f in t["findings"] if f["check"] == check] for t in doc["targets"]}


def test_llama_server_burst_is_found_with_its_time_and_the_busy_replica_stands_apart():
    from tests.support.llamaserver import generate, running_llama_server
    from tests.support.tinymodel import tiny_gguf

    model = tiny_gguf("small")
    with running_llama_server(model, n_parallel=4, n_ctx=4096) as wide, \
            running_llama_server(model, n_parallel=1, n_ctx=2048) as narrow:
        targets = [u.split("://", 1)[1] for u in (wide, narrow)]
        with promsupport.running_prometheus(targets, job="llama") as prom:
            _wait_targets_up(prom, 2)
            prom.wait_for("llamacpp:requests_deferred", timeout=30)
            generate(wide, 64, 1)  # a light load on the wide replica before and during the burst
            burst_start = time.time()
            load = [threading.Thread(target=generate, args=(narrow, 1500, i), daemon=True) for i in range(8)]
            load.append(threading.Thread(target=generate, args=(wide, 64, 99), daemon=True))
            for t in load:
                t.start()
            for t in load:
                t.join(timeout=60)  # bounded: each request has its own 30 s timeout
            burst_end = time.time()
            time.sleep(3)  # the scrapes after the burst
            code, out = cli("diagnose", "--prometheus", prom.url, "--since", "3m", "--selector", '{job="llama"}',
                            "-f", "json")
    assert code in (1, 2), out
    doc = json.loads(out)
    assert {t["engine"] for t in doc["targets"]} == {"llamacpp"} and len(doc["targets"]) == 2
    narrow_key = targets[1]
    queue = _findings(doc, "prom-queueing")
    (f,) = queue[narrow_key]
    text = f["evidence"][0]["text"]
    assert "llamacpp:requests_deferred > 0 for" in text, text
    start, end = map(_secs, CLOCK.search(text).groups())
    assert _local(burst_start) - 2 <= start <= end <= _local(burst_end) + 2, (text, burst_start, burst_end)
    assert not queue[targets[0]]
    imbalance = _findings(doc, "prom-replica-imbalance")
    assert len(imbalance[narrow_key]) == 1 and not imbalance[targets[0]], imbalance
    rows = [e["text"] for e in imbalance[narrow_key][0]["evidence"]]
    assert len(rows) == 2 and all("tokens/s" in r for r in rows)


def test_recorded_engines_exporter_and_host_exporters_are_read():
    vllm = FIX / "vllm" / "real_0.32_cpu"
    sglang = FIX / "sglang"
    st = {"vllm": (vllm / "metrics_before.prom").read_text(), "sglang": (sglang / "metrics_idle_7944.prom").read_text(),
          "node": node_exporter_text(False), "dcgm": dcgm_exporter_text(0x1, "127.0.0.1")}
    exporter_port = promsupport.free_port()
    exporter = subprocess.Popen([sys.executable, "-m", "llmdoctor", "exporter", "-e",
                                 str(FIX / "evidence" / "vllm-kv-full-waiting"), "--listen",
                                 f"127.0.0.1:{exporter_port}", "--interval", "5s"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        with serving(lambda: st["vllm"]) as v, serving(lambda: st["sglang"]) as s, \
                serving(lambda: st["node"]) as n, serving(lambda: st["dcgm"]) as g:
            with promsupport.running_prometheus([v, s, n, g, f"127.0.0.1:{exporter_port}"], job="fleet") as prom:
                _wait_targets_up(prom, 5)
                prom.wait_for("sglang:num_queue_reqs", timeout=30)
                time.sleep(2)
                st["vllm"] = (vllm / "queue_metrics_during.prom").read_text()
                st["sglang"] = (sglang / "metrics_docs_queue.prom").read_text()
                st["dcgm"] = dcgm_exporter_text(0x1 | 0x40, "127.0.0.1")
                for i in range(6):
                    st["node"] = node_exporter_text(True, extra_in=i * 5000)
                    time.sleep(1)
                st["vllm"] = (vllm / "metrics_after.prom").read_text()
                st["sglang"] = (sglang / "metrics_idle_7944.prom").read_text()
                st["dcgm"] = dcgm_exporter_text(0x1, "127.0.0.1")
                time.sleep(3)
                code, out = cli("diagnose", "--prometheus", prom.url, "--since", "2m", "-f", "json")
    finally:
        from tests.support.process import stop_process

        stop_process(exporter, 10.0)
    assert code in (1, 2), out
    doc = json.loads(out)
    by_key = {t["target"]: t for t in doc["targets"]}
    assert by_key[v]["engine"] == "vllm" and by_key[s]["engine"] == "sglang"
    own = by_key[f"127.0.0.1:{exporter_port} (llmdoctor exporter)"]
    assert own["engine"] == "vllm"
    assert "the exporter reported vllm-kv-pinned (warning)" in json.dumps(own["summary"]), own["summary"]
    checks = {k: {f["check"] for f in t["findings"]} for k, t in by_key.items()}
    assert {"prom-queueing", "prom-preemption", "prom-swap", "prom-gpu-slowed"} <= checks[v], checks
    assert {"prom-queueing", "prom-swap", "prom-gpu-slowed"} <= checks[s], checks
    (q,) = [f for f in by_key[s]["findings"] if f["check"] == "prom-queueing"]
    assert "sglang:num_queue_reqs > 0 for" in q["evidence"][0]["text"] and "peak 2826" in q["evidence"][0]["text"]
    assert any("HW thermal slowdown" in f["title"] for f in by_key[v]["findings"])
