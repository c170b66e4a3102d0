"""llmdoctor_queue_trend_info: the exporter tells a queue that climbs over its cycles from bursts
and from one spike. Facts per cycle are built from real recorded outputs with only the queue's
figure changed: llama-server's /metrics (tests/fixtures/evidence/llamacpp-queueing, recorded
from a real llama-server) and SGLang's `Decode batch,` line (tests/fixtures/sglang/SOURCES.md)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from llmdoctor.app.exporter.collector import dedicated_registry, exposition
from llmdoctor.app.exporter.queue_history import HISTORY, QueueHistory
from llmdoctor.app.exporter.scheduler import Scheduler
from tests.exporter.conftest import result
from tests.support import prometheus as prom_support

FIX = Path(__file__).resolve().parents[1] / "fixtures"
LLAMA_METRICS = (FIX / "evidence/llamacpp-queueing/metrics.prom").read_text()
SGLANG_LINE = (FIX / "sglang/prefill_decode_access_22166.log").read_text().splitlines()[0]
CLIMB = [3, 9, 17, 24, 33, 41, 52, 60, 71, 83, 94, 105]
BURSTS = [30, 22, 12, 0, 0, 29, 20, 9, 0, 0, 30, 18]


def llama_facts(deferred: int) -> dict:
    from llmdoctor.knowledge.llamacpp.endpoints import LlamaState, parse_llama_metrics

    text = re.sub(r"^llamacpp:requests_deferred \d+$", f"llamacpp:requests_deferred {deferred}", LLAMA_METRICS,
                  flags=re.M)
    return {"llamacpp_state": LlamaState(port=8080, metrics=parse_llama_metrics(text))}


def sglang_facts(queue: int) -> dict:
    from llmdoctor.facts.sglang import SglangLog
    from llmdoctor.knowledge.sglang.log import scan_sglang_lines

    line = SGLANG_LINE.replace("#queue-req: 0", f"#queue-req: {queue}")
    return {"sglang_log": SglangLog((scan_sglang_lines([line], "sglang.log"),))}


def cycles(per_cycle):
    """A scheduler fed one diagnosis per reading; returns (scheduler, exposition text)."""
    registry, collector = dedicated_registry()
    readings = iter(per_cycle)
    s = Scheduler(["box"], lambda target, probe: result(next(readings), target=target), collector.publish, interval=60)
    for _ in per_cycle:
        s.run_cycle()
    return s, exposition(registry).decode()


def test_a_climbing_llama_server_queue_is_growing():
    s, text = cycles([llama_facts(d) for d in CLIMB])
    assert 'llmdoctor_queue_depth_requests{engine="llamacpp"} 105.0' in text
    assert 'llmdoctor_queue_trend_info{engine="llamacpp",shape="growing"} 1.0' in text


def test_sglang_bursts_that_drain_between_cycles():
    _, text = cycles([sglang_facts(q) for q in BURSTS])
    assert 'llmdoctor_queue_trend_info{engine="sglang",shape="bursts"} 1.0' in text


def test_one_spike_among_quiet_cycles_and_no_shape_from_too_few():
    _, text = cycles([llama_facts(d) for d in [0, 0, 0, 14, 0, 0, 0]])
    assert 'llmdoctor_queue_trend_info{engine="llamacpp",shape="spike"} 1.0' in text
    _, text = cycles([llama_facts(2)])
    assert "llmdoctor_queue_trend_info" not in text  # one cycle is no trend


def test_the_history_is_bounded_and_its_state_round_trips():
    h = QueueHistory()
    for d in range(HISTORY * 2):
        h.feed("box", llama_facts((d + 1) ** 2))
    assert len(h.to_json()[0][2]) == HISTORY
    back = QueueHistory.from_json(h.to_json(), ["box"])
    assert back.shapes() == h.shapes() == {"box": [("llamacpp", "growing")]}
    assert QueueHistory.from_json([["box", "llamacpp", ["x"]], "junk", ["gone", "llamacpp", [1, 2]]], ["box"]).shapes() == {}


def test_once_runs_under_a_timer_keep_the_history(tmp_path):
    """Each timer tick is a new process: the readings continue from the state directory."""
    from llmdoctor.app.exporter.service import write_textfile

    out, state = tmp_path / "llmdoctor.prom", str(tmp_path / "state")
    for d in CLIMB:
        facts = llama_facts(d)
        assert write_textfile(["box"], lambda target, probe, f=facts: result(f, target=target), str(out), 60,
                              once=True, state_root=state) == 0
    text = out.read_text()
    assert 'llmdoctor_queue_trend_info{engine="llamacpp",shape="growing"} 1.0' in text
    if prom_support.promtool_skip_reason() is None:
        p = prom_support.promtool("check", "metrics", stdin=text.encode())
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


@pytest.mark.skipif(prom_support.promtool_skip_reason() is not None, reason=prom_support.promtool_skip_reason() or "")
def test_the_trend_family_passes_promtool_check_metrics():
    _, text = cycles([sglang_facts(q) for q in BURSTS])
    p = prom_support.promtool("check", "metrics", stdin=text.encode())
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
