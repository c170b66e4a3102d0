"""The steps of a long run (llmdoctor/steps.py): said only to a listener, one line each."""
from __future__ import annotations

from llmdoctor import steps
from llmdoctor.hosts.base import HostError


class Named:
    name = "gpu1"


def listen():
    heard: list[str] = []
    previous = steps.set_sink(heard.append)
    return heard, previous


def test_nothing_is_said_without_a_listener_and_short_windows_stay_quiet():
    previous = steps.set_sink(None)
    try:
        steps.say("nobody hears this")  # no error, no output
        heard, _ = listen()
        steps.waiting(Named(), "sampling vLLM /metrics on port 8000", 0.5)
        steps.waiting(Named(), "sampling vLLM /metrics on port 8000", 2.0)
        assert heard == ["gpu1: sampling vLLM /metrics on port 8000 for 2 s"]
    finally:
        steps.set_sink(previous)


def test_a_fleet_says_each_host_as_it_ends():
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose

    def down(name):
        def connect():
            raise HostError(f"{name}: connection refused")
        return connect

    heard, previous = listen()
    try:
        report, _ = diagnose([down("a"), down("b"), down("c")], DiagnoseOptions(), forks=2, names=["a", "b", "c"])
    finally:
        steps.set_sink(previous)
    assert len(report.targets) == 3
    assert sorted(h.split(" ")[0] for h in heard) == ["a", "b", "c"]
    assert sum("of 3 hosts" in h for h in heard) == 3 and any(h.endswith("; 1 left)") for h in heard), heard
    assert any("3 of 3 hosts" in h and "left" not in h for h in heard), heard
