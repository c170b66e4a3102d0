"""The checks fed by the catalogued wordings: truncations, queue-full aborts, the radix cache
SGLang switched off itself - each silent where its fact is absent or does not matter."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks

EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"
SHORT_PREFILL = ("[2025-06-25 14:02:04 TP0] Prefill batch. #new-seq: 1, #new-token: 226, #cached-token: 1, "
                 "token usage: 0.00, #running-req: 0, #queue-req: 0")  # sglang#7515, shortened prompt


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def fired(directory, specs):
    result = diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs)
    return sorted({f.check for f in result.report.findings}), result.report.findings


def write(tmp_path, log: str, **files) -> Path:
    (tmp_path / "sglang.log").write_text(log)
    for name, text in files.items():
        (tmp_path / name.replace("_", ".")).write_text(text)
    return tmp_path


def test_radix_cache_switched_off_by_sglang_needs_long_prompts(tmp_path, specs):
    line = (EVIDENCE / "sglang-radix-auto-off" / "sglang.log").read_text().splitlines()[0]
    assert fired(write(tmp_path, line + "\n" + SHORT_PREFILL + "\n"), specs)[0] == []
    checks, findings = fired(EVIDENCE / "sglang-radix-auto-off", specs)
    assert checks == ["sglang-radix-cache-off"] and "switched its radix cache off" in findings[0].title
    assert "--disable-radix-cache" not in " ".join(findings[0].fix.commands)


def test_truncation_names_the_pool_when_it_is_the_limit(tmp_path, specs):
    log = ("[2025-05-14 10:02:31 TP0] Request length is longer than the KV cache pool size or the max context "
           "length. Truncated. len(req.origin_input_ids)=70312, max_req_input_len=20000.\n")
    d = write(tmp_path, log, cmdline_txt="python -m sglang.launch_server --model-path m --context-length 131072\n")
    checks, findings = fired(d, specs)
    assert checks == ["sglang-context-truncated"]
    assert "KV pool" in findings[0].fix.summary and any("kv-cache-dtype" in c for c in findings[0].fix.commands)


def test_refusal_and_truncation_stay_apart(specs):
    # (and the pool's cap under --context-length there: sglang-input-capped, KV_CAPACITY)
    assert fired(EVIDENCE / "sglang-context", specs)[0] == ["sglang-context-exceeded", "sglang-input-capped"]
    assert fired(EVIDENCE / "sglang-truncated", specs)[0] == ["sglang-context-truncated"]


def test_queue_full_says_the_limit_from_the_command_line(tmp_path, specs):
    d = write(tmp_path, '[2025-10-01 10:00:00] INFO:     10.0.0.7:5512 - "POST /v1/chat/completions HTTP/1.1" 503 '
              'Service Unavailable\n', cmdline_txt="python -m sglang.launch_server --model-path m --max-queued-requests 8\n")
    (d / "client_errors.txt").write_text((EVIDENCE / "sglang-queue-full" / "client_errors.txt").read_text())
    checks, findings = fired(d, specs)
    assert checks == ["sglang-queue-full"]
    assert any("max_queued_requests 8" in e.text for e in findings[0].evidence)
    assert "--max-queued-requests 256" in findings[0].fix.commands[0]


def test_pool_not_applied_both_ways(tmp_path, specs):
    checks, findings = fired(EVIDENCE / "sglang-pool-not-applied", specs)
    assert checks == ["sglang-pool-not-applied"] and "no memory left" in findings[0].title
    log = ("[2025-07-02 07:41:59 TP0] max_total_tokens=400000 is larger than the profiled value 212345. "
           "Use the profiled value instead.\n")  # rendered from model_runner.py:776 @ v0.4.6
    checks, findings = fired(write(tmp_path, log, cmdline_txt="python -m sglang.launch_server --model-path m "
                                                              "--max-total-tokens 400000 --tp 2\n"), specs)
    assert checks == ["sglang-pool-not-applied"] and "212,345" in findings[0].title
    assert any("--tp 4" in c for c in findings[0].fix.commands)
