"""The scanner on the wordings of knowledge/ollama/catalogue.py that the real-sample tests do not
reach (other versions' words, other code paths), on what must not count, and on garbage. The
catalogue test (tests/core/test_message_catalogue.py) checks each entry's example in every paste
form; this file checks the mechanisms behind them."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama.log import MARKED, MARKS, scan
from llmdoctor.knowledge.ollama.catalogue import MESSAGES


@pytest.mark.parametrize("line", [
    "time=2025-01-16T10:00:00.000Z level=WARN source=sched.go:137 msg=\"mllama doesn't support parallel requests yet\"",
    'time=2025-07-07T10:00:00.000Z level=WARN source=sched.go:140 msg="mllama does not currently support parallel requests"',
    'level=WARN source=sched.go:509 msg="model architecture does not currently support parallel requests" architecture=x',
])
def test_parallel_forced_to_one_in_every_version(line):
    assert scan([line], "j").forced_single_slot.count == 1


def test_a_client_cancel_is_not_a_load_timeout():
    # ctx.Err() after the client left (load_aborted's case) against OLLAMA_LOAD_TIMEOUT's stall
    canceled = ('time=2024-10-29T03:24:29.283Z level=ERROR source=sched.go:455 msg="error loading llama server" '
                'error="timed out waiting for llama runner to start: context canceled"')
    stalled = "Error: timed out waiting for llama runner to start - progress 0.00 -"
    assert scan([canceled], "j").load_timeouts.count == 0
    assert scan([stalled], "j").load_timeouts.count == 1


def test_llama_server_load_abort_and_oom_words():
    s = scan(['level=WARN source=llama_server.go:1301 msg="client connection closed before llama-server finished '
              'loading, aborting load"',
              'level=WARN source=sched.go:1648 msg="runtime OOM detected; expiring loaded models to clear memory before '
              'next request" model=m error=x',
              'level=INFO msg="Load failed" model=m error="llama-server reported out-of-memory during startup: x"'], "j")
    assert s.load_aborted.count == 1 and s.oom.count == 2


def test_a_counted_line_still_gives_its_other_facts():
    # the runner died of an OOM: both counts from one line
    s = scan(['level=ERROR source=sched.go:455 msg="error loading llama server" '
              'error="llama runner process has terminated: cudaMalloc failed: out of memory"'], "j")
    assert s.runner_died.count == 1 and s.oom.count == 1


def test_is_not_supported_by_counts_only_for_an_amd_gpu():
    amd = 'level=WARN source=amd_linux.go:116 msg="amdgpu [0] gfx1031 is not supported by /tmp/o/rocm [gfx1030 gfx1100]"'
    other = 'level=WARN msg="flash attention is not supported by this build"'
    assert scan([amd], "j").gpu_rejected.count == 1
    assert scan([other], "j").gpu_rejected.count == 0


def test_old_dynamic_libraries_form():
    s = scan(['time=2024-03-18T03:00:31.661Z level=INFO source=payload_common.go:139 msg="Dynamic LLM libraries '
              '[rocm_v60000 cpu_avx2 cpu cpu_avx cuda_v11]"'], "j")
    assert s.runner_libraries == ("rocm_v60000", "cpu_avx2", "cpu", "cpu_avx", "cuda_v11")


@pytest.mark.parametrize("line,want", [
    ('msg="offload to gpu" reallayers=27 layers=33 required="7.8 GiB"', (27, 33)),
    ('msg="offload to cuda" layers.requested=-1 layers.model=65 layers.offload=65 layers.split=""', (65, 65)),
    ('msg=offload library=cuda layers.requested=49 layers.model=49 layers.offload=48', (48, 49)),
    ('msg=offload library=cuda layers.requested=x layers.model=?? layers.offload=', None),
])
def test_estimate_layers_in_both_key_sets(line, want):
    assert scan([line], "j").estimate_layers == want


def test_last_load_and_no_load():
    assert scan([], "j").last_load is None and scan([], "j").estimate_layers is None
    s = scan(['msg="starting llama-server" cmd="/usr/lib/ollama/llama-server --model /m/sha256-6a0746a1ec1aef3e --ctx-size '
              '8192 --parallel 2 --port 1"'], "j")
    assert s.last_load.ctx_size == 8192 and s.last_load.parallel == 2


def test_every_mark_is_lower_case_and_named_on_the_summary():
    assert all(k == k.lower() for k in MARKS)
    s = scan([], "j")
    assert all(getattr(s, key).count == 0 for key in MARKED)


def test_catalogue_ids_are_ollama_and_expects_name_summary_attributes():
    s = scan([], "j")
    for m in MESSAGES:
        assert m.id.startswith("ollama.") and m.engine == "ollama"
        for path, _ in m.expect:
            assert hasattr(s, path.split(".")[0]), (m.id, path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(MARKS)), max_size=20), st.text(max_size=30))
def test_hypothesis_marks_with_garbage(parts, tail):
    s = scan([p.upper() + tail for p in parts] + [tail + p for p in parts], "fragments")
    assert s.lines == 2 * len(parts)


def test_every_mark_has_a_gate():
    from llmdoctor.knowledge.ollama.log import MARK_GATES

    # `is not supported by` counts only on an "amdgpu" line (the `amdgpu [0] gfxN is not supported by` of 0.1.x)
    ungated = [p for p in MARKS if not any(g in p for g in MARK_GATES)]
    assert ungated == ["is not supported by"] and "amdgpu" in MARK_GATES
