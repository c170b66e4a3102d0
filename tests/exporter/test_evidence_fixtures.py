"""Every evidence fixture of the project, diagnosed for real and exported: no reader
fails on the facts the collectors really deliver, and the exposition is valid."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.app.exporter import readings as r
from llmdoctor.app.exporter.collector import dedicated_registry, exposition
from llmdoctor.app.exporter.scheduler import Scheduler
from llmdoctor.app.exporter.service import diagnosis_runner, target_names
from tests.support import prometheus as prom_support

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE_DIRS = sorted(p for p in (ROOT / "tests" / "fixtures" / "evidence").glob("*") if p.is_dir())


@pytest.mark.skipif(not EVIDENCE_DIRS, reason="no evidence fixtures in tests/fixtures/evidence")
def test_all_evidence_fixtures_export_cleanly():
    targets = target_names([], [str(p) for p in EVIDENCE_DIRS])
    diagnose = diagnosis_runner(targets)
    registry, collector = dedicated_registry()
    labels = [label for label, _, _ in targets]
    s = Scheduler(labels, diagnose, collector.publish, interval=60)
    s.run_cycle()
    for label, outcome in s.outcomes.items():
        assert outcome.up, f"{label}: {outcome.error or outcome.result.report.errors}"
        _, failed = r.gauge_samples(outcome.facts)
        assert not failed, f"{label}: readers failed on real facts: {failed}"
    text = exposition(registry)
    assert text.count(b"llmdoctor_up{") == len(labels)
    if prom_support.promtool_skip_reason() is None:
        p = prom_support.promtool("check", "metrics", stdin=text)
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    # the figures the collectors give for the pathological fixtures reach the exposition
    body = text.decode()
    checked = 0
    for fragment in ('llmdoctor_swap_in_bytes_per_second{target="swap-active"}',
                     'llmdoctor_queue_depth_requests{engine="vllm",target="vllm-queueing"}',
                     'llmdoctor_model_memory_bytes{device="cpu",model="mistral:7b",target="ollama-cpu-spill"}',
                     'llmdoctor_preemptions_total{engine="vllm",target="vllm-preempt-v1"}',
                     'llmdoctor_queue_depth_requests{engine="sglang",target="sglang-queueing"}',
                     'llmdoctor_kv_usage_ratio{engine="sglang",target="sglang-kv-full"}',
                     'llmdoctor_preemptions_total{engine="sglang",target="sglang-retraction"}'):
        if fragment.split('target="')[1].rstrip('"}') in labels:
            assert fragment in body, fragment
            checked += 1
    assert checked >= 2
