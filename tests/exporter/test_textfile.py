"""Textfile mode: atomic writes that node_exporter can never read half of."""
from __future__ import annotations

import os
import threading
import time

import pytest

from llmdoctor.atomic import write_atomic
from tests.exporter.conftest import EVIDENCE, exporter_process
from tests.support import prometheus as prom_support


def test_write_replaces_whole_file_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "llmdoctor.prom"
    write_atomic(target, b"a 1\n")
    write_atomic(target, b"b 2\n")
    assert target.read_bytes() == b"b 2\n"
    assert os.listdir(tmp_path) == ["llmdoctor.prom"]
    assert (target.stat().st_mode & 0o777) == 0o644


def test_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "llmdoctor.prom"
    write_atomic(target, b"old 1\n")

    with pytest.raises(TypeError):
        write_atomic(target, object())  # type: ignore[arg-type]
    assert target.read_bytes() == b"old 1\n"
    assert os.listdir(tmp_path) == ["llmdoctor.prom"]


def test_concurrent_reader_never_sees_a_partial_file(tmp_path):
    target = tmp_path / "llmdoctor.prom"
    # Two complete documents of different sizes; anything else read is a torn file.
    docs = [(b"# big\n" + b"x 1\n" * 20000), b"# small\nx 2\n"]
    write_atomic(target, docs[0])
    stop = threading.Event()
    seen: list[bytes] = []
    bad: list[int] = []

    def reader():
        while not stop.is_set():
            data = target.read_bytes()
            if data not in docs:
                bad.append(len(data))
            seen.append(data[:7])

    t = threading.Thread(target=reader)
    t.start()
    deadline = time.monotonic() + 3.0
    writes = 0
    while writes < 300 and time.monotonic() < deadline:
        write_atomic(target, docs[writes % 2])
        writes += 1
    stop.set()
    t.join(5)
    assert not bad, f"reader saw {len(bad)} partial files"
    assert writes >= 20 and len(seen) >= 20
    assert sorted(os.listdir(tmp_path)) == ["llmdoctor.prom"]


def test_cli_once_writes_textfile_from_evidence(tmp_path):
    out = tmp_path / "llmdoctor.prom"
    with exporter_process("--evidence", str(EVIDENCE), "--textfile", str(out), "--once",
                          "--state-dir", str(tmp_path / "state")) as proc:
        assert proc.wait(60) == 0, proc.stderr.read().decode(errors="replace")
    text = out.read_bytes()
    assert b"llmdoctor_up 1.0" in text and b'llmdoctor_engine_info{engine="vllm",version="0.8.5"} 1.0' in text
    if prom_support.promtool_skip_reason() is None:
        p = prom_support.promtool("check", "metrics", stdin=text)
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()


def test_once_keeps_counters_and_probe_between_runs(tmp_path):
    """Under a timer every run is a new process: counters continue from the state
    directory, log counts of a resumed scan add up, and the probe runs only when due."""
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.app.exporter.service import write_textfile
    from tests.exporter.conftest import full_facts, result

    calls = []
    loads = iter([2, 3, 0])

    def diagnose(target, probe):
        calls.append(probe)
        facts = full_facts()
        facts["ollama_log"] = OllamaLogSummary(load_count=next(loads))  # new loads since the last run
        if not probe:
            facts.pop("probe")
        return result(facts, target=target)

    out, state = tmp_path / "llmdoctor.prom", str(tmp_path / "state")
    seen = []
    for _ in range(3):
        assert write_textfile(["box"], diagnose, str(out), 60, 600, once=True, resumed_logs=["box"], state_root=state) == 0
        seen.append(out.read_text())
    assert calls == [True, False, False]
    assert ['llmdoctor_model_loads_total{engine="ollama"} %s' % v in t for v, t in zip(("2.0", "5.0", "5.0"), seen)] == [True] * 3
    assert all('llmdoctor_probe_ttft_seconds{engine="ollama",percentile="95"} 2.5' in t for t in seen)
    assert all('llmdoctor_preemptions_total{engine="vllm"} 12.0' in t for t in seen)
    assert sorted(os.listdir(tmp_path)) == ["llmdoctor.prom", "state"]


def test_cli_once_on_this_machine(tmp_path):
    """A live run on the local host (whatever engines it has or lacks) still yields a
    valid snapshot: up, and the swap rates sampled from /proc/vmstat."""
    if not os.path.exists("/proc/vmstat"):
        pytest.skip("no /proc/vmstat here")
    out = tmp_path / "llmdoctor.prom"
    with exporter_process("--host", "local", "--textfile", str(out), "--once", "--sample-seconds", "0.2",
                          "--since", "5m", "--state-dir", str(tmp_path / "state")) as proc:
        assert proc.wait(120) == 0, proc.stderr.read().decode(errors="replace")
    text = out.read_text()
    assert "llmdoctor_up 1.0" in text
    assert "llmdoctor_swap_in_bytes_per_second " in text and "llmdoctor_swap_out_bytes_per_second " in text
    assert (tmp_path / "state" / "exporter-state.json").is_file()


def test_damaged_state_means_starting_afresh(tmp_path):
    from llmdoctor.app.exporter.service import write_textfile
    from tests.exporter.conftest import full_facts, result

    state = tmp_path / "state"
    state.mkdir()
    out = tmp_path / "llmdoctor.prom"
    for garbage in (b"{not json", b'{"counters": [{"target": 1}], "probes": {"box": {"url": 3}}, "probe_findings": {"box": [7]}}',
                    b"[]"):
        (state / "exporter-state.json").write_bytes(garbage)
        code = write_textfile(["box"], lambda t, p: result(full_facts(), target=t), str(out), 60, 600,
                              once=True, state_root=str(state))
        assert code == 0 and "llmdoctor_up 1.0" in out.read_text()
