"""Two catalogued llama-server lines that carry a cause on their own: "ggml_cuda_init: failed to
initialize ..." (only a CUDA/ROCm build prints it: a GPU backend that failed, so a CPU fallback, even
as the only line posted, llama.cpp#7218; a Vulkan "No devices found" alone, which a CPU box can print,
stays silent), and a slot released with `truncated = 1` (its request was shifted or cut)."""
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


# A slot released with `truncated = 1` (server.cpp's release(), b3761-): its request was shifted or cut
# (slot.truncated is set by the context shift and the prompt cut). llama.cpp#12251's tail, with no shift line.
RELEASED = "slot      release: id  0 | task 0 | stop processing: n_past = 71, truncated = 1"
SHIFT = ("slot update_slots: id  0 | task 0 | slot context shift, n_keep = 1, n_left = 4094, n_discard = 2047")


def shift_findings(tmp_path, specs, lines):
    (tmp_path / "meta.json").write_text('{"engine": "llamacpp"}')
    (tmp_path / "server.log").write_text("\n".join(lines) + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)),
                      preset={"engines": (EngineInstance(LLAMACPP, found_by="evidence"),)})
    return run_check(specs["llamacpp-context-shift"], store).findings


def test_a_truncated_release_alone_is_a_context_truncation(tmp_path, specs):
    [f] = shift_findings(tmp_path, specs, ["srv  update_slots: all slots are idle", RELEASED])
    assert f.cause is Cause.CONTEXT_TRUNCATION and f.title.startswith("1 request(s) ended with their context shifted")


def test_a_release_after_its_shift_is_not_counted_twice(tmp_path, specs):
    [f] = shift_findings(tmp_path, specs, [SHIFT, RELEASED])
    assert f.title.startswith("1 time(s) the context filled") and [e.text for e in f.evidence] == [SHIFT]


def test_an_untruncated_release_is_silent(tmp_path, specs):
    assert shift_findings(tmp_path, specs, [RELEASED.replace("truncated = 1", "truncated = 0")]) == ()


# The fix follows the build's flags: `-fa` takes on|off|auto from b6325 (llama.cpp#15434) and is a
# bare switch before; no layer offloaded at all needs only -ngl. Lines: the `build:` line format of
# common/common.cpp, the offload lines of the llamacpp-cpu-fallback fixture.
PARTIAL = ("load_tensors: offloading 20 repeating layers to GPU\nload_tensors: offloaded 20/29 layers to GPU\n"
           "load_tensors:        CUDA0 model buffer size =  9500.00 MiB\n")


@pytest.mark.parametrize("build,flag", [(4382, "-fa -ctk q8_0"), (6710, "-fa on -ctk q8_0"), (None, "-fa on -ctk q8_0")])
def test_the_flash_attention_flag_is_the_one_the_build_takes(tmp_path, specs, build, flag):
    head = f"build: {build} (86bf31cf) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu\n" if build else ""
    [f] = fire(tmp_path, specs, head + PARTIAL)
    command = " ".join(f.fix.commands)
    assert flag in command and "-ngl 999" in command, command


def test_no_layer_offloaded_needs_only_the_layers_flag(tmp_path, specs):
    log = "ggml_cuda_init: found 1 CUDA devices:\nload_tensors: offloaded 0/29 layers to GPU\n"
    [f] = fire(tmp_path, specs, log)
    command = " ".join(f.fix.commands)
    assert "-ngl 999" in command and "-fa" not in command and "-ctk" not in command, command
