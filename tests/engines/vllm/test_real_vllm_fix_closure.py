"""Following the merged change converges on a real vLLM 0.32 (CPU): a server started with
--max-num-seqs 1 under four steady clients queues (QUEUEING, with a change to the `vllm serve`
command line); the server started again exactly as that change says, under the same load, is
diagnosed with no change left to propose and no warning the first diagnosis did not have.

Issue 27's fix-closure on a real server (tests/probe/test_fix_converges_real.py is llama-server's).
Two defects it found are fixed: vllm-queueing sizes --max-num-seqs to the demand seen (running +
waiting, within the KV cache at the request sizes seen) instead of doubling it, and keeps that
raise when the batch cap binds whatever the queue's shape; vllm-kv-concurrency no longer warns
about a configured batch that full-length requests would overfill when the requests the server
carries fit. (The queue once read as bursts because this VM's scheduler starved the load's clients:
tests/support/cpu_share.py.)
Each diagnosis names the server with --url and its log with --log, and is tried again (at most
three times) when it could read nothing in time under the load, as the other real vLLM tests do.
"""
from __future__ import annotations

import json

import pytest

from tests.support.schema import report_doc
from tests.support.vllm_cpu import TIMINGS, BoundedLoad, VllmServer, diagnose, timed, wait_for_metric

pytestmark = [pytest.mark.vllm, pytest.mark.real, pytest.mark.slow, pytest.mark.timeout(2400)]

PLACE = "vllm serve command line"
LOAD = dict(concurrent=4, max_tokens=100, prompt_words=20, rounds=200, seconds=420)


class Changed(VllmServer):
    """The test server's command line with the merged change's flags put in (a flag already
    there takes the new value; a flag with no value is a switch)."""

    def __init__(self, *args, flags: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.flags = flags

    def argv(self) -> list[str]:
        argv = super().argv()
        for flag, value in self.flags.items():
            switch = value in (None, True, "", "true")
            if flag in argv:
                i = argv.index(flag)
                if not switch:
                    argv[i + 1] = str(value)
            else:
                argv += [flag] if switch else [flag, str(value)]
        return argv


def _target(server, queued: bool) -> dict:
    """The vLLM target of `diagnose --url --log -f json` under the running load; when `queued`, the
    run waits until the server holds a queue (a scrape can land between requests)."""
    where = ("--url", f"http://127.0.0.1:{server.port}", "--log", str(server.log_path))
    target: dict = {}
    for _ in range(3):
        if queued:
            assert wait_for_metric(server.port, "vllm:num_requests_waiting", 1, timeout=60) is not None
        result = diagnose("--format", "json", "--sample-seconds", "2", *where)
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        [target] = [t for t in report_doc(result.stdout)["targets"] if t["engine"] == "vllm"]
        if result.returncode != 3 and (not queued or any(f["cause"] == "QUEUEING" for f in target["findings"])):
            break
        TIMINGS.setdefault("fix_closure_retries", []).append(
            (target.get("could_not_diagnose"), sorted(f["check"] for f in target["findings"])))
    return target


def _change(target) -> dict:
    return next((c["settings"] for c in target["what_to_change"] if c["place"] == PLACE), {})


def _warned(target) -> set[str]:
    return {f["check"] for f in target["findings"] if f["severity"] in ("warning", "critical")}


def test_the_merged_change_converges_on_a_real_vllm(vllm_setup, tmp_path_factory):
    py, model = vllm_setup
    first = VllmServer(py, model, tmp_path_factory.mktemp("vllm-fix-before"), 1)
    with timed("fix_closure_before_s"):
        first.start()
        try:
            with BoundedLoad(first, **LOAD):
                before = _target(first, queued=True)
        finally:
            first.stop()
    assert any(f["cause"] == "QUEUEING" for f in before["findings"]), json.dumps(before["findings"])[:3000]
    change = _change(before)
    assert int(change.get("--max-num-seqs", 0)) > 1, before["what_to_change"]
    TIMINGS["fix_closure_change"] = change

    second = Changed(py, model, tmp_path_factory.mktemp("vllm-fix-after"), 1, flags=change)
    with timed("fix_closure_after_s"):
        second.start()
        try:
            with BoundedLoad(second, **LOAD) as load:
                after = _target(second, queued=False)
            assert load.statuses and set(load.statuses) == {200}, sorted(set(load.statuses))
        finally:
            second.stop()
    assert _change(after) == {}, after["what_to_change"]
    assert not any(f["cause"] == "QUEUEING" for f in after["findings"]), json.dumps(after["findings"])[:3000]
    assert not _warned(after) - _warned(before), json.dumps(after["findings"])[:3000]
