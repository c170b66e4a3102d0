from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import pytest

from llmdoctor.knowledge.engines import EngineInstance
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity, TargetReport

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EVIDENCE = FIXTURES / "evidence-vllm"


def full_facts() -> dict:
    """Facts as the collectors deliver them (their real types), one of every kind the
    exporter maps. Built from the real classes so a renamed field fails here, loudly."""
    from llmdoctor.knowledge.llamacpp.endpoints import LlamaMetrics, LlamaState
    from llmdoctor.knowledge.concurrency import Span
    from llmdoctor.knowledge.ollama.log import GroupCell, OllamaLogSummary, RequestTiming
    from llmdoctor.knowledge.ollama.ps import LoadedModel
    from llmdoctor.knowledge.vllm.log import KvCapacity
    from llmdoctor.knowledge.vllm.metrics import VllmMetrics
    from llmdoctor.facts.memory import MemoryFact
    from llmdoctor.facts.ollama import OllamaConfig
    from llmdoctor.facts.vllm import VllmLog, VllmMetricsSample
    from llmdoctor.knowledge.memory import SwapInterval
    from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact
    from llmdoctor.facts.progress import EngineProgress
    from llmdoctor.knowledge.probe.result import ProbeResult, ProbeRuns, StreamSample
    from llmdoctor.knowledge.progress import Reading

    streams = tuple(
        StreamSample(id=f"s{i}", scenario="concurrent", ttft_s=ttft, chunk_s=(ttft, ttft + 0.03, ttft + 0.06, ttft + 0.14))
        for i, ttft in enumerate((0.2, 0.4, 0.6, 2.5))
    )
    return {
        "engines": (EngineInstance("ollama", version="0.12.3", found_by="test"), EngineInstance("vllm", version="0.10.0")),
        "ollama_config": OllamaConfig("0.12.3", {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_MAX_QUEUE": "512",
                                                 "OLLAMA_CONTEXT_LENGTH": "8192", "OLLAMA_KEEP_ALIVE": "5m"}, {}),
        "ollama_ps": (LoadedModel("llama3.1:70b", 48_000_000_000, 20_000_000_000, "58%/42% CPU/GPU", 58),),
        "ollama_log": OllamaLogSummary(load_count=3, requests=RequestTiming(3, 1, peak_in_flight=3, groups=(
            GroupCell(3, 3, 10.0, 1.0, 1, 3, 1, "", ()),), spans=(
            Span(0.0, 10.0), Span(0.0, 20.0), Span(0.0, 30.0)))),
        "memory": MemoryFact(intervals=(SwapInterval(4096.0, 8192.0, 1.0), SwapInterval(4096.0, 8192.0, 1.0))),
        "gpu": GpuFact("NVML", (GpuDevice(0, "NVIDIA L4", total_bytes=24_000_000_000, used_bytes=20_000_000_000),)),
        "vllm_metrics": VllmMetricsSample(VllmMetrics(running=8, waiting=5, kv_usage=0.97, preemptions_total=12), None, 0.0, "metrics.prom"),
        "vllm_log": VllmLog((SimpleNamespace(kv_capacity=KvCapacity(kv_tokens=65536, tokens_per_request=8192, max_concurrency=8.0),
                                             recent_stats=(), preemptions_at_least=0, v1_preemptions=0),)),
        "llamacpp_state": LlamaState(8080, metrics=LlamaMetrics(requests_processing=4, requests_deferred=2)),
        "probe": ProbeRuns((ProbeResult("http://127.0.0.1:11434", "ollama", started_at="2026-11-29T11:00:00+00:00", samples=streams),)),
        "engine_progress": (EngineProgress("vllm", 8000, "ok", "GET /health: 200",
                                           (Reading(0.0, "/metrics", 10.0, 1, 0, (10.0,)),
                                            Reading(2.0, "/metrics", 90.0, 1, 0, (90.0,)))),),
    }


def finding(check="ollama-cpu-spill", cause=Cause.CPU_SPILL, severity=Severity.WARNING, title="spill") -> Finding:
    return Finding(cause, severity, title, (Evidence("api_ps.json", "size_vram 20 GB of 48 GB"),), Fix("lower num_ctx"), check=check)


def result(facts=None, findings=(), engine="ollama", target="gpu-box"):
    report = TargetReport(target, engine, tuple(findings), reachable=engine != "unreachable")
    return SimpleNamespace(report=report, facts=dict(facts or {}))


def wait_http(url: str, timeout: float = 20.0, needle: bytes = b"") -> bytes:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                body = r.read()
                if needle in body:
                    return body
        except OSError as e:
            last = e
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer with {needle!r} within {timeout:g} s: {last}")


@contextlib.contextmanager
def exporter_process(*args: str) -> Iterator[subprocess.Popen]:
    """`python -m llmdoctor exporter ARGS` in a child; SIGTERM and reaped at the end."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "llmdoctor", "exporter", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture
def evidence_dir() -> Path:
    return EVIDENCE
