"""bench/vllm_log_gen.py (the logs bench/engine_log_scan.py times) on a few MiB: its generated log scans to the counts it wrote, the
chunked scanner equals the line scanner on it, and a resumed scan (llmdoctor.hosts.logs ResumeState)
reads only the appended bytes. Throughput itself is only measured by the bench."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from llmdoctor.knowledge.vllm.log import VllmLogScanner, scan_vllm_lines
from llmdoctor.hosts.logs import FileSource, ResumeState

BENCH = Path(__file__).resolve().parents[3] / "bench" / "vllm_log_gen.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("vllm_log_scan_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_log_scans_to_what_was_written_and_resumes(tmp_path):
    bench = load_bench()
    log = tmp_path / "vllm.log"
    made = bench.generate(log, 3 * 1024 * 1024, seed=3)
    with open(log, "rb") as f:
        r = VllmLogScanner().scan_stream(f, chunk_size=256 * 1024).result()
    assert (r.preemption_warnings, r.stats_lines) == (made["preemption_warnings"], made["stats_lines"])
    assert r == scan_vllm_lines(log.read_text().split("\n"))
    assert r.kv_capacity.max_concurrency == 1.30 and r.engine_version == "v1"

    state = ResumeState(tmp_path / "state.json")
    first = VllmLogScanner()
    for block in FileSource(log, since_seconds=None, state=state).blocks():
        first.feed_block(block)
    assert first.result().stats_lines == made["stats_lines"]
    size = log.stat().st_size
    more = bench.generate(tmp_path / "more.log", 200 * 1024, seed=5)
    with open(log, "a") as f:
        f.write((tmp_path / "more.log").read_text())
    second, read = VllmLogScanner(), 0
    for block in FileSource(log, since_seconds=None, state=ResumeState(tmp_path / "state.json")).blocks():
        read += len(block) + 1
        second.feed_block(block)
    assert read == log.stat().st_size - size
    assert second.result().stats_lines == more["stats_lines"]
