"""Two real llama-servers on one host (llama.cpp's server in the xllamacpp wheel, tiny model), one
with a single slot under load and one with four idle slots: each is diagnosed on its own (its
own /props, /slots and /metrics) and the finding names the instance it is about."""
from __future__ import annotations

import json
import threading
import time

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target, instance_label
from llmdoctor.facts.llamacpp_endpoints import read_state
from llmdoctor.hosts.base import CommandNotFound, CommandResult
from llmdoctor.hosts.local import LocalHost
from llmdoctor.model import report_to_dict
from llmdoctor.plugins import load_checks
from tests.support.llamaserver import generate, running_llama_server, skip_reason
from tests.support.schema import report_doc

pytestmark = [pytest.mark.real, pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]


class TwoServersHost(LocalHost):
    """This machine, with `ps` showing the two test servers as the `llama-server` processes they
    are (the wheel runs the server inside a Python child, so its own argv names python)."""

    def __init__(self, servers: dict[int, tuple[int, int]]) -> None:
        super().__init__("box")
        self.ps = "".join(f" {pid} /usr/local/bin/llama-server -m /models/tiny.gguf --port {port} -np {np}\n"
                          for pid, (port, np) in servers.items())

    def run(self, argv, timeout=10):
        if argv[:1] == ["ps"]:
            return CommandResult(tuple(argv), 0, self.ps)
        if argv[:1] == ["systemctl"]:
            raise CommandNotFound("systemctl: command not found")
        return super().run(argv, timeout)




def test_two_llama_servers_two_diagnoses():
    from tests.support.tinymodel import tiny_gguf

    model = tiny_gguf("medium")
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    with running_llama_server(model, n_parallel=1, n_ctx=2048, metrics=True) as one, \
            running_llama_server(model, n_parallel=4, n_ctx=4096, metrics=True) as four:
        host = TwoServersHost({one.pid: (one.port, 1), four.pid: (four.port, 4)})
        threads = [threading.Thread(target=generate, args=(one, 200, i), daemon=True) for i in range(2)]
        for t in threads:
            t.start()
            time.sleep(0.05)
        try:
            deadline = time.monotonic() + 10  # bounded: the deferral shows within a second here
            while (read_state(LocalHost(), one.port).metrics.requests_deferred or 0) < 1 and time.monotonic() < deadline:
                time.sleep(0.1)
            result = diagnose_target(host, DiagnoseOptions(sample_seconds=0.5, since_seconds=600), specs)
            # --url: the one instance at that port, diagnosed alone
            alone = diagnose_target(host, DiagnoseOptions(sample_seconds=0.5, since_seconds=600,
                                                          options={"instance_port": four.port}), specs)
        finally:
            for t in threads:
                t.join(0.1)
    engines = result.facts["engines"]
    assert [(e.pid, e.port) for e in engines] == [(one.pid, one.port), (four.pid, four.port)]
    label_one, label_four = (instance_label(e) for e in engines)
    assert label_one == f"llamacpp pid {one.pid} :{one.port}"
    # each instance read its own API
    assert result.facts[f"llamacpp_state ({label_one})"].props.total_slots == 1
    assert result.facts[f"llamacpp_state ({label_four})"].props.total_slots == 4
    report = result.report
    queueing = [f for f in report.findings if f.cause.value == "QUEUEING"]
    assert queueing and {f.instance for f in queueing} == {label_one}
    # four slots out of a 4096 context leave 1024 tokens each: that finding is the other server's
    slot_context = [f for f in report.findings if f.check == "llamacpp-slot-context"]
    assert slot_context and {f.instance for f in slot_context} == {label_four}
    assert "4 slots only 1,024 tokens" in slot_context[0].title
    assert any(e.startswith(f"{label_one}: llama-server") for e in report.examined)
    assert any(e.startswith(f"{label_four}: llama-server") for e in report.examined)
    from llmdoctor.model import Report

    doc = report_doc(json.dumps(report_to_dict(Report("test", (report,)))))
    assert {f.get("instance") for f in doc["targets"][0]["findings"] if f["cause"] == "QUEUEING"} == {label_one}
    assert [(e.pid, e.port) for e in alone.facts["engines"]] == [(four.pid, four.port)]
    assert {f.check for f in alone.report.findings} >= {"llamacpp-slot-context"}
    assert not any(f.cause.value == "QUEUEING" for f in alone.report.findings)
    assert all(not f.instance for f in alone.report.findings)  # one instance: nothing to tell apart

