"""The facts that sample a live host over the run's window (cpu_load, memory, vllm_metrics,
engine_progress) are collected together, in one window (app.diagnose.sample_together,
FactStore.collect_together): asked in turn, each took a window of its own."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from llmdoctor import facts
from llmdoctor.app.diagnose import sample_together
from llmdoctor.facts import Context, FactStore, FactUnavailable, Provider
from llmdoctor.hosts.base import HostError
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.hosts.local import LocalHost


def _add(monkeypatch, name, func):
    params, optional = facts.parameters(func)
    monkeypatch.setitem(facts.PROVIDERS, name, Provider(name, func, params, optional, __name__))


def test_collectors_run_at_once_and_end_as_get_would(monkeypatch):
    """Each collector in a thread of its own (a barrier only the three together pass), after the
    facts they need; every way a collector ends is kept as get() keeps it."""
    meet = threading.Barrier(3, timeout=10)
    asked = []

    def base():
        asked.append("base")
        return 7

    def ok(t_base):
        meet.wait()
        return t_base + 1

    def host_fails(t_base):
        meet.wait()
        raise HostError("ssh: connection reset")

    def bug(t_base):
        meet.wait()
        return {}["x"]

    def unavailable(t_missing):
        return 1

    def missing():
        raise FactUnavailable("not here", quiet=True)

    for name, func in (("t_base", base), ("t_ok", ok), ("t_host", host_fails), ("t_bug", bug),
                       ("t_needs_missing", unavailable), ("t_missing", missing)):
        _add(monkeypatch, name, func)
    store = FactStore(Context(host=None))
    store.collect_together(["t_ok", "t_host", "t_bug", "t_needs_missing", "no_such_fact"])
    assert asked == ["base"] and store.values == {"t_base": 7, "t_ok": 8}
    assert store.missing["t_host"].reason == "ssh: connection reset"
    assert isinstance(store.missing["t_host"].__cause__, HostError)
    assert store.missing["t_bug"].reason == "collector failed: KeyError: 'x'"
    assert store.missing["t_needs_missing"] is store.missing["t_missing"]
    assert {"t_ok", "t_host", "t_bug"} <= set(store.timings)
    with pytest.raises(FactUnavailable):
        store.get("t_host")  # (what was kept is what get answers)
    store.collect_together(["t_ok"])  # (collected once)
    assert asked == ["base"]


def _windows(monkeypatch, names):
    """Wrap the providers of `names` to note when each ran: {name: (start, end)}."""
    seen = {}
    for name in names:
        prov = facts._provider_of(name)

        def timed(*args, _f=prov.func, _n=name, **kwargs):
            t = time.monotonic()
            try:
                return _f(*args, **kwargs)
            finally:
                seen[_n] = (t, time.monotonic())

        monkeypatch.setitem(facts.PROVIDERS, name,
                            Provider(name, timed, prov.params, prov.optional, prov.module))
    return seen


def test_a_live_host_is_sampled_in_one_window(monkeypatch):
    """/proc/stat and /proc/vmstat of this machine, over windows that overlap."""
    seen = _windows(monkeypatch, ("cpu_load", "memory"))
    store = FactStore(Context(host=LocalHost("here"), sample_seconds=1.0))
    store.optional("engines")
    sample_together(store, [SimpleNamespace(params=("cpu_load",))])
    assert "cpu_load" in store.values and "memory" in store.values, store.missing
    (a0, a1), (b0, b1) = seen["cpu_load"], seen["memory"]
    assert max(a0, b0) < min(a1, b1)  # sampled at once
    assert store.values["memory"].intervals  # (vmstat read across the window)


def test_only_what_the_checks_ask_for(monkeypatch):
    """A run whose checks ask for no CPU sample takes none; memory is always read (ALWAYS)."""
    seen = _windows(monkeypatch, ("cpu_load", "memory"))
    store = FactStore(Context(host=LocalHost("here"), sample_seconds=1.0))
    store.optional("engines")
    sample_together(store, [SimpleNamespace(params=("gpu",))])
    assert set(seen) == {"memory"} and "cpu_load" not in store.values


@pytest.mark.parametrize("seconds", [0.0, 1.0])
def test_nothing_together_on_a_recording_or_without_a_window(monkeypatch, tmp_path, seconds):
    """A recording cannot be sampled (its facts answer from files, when asked), nor a run asked
    for no window (--sample-seconds 0)."""
    seen = _windows(monkeypatch, ("cpu_load", "memory"))
    host = EvidenceHost(tmp_path) if seconds else LocalHost("here")
    store = FactStore(Context(host=host, sample_seconds=seconds))
    sample_together(store, [SimpleNamespace(params=("cpu_load",))])
    assert seen == {} and not store.values


@pytest.mark.parametrize("answer", ["ok", "fails"])
def test_collect_runs_vmstat_beside_the_window(monkeypatch, tmp_path, answer):
    """`collect`'s `vmstat 1 3` (two seconds) runs while the engine is sampled, not after: the
    CPU sample and the command meet at a barrier that neither passes alone. Its failure is a
    note, as before."""
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.hosts.base import CommandNotFound, CommandResult
    from llmdoctor.hosts.live import BaseHost
    from llmdoctor.knowledge.engines import LLAMACPP, EngineInstance

    meet = threading.Barrier(2, timeout=10)

    def cpu_load():
        meet.wait()
        raise FactUnavailable("sampled", quiet=True)

    def engine_progress():
        raise FactUnavailable("none", quiet=True)

    _add(monkeypatch, "cpu_load", cpu_load)
    _add(monkeypatch, "engine_progress", engine_progress)

    class Box(BaseHost):
        kind, name = "ssh", "box"

        def run(self, argv, timeout=10):
            if argv[0] == "vmstat":
                meet.wait()
                return CommandResult(tuple(argv), 0 if answer == "ok" else 1, "procs ---memory---\n",
                                     "" if answer == "ok" else "vmstat: no /proc")
            raise CommandNotFound(f"{argv[0]}: command not found")

        def read(self, path, limit=4096):
            raise FileNotFoundError(path)

        def exists(self, path):
            return False

        def listdir(self, path):
            raise FileNotFoundError(path)

        def http(self, method, port, path, body=None, timeout=10):
            raise HostError("connection refused")

    written, notes = collect_evidence(Box(), tmp_path / "b", engines=(EngineInstance(LLAMACPP, port=8080),))
    assert not meet.broken
    if answer == "ok":
        assert "vmstat.txt" in written and not [n for n in notes if "vmstat" in n]
    else:
        assert "vmstat.txt" not in written and "vmstat: exit 1: vmstat: no /proc" in notes
