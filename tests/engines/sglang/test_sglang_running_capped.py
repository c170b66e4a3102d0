"""sglang-running-capped: the running-request cap in effect below the one asked for. Lines: the
reduction warning as sglang#30160 posted it and as kv_cache_configurator.py:3167 @ v0.5.23
renders it; the start-up summary of sglang#29575 against a command line. Equal caps, a data-parallel
command line (the summary's cap is per worker there) and garbage stay silent."""
from __future__ import annotations

import pytest

from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.engines import SGLANG, EngineInstance
from llmdoctor.knowledge.sglang.log import scan_sglang_lines
from llmdoctor.model import Cause
from llmdoctor.plugins import load_checks, run_check

POSTED = "max_running_requests was reduced from requested 128 to 50"  # sglang#30160
RENDERED = ("[2026-05-02 10:00:00 TP0] max_running_requests was reduced from the requested 128 to 50 (per dp worker) "
            "due to the available KV cache capacity.")
SUMMARY = ("[2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384, "
           "max_running_requests=33, context_len=256000, available_gpu_mem=17.22 GB")  # sglang#29575
LAUNCH = "python -m sglang.launch_server --model-path /m --max-running-requests {} {}"


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs}


def fire(tmp_path, specs, lines, cmdline=None):
    (tmp_path / "meta.json").write_text('{"engine": "sglang"}')
    (tmp_path / "sglang.log").write_text("\n".join(lines) + "\n")
    if cmdline is not None:
        (tmp_path / "cmdline.txt").write_text(cmdline + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(SGLANG, found_by="evidence"),)})
    return run_check(specs["sglang-running-capped"], store).findings


@pytest.mark.parametrize("line", [POSTED, RENDERED, POSTED + " max_num_reqs = 50"], ids=["posted", "rendered", "glued"])
def test_the_reduction_line_gives_both_caps(line):
    s = scan_sglang_lines([line], "x").settings
    assert (s["max_running_requests_requested"], s["max_running_requests"]) == (128, 50)


@pytest.mark.parametrize("lines", [[POSTED, "max_num_reqs = 50"], [RENDERED]], ids=["posted", "rendered"])
def test_a_reduced_cap_is_kv_capacity(tmp_path, specs, lines):
    [f] = fire(tmp_path, specs, lines)
    assert f.cause is Cause.KV_CAPACITY and "at most 50 requests" in f.title and "128" in f.title


def test_the_summary_against_the_command_line(tmp_path, specs):
    [f] = fire(tmp_path, specs, [SUMMARY], LAUNCH.format(64, ""))
    assert "at most 33" in f.title and "not the 64" in f.title
    assert any("2,086,558 tokens / context 256,000" in e.text for e in f.evidence)


@pytest.mark.parametrize("lines,cmdline", [
    ([SUMMARY], LAUNCH.format(33, "")),  # the cap asked for is the one in effect
    ([SUMMARY], LAUNCH.format(64, "--dp 2 --enable-dp-attention")),  # per worker: 32 asked, 33 in effect
    ([SUMMARY], None),  # nothing asked for
    (["max_running_requests was reduced from requested", "reduced from the requested x to y"], None),
], ids=["equal", "data-parallel", "not-asked", "garbage"])
def test_silent_without_a_cap_cut(tmp_path, specs, lines, cmdline):
    assert fire(tmp_path, specs, lines, cmdline) == ()


# sglang-input-capped: the scheduler's refusal limit, min(context_len - 1, pool - 1) - 5, under the
# context length is the pool's (sglang#4048: 59862 allowed with --context-length 163840).
REFUSED = ("[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). "
           "Use a shorter input or enable --allow-auto-truncate.")
CONTEXT_LAUNCH = "python -m sglang.launch_server --model-path /m --context-length {}"


def capped(tmp_path, specs, lines, cmdline):
    (tmp_path / "meta.json").write_text('{"engine": "sglang"}')
    (tmp_path / "sglang.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "cmdline.txt").write_text(cmdline + "\n")
    store = FactStore(Context(EvidenceHost(tmp_path)), preset={"engines": (EngineInstance(SGLANG, found_by="evidence"),)})
    return run_check(specs["sglang-input-capped"], store).findings


def test_a_refusal_limit_under_the_context_is_the_pool(tmp_path, specs):
    [f] = capped(tmp_path, specs, [REFUSED], CONTEXT_LAUNCH.format(163840))
    assert f.cause is Cause.KV_CAPACITY and "59,868" in f.title


@pytest.mark.parametrize("lines,context", [
    ([REFUSED], 59868),  # the limit is the context's: context_len - 1 - 5
    (['{"object":"error","message":"The input (61709 tokens) is longer than the model\\\'s context length (40960 '
      'tokens).","type":"BadRequestError","param":null,"code":400}'], 81920),  # the model's context, not the pool
], ids=["context-bound", "tokenizer-wording"])
def test_a_context_bound_limit_is_silent(tmp_path, specs, lines, context):
    assert capped(tmp_path, specs, lines, CONTEXT_LAUNCH.format(context)) == ()
