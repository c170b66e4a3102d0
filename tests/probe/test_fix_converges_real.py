"""A merged change for llama-server is what the server will do when started so, and following it
converges: on a real server (xllamacpp, tiny model) started `-np 1 -c 2048`, the change keeps each
slot's context within what the model was trained for (n_ctx_train, read from the server's own
log), and the server restarted exactly as the change says is diagnosed again with no change
left to propose and no new warning."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.support.llamaserver import running_llama_server
from tests.support.tinymodel import tiny_gguf

pytestmark = [pytest.mark.real, pytest.mark.timeout(300)]


def diagnose(server) -> dict:
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--url", server, "--log", str(server.log_path),
                        "--sample-seconds", "0", "-f", "json"], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    [target] = json.loads(p.stdout)["targets"]
    return target


def change_of(target) -> dict:
    return next((c["settings"] for c in target["what_to_change"] if c["place"] == "llama-server command line"), {})


def test_the_merged_change_respects_the_trained_context_and_converges():
    model = tiny_gguf()
    with running_llama_server(model, n_parallel=1, n_ctx=2048) as server:
        before = diagnose(server)
        train = 4096  # tests/support/tinymodel.py writes this context length into the model
    change = change_of(before)
    assert change.get("-np"), before["what_to_change"]
    slots, ctx = int(change["-np"]), int(change["-c"])
    assert ctx // slots <= train, (change, train)
    extra = {"kv_unified": True} if "--kv-unified" in change else {}
    with running_llama_server(model, n_parallel=slots, n_ctx=ctx, extra=extra) as server:
        after = diagnose(server)
    assert change_of(after) == {}, after["what_to_change"]
    warned = {f["check"] for f in after["findings"] if f["severity"] in ("warning", "critical")}
    assert not warned - {f["check"] for f in before["findings"]}, after["findings"]
