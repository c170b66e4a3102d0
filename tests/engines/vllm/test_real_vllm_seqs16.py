"""A real vLLM 0.32 (CPU) with --max-num-seqs 16 and a 2,176-token KV cache, diagnosed live.

What the recording (tests/fixtures/vllm/real_0.32_cpu/) showed, produced again and read by
`llmdoctor diagnose` on this host (the server found by its `vllm serve` process): 16
concurrent 300-token requests preempt, and only /metrics says so; an over-length prompt gets
HTTP 400 whose body only the client sees; SIGTERM logs errors that are a normal stop.
One server for the whole module (a start costs 20-60 s on 2 cores).
"""
from __future__ import annotations

import json

import pytest

from tests.support.vllm_cpu import TIMINGS, serve, timed
from tests.support.schema import report_doc

# the first test pays for the install (the suite-wide 600 s would cut it on a busy box)
pytestmark = [pytest.mark.vllm, pytest.mark.real, pytest.mark.slow, pytest.mark.timeout(2400)]


@pytest.fixture(scope="module")
def server(vllm_setup, tmp_path_factory):
    s = serve(vllm_setup, tmp_path_factory.mktemp("vllm16"), 16)
    yield s
    s.stop()


def _findings(result) -> list[dict]:
    assert result.returncode in (0, 1, 2), result.stderr[-3000:]
    doc = report_doc(result.stdout)
    [target] = [t for t in doc["targets"] if t["engine"] == "vllm"]
    return target["findings"]


def _cites(findings, needle: str) -> bool:
    return any(needle in e["text"] for f in findings for e in f["evidence"])


def test_preemption_is_read_from_the_metrics_counter_rate(server):
    from tests.support.vllm_cpu import BoundedLoad, diagnose, wait_for_metric

    with timed("scenario_preemption_s"):
        before = server.log_text().count("\n")
        with BoundedLoad(server, concurrent=16, max_tokens=300, prompt_words=200, rounds=40, seconds=150) as load:
            assert wait_for_metric(server.port, "vllm:num_requests_waiting", 0, timeout=60) is not None
            result = diagnose("--format", "json", "--log", str(server.log_path), "--sample-seconds", "6")
        assert load.statuses and set(load.statuses) == {200}, sorted(set(load.statuses))
    findings = _findings(result)
    TIMINGS["preemption_findings"] = sorted({f"{f['check']}:{f['cause']}" for f in findings})
    rate = [f for f in findings if f["check"] == "vllm-preemption-rate"]
    assert rate and rate[0]["cause"] == "PREEMPTION", json.dumps(findings)[:3000]
    assert rate[0]["evidence"][0]["text"].startswith("vllm:num_preemptions_total ")
    assert "preemptions per minute" in rate[0]["evidence"][0]["text"]
    # read from the process's command line: the KV size is fixed, so the fix raises that size
    assert "--kv-cache-memory-bytes 4456448" in rate[0]["fix"]["commands"][0]
    assert "--gpu-memory-utilization" not in rate[0]["fix"]["commands"][0]
    # the real server printed no preemption count or warning in any log line
    new_lines = server.log_text().splitlines()[before:]
    assert not [l for l in new_lines if "Preemptions:" in l or "preempted" in l]
    assert "vllm-preemption" not in {f["check"] for f in findings}
    # the start-up line of the CPU build is read: 2,176 tokens, 2.12 requests of 1,024
    kv = [f for f in findings if f["check"] == "vllm-kv-concurrency"]
    assert kv and kv[0]["cause"] == "KV_CAPACITY" and "2.12" in kv[0]["title"]
    assert _cites(kv, "CPU KV cache size: 2,176 tokens")


def test_over_length_prompt_is_context_truncation_from_what_the_client_got(server, tmp_path):
    from tests.support.vllm_cpu import diagnose

    with timed("scenario_context_s"):
        before = server.log_text().count("\n")
        status, body = server.complete(server.prompt(1500, 1), 16)
        assert status == 400, body[:500]
        assert ("This model's maximum context length is 1024 tokens. However, your prompt contains at least "
                "1025 input tokens") in body
        # the server's own log shows the access line only: diagnose cannot see the refusal there ...
        alone = _findings(diagnose("--format", "json", "--log", str(server.log_path), "--sample-seconds", "0"))
        assert "CONTEXT_TRUNCATION" not in {f["cause"] for f in alone}
        new_lines = server.log_text().splitlines()[before:]
        assert any('"POST /v1/completions HTTP/1.1" 400 Bad Request' in l for l in new_lines)
        assert not any("maximum context length" in l for l in new_lines)
        # ... it sees it in what the client got back, handed over as one more log file
        client_log = tmp_path / "client.log"
        client_log.write_text(f"POST /v1/completions -> HTTP {status}\n{body}\n")
        findings = _findings(diagnose("--format", "json", "--log", str(server.log_path), "--log", str(client_log),
                                      "--sample-seconds", "0"))
    TIMINGS["context_findings"] = sorted({f"{f['check']}:{f['cause']}" for f in findings})
    trunc = [f for f in findings if f["cause"] == "CONTEXT_TRUNCATION"]
    assert trunc and trunc[0]["check"] == "vllm-prompt-too-long"
    assert "1,025 tokens > 1,024" in trunc[0]["title"]
    assert trunc[0]["evidence"][0]["source"].endswith("client.log")


def test_sigterm_stop_is_not_reported_as_a_crash(server):
    from tests.support.vllm_cpu import diagnose

    with timed("scenario_shutdown_s"):
        before = server.log_text().count("\n")
        server.stop()
        TIMINGS["stop_seqs16_s"] = server.stop_s
        stop_lines = server.log_text().splitlines()[before:]
        assert any("[shutdown] API server: shutdown triggered" in l for l in stop_lines)
        # the server is gone: diagnose finds vLLM through its log file alone
        result = diagnose("--format", "json", "--log", str(server.log_path), "--sample-seconds", "0")
    # on SIGTERM vLLM 0.32 may also log `AsyncLLM output_handler failed` / `EngineDeadError`
    # (it did in the recording: a race in its own shutdown; test_vllm_real_recording.py reads
    # that log); either way the stop is no finding and no error
    doc = report_doc(result.stdout)
    [target] = [t for t in doc["targets"] if t["engine"] == "vllm"]
    assert target["errors"] == []
    text = json.dumps(target["findings"])
    for word in ("EngineDeadError", "output_handler", "shutdown", "SIGTERM", "crash"):
        assert word not in text
