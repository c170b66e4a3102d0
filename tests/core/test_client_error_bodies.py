"""An evidence directory holding only the error body a client received (client_errors.txt):
the body's own wording names its engine, and that engine's scanner reads the refusal.

Bodies: Qwen3#1321 (SGLang, tokenizer_manager.py), textgen#7257 (llama-server, type
exceed_context_size_error since b6710), n8n#11144 (Ollama 0.3's /api/embed 400, server/routes.go
v0.2.8-v0.11), rendered from server/routes.go:640 @ v0.12.3 (Ollama's newer wording).
"""
from __future__ import annotations

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.plugins import load_checks

BODIES = [
    ("sglang", '{"object":"error","message":"The input (61709 tokens) is longer than the model\\\'s context length '
               '(40960 tokens).","type":"BadRequestError","param":null,"code":400}'),
    ("llamacpp", '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the '
                 'context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,'
                 '"n_ctx":8192}}'),
    ("ollama", '{ "error": "input length exceeds maximum context length", "status_code": 400, "name": "ResponseError", '
               '"attemptNumber": 7, "retriesLeft": 0 }'),
    ("ollama", '{"error":"input exceeds maximum context length"}'),
]


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors, errors
    return specs


def _diagnose(tmp_path, text, specs):
    (tmp_path / "client_errors.txt").write_text(text + "\n")
    return diagnose_target(EvidenceHost(tmp_path), DiagnoseOptions(sample_seconds=0), specs).report


@pytest.mark.parametrize("engine,body", BODIES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(BODIES)])
def test_a_refusal_body_alone_is_diagnosed_as_truncation(tmp_path, specs, engine, body):
    report = _diagnose(tmp_path, body, specs)
    assert report.engine == engine
    assert [f.cause for f in report.findings if f.severity in ("warning", "critical")] == ["CONTEXT_TRUNCATION"]


@pytest.mark.parametrize("body", [
    '{"error":"model \\"llama3\\" not found, try pulling it first"}',  # Ollama 404, not a context refusal
    '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',  # llama-server loading
    "connection refused",
])
def test_other_client_errors_raise_no_truncation(tmp_path, specs, body):
    report = _diagnose(tmp_path, body, specs)
    assert "CONTEXT_TRUNCATION" not in {f.cause for f in report.findings}
