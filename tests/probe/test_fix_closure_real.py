"""Fixes are closed under re-diagnosis, on the REAL llama.cpp server: a one-slot server is
found queueing, the merged "What to change" is followed (restart with its -np and -c), and
the probe then finds neither QUEUEING nor CONTEXT_TRUNCATION: following our fix must not
create a finding of its own (the probe once advised -np 4 -c 8192 while a check advised
-c 32768, and each slot then got a quarter of the context)."""
import pytest

from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from llmdoctor.judge.remedy import merge
from llmdoctor.model import Cause
from tests.support.llamaserver import running_llama_server
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(300)]
TRIES = 3  # a burst is retried at most twice when the shared machine's noise blurs it


def findings(result):
    from llmdoctor.app.diagnose import judge_probe as judge
    from llmdoctor.knowledge.probe.result import ProbeRuns

    return judge(ProbeRuns((result,))).targets[0].findings


def test_following_the_merged_change_clears_queueing_without_truncating():
    model = tiny_gguf("medium")
    with running_llama_server(model, n_parallel=1, n_ctx=2048) as url:
        for _ in range(TRIES):
            before = findings(ProbeRunner(detect(url)).light())
            if any(f.cause is Cause.QUEUEING for f in before):
                break
    assert any(f.cause is Cause.QUEUEING for f in before), before
    (change,) = merge(before)
    settings = dict(change.settings)
    slots, context = int(settings["-np"]), int(settings["-c"])
    assert slots > 1 and context // slots >= 2048, change  # each slot keeps the context it had
    with running_llama_server(model, n_parallel=slots, n_ctx=context) as url:
        target = detect(url)
        assert target.slots == slots and target.context >= 2048  # the tiny model caps a slot at its trained context
        for _ in range(TRIES):
            after = findings(ProbeRunner(target).light())
            if not any(f.cause is Cause.QUEUEING for f in after):
                break
    assert not [f for f in after if f.cause in (Cause.QUEUEING, Cause.CONTEXT_TRUNCATION)], after
