"""llamacpp-cpu-fallback on the CUDA backend's own failure line: only a CUDA/ROCm build prints
"ggml_cuda_init: failed to initialize ...", so it is a GPU backend that failed, even as the only
line posted (llama.cpp#7218); a Vulkan "No devices found" alone (a CPU box can print it) stays
silent, as before."""
from __future__ import annotations

import pytest

from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance
from llmdoctor.model import Cause
from llmdoctor.plugins import load_checks, run_check


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs}


def fire(tmp_path, specs, line):
    (tmp_path / "meta.json").write_text('{"engine": "llamacpp"}')
    (tmp_path / "server.log").write_text(line + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)),
                      preset={"engines": (EngineInstance(LLAMACPP, found_by="evidence"),)})
    return run_check(specs["llamacpp-cpu-fallback"], store).findings


@pytest.mark.parametrize("line", [
    "ggml_cuda_init: failed to initialize CUDA: unknown error",  # llama.cpp#7218
    "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected",  # ollama#10421
])
def test_a_failed_cuda_init_alone_is_a_cpu_fallback(tmp_path, specs, line):
    [f] = fire(tmp_path, specs, line)
    assert f.cause is Cause.CPU_SPILL and f.evidence[0].text == line


@pytest.mark.parametrize("line", ["ggml_vulkan: No devices found.", "ggml_cuda_init: found 1 CUDA devices:",
                                  "ggml_cuda_init: failed"])
def test_other_backend_lines_alone_stay_silent(tmp_path, specs, line):
    assert fire(tmp_path, specs, line) == ()
