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

from llmdoctor.engines import EngineInstance
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity, TargetReport

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EVIDENCE = FIXTURES / "evidence-vllm"


def full_facts() -> dict:
    """Facts shaped the way the collectors deliver them, one of every kind the exporter maps."""
    return {
        "engines": (EngineInstance("ollama", version="0.12.3", found_by="test"), EngineInstance("vllm", version="0.10.0")),
        "ollama_config": {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_MAX_QUEUE": "512",
                          "OLLAMA_CONTEXT_LENGTH": "8192", "OLLAMA_KEEP_ALIVE": "5m"},
        "ollama_ps": ({"name": "llama3.1:70b", "size": 48_000_000_000, "size_vram": 20_000_000_000},),
        "ollama_log": {"loads": 3},
        "memory": SimpleNamespace(swap_in_bytes_per_second=4096.0, swap_out_bytes_per_second=8192.0),
        "gpu": (SimpleNamespace(index=0, memory_used_bytes=20e9, memory_total_bytes=24e9),),
        "vllm_metrics": {"num_requests_waiting": 5, "num_requests_running": 8,
                         "kv_cache_usage_perc": 0.97, "num_preemptions_total": 12},
        "llamacpp_state": {"requests_deferred": 2, "requests_processing": 4},
        "kv_budget": {"demand_tokens": 131072, "capacity_tokens": 65536},
        "probe": {"ttft_p50_seconds": 0.4, "ttft_p95_seconds": 2.5, "itl_p50_seconds": 0.03,
                  "itl_p95_seconds": 0.08, "timestamp": 1_700_000_000.0},
    }


def finding(check="ollama-cpu-spill", cause=Cause.CPU_SPILL, severity=Severity.WARNING, title="spill") -> Finding:
    return Finding(cause, severity, title, (Evidence("api_ps.json", "size_vram 20 GB of 48 GB"),), Fix("lower num_ctx"), check=check)


def result(facts=None, findings=(), engine="ollama", target="gpu-box"):
    return SimpleNamespace(report=TargetReport(target, engine, tuple(findings)), facts=dict(facts or {}))


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
