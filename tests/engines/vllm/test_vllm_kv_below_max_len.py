"""max_model_len above the KV cache's size: V1 prints "KV cache size: N tokens" only after its
start-up memory check passed (kv_cache_utils.py), so such a server runs and admits requests it can
never schedule (vllm#39734, lines as quoted there); V0's "# GPU blocks" line is followed by a
refusal to start. A cache at least as large as max_model_len stays silent."""
from __future__ import annotations

import pytest

from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.engines import VLLM, EngineInstance
from llmdoctor.knowledge.vllm.log import scan_vllm_lines
from llmdoctor.model import Cause, Severity
from llmdoctor.plugins import load_checks, run_check

# vllm#39734 (0.19.x dev): the two lines, with and without their prefix, and as a quoted paste
# rejoins them (indented lines read as one wrapped line)
I39734 = ["(APIServer pid=1328494) INFO 04-15 09:33:52 [model.py:1685] Using max model len 262144",
          "(EngineCore pid=1328770) INFO 04-15 09:34:40 [kv_cache_utils.py:1319] GPU KV cache size: 76,640 tokens"]
QUOTED = ["    Using max model len 262144", "    GPU KV cache size: 76,640 tokens"]
GLUED = ["    Using max model len 262144 GPU KV cache size: 76,640 tokens"]


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs}


def fire(tmp_path, specs, lines):
    (tmp_path / "meta.json").write_text('{"engine": "vllm"}')
    (tmp_path / "vllm.log").write_text("\n".join(lines) + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})
    return run_check(specs["vllm-max-seq-len"], store).findings


def test_a_glued_size_line_keeps_the_max_model_len_beside_it():
    s = scan_vllm_lines(GLUED)
    assert s.kv_capacity.kv_tokens == 76640 and s.settings["max_model_len"] == 262144


@pytest.mark.parametrize("lines", [I39734, QUOTED, GLUED], ids=["prefixed", "quoted", "glued"])
def test_v1_cache_below_max_model_len_admits_requests_it_cannot_schedule(tmp_path, specs, lines):
    [f] = fire(tmp_path, specs, lines)
    assert f.cause is Cause.KV_CAPACITY and f.severity is Severity.WARNING
    assert "can never be scheduled" in f.title and "cannot start" not in f.title
    assert "--max-model-len 76640" in f.fix.commands[0]


def test_v1_cache_that_holds_max_model_len_is_silent(tmp_path, specs):
    assert fire(tmp_path, specs, [I39734[0], I39734[1].replace("76,640", "300,000")]) == ()


def test_v0_blocks_below_max_model_len_still_cannot_start(tmp_path, specs):
    lines = ["INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: model='/m', max_seq_len=4096, "
             "tensor_parallel_size=1, seed=0)",
             "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 100, # CPU blocks: 512"]
    [f] = fire(tmp_path, specs, lines)
    assert f.title.startswith("vLLM cannot start") and f.severity is Severity.CRITICAL


# "Maximum concurrency" alone (no batch cap, no load in the evidence): under two full-length requests
# is a warning of its own (a second long one is admitted and preempts), two or more needs the load.
CAPACITY = "Maximum concurrency for 262,144 tokens per request: {}x"  # MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#122, V1


@pytest.mark.parametrize("figure,fires", [("1.36", True), ("1.99", True), ("2.12", False), ("10.79", False)])
def test_capacity_alone_under_two_full_length_requests(tmp_path, specs, figure, fires):
    (tmp_path / "meta.json").write_text('{"engine": "vllm"}')
    (tmp_path / "vllm.log").write_text(CAPACITY.format(figure) + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(VLLM, found_by="evidence"),)})
    found = run_check(specs["vllm-kv-concurrency"], store).findings
    assert bool(found) is fires
    if fires:
        assert found[0].severity is Severity.WARNING and "a second long request" in found[0].title
