"""Plain log files: time window, bisection, resume by offset+inode, rotation, truncation,
bounded memory; and time stamps in every format the engines write."""
from __future__ import annotations

import json
import os
import time
import tracemalloc
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.engines import LLAMACPP, OLLAMA, VLLM
from llmdoctor.hosts.logs import (
    BISECT_ABOVE,
    MAX_LINE,
    FileSource,
    ResumeState,
    message_lines,
    window_start,
)
from llmdoctor.knowledge.logtime import line_time
from llmdoctor.knowledge.recognize import engine_from_name

NOW = datetime(2026, 8, 2, 12, 0, 0, tzinfo=timezone.utc).timestamp()


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def slog(t: float, msg: str) -> str:
    return f'time={iso(t)} level=INFO source=server.go:1 msg="{msg}"'


@pytest.mark.parametrize("line, expected", [
    ('time=2026-08-01T07:02:33.347Z level=INFO source=llama_server.go:1274 msg="x"', "2026-08-01T07:02:33+00:00"),
    ("time=2024-11-10T21:32:56.205+08:00 level=WARN source=sched.go:137", "2024-11-10T13:32:56+00:00"),
    ("2026-08-01T07:02:33+0000 gpubox ollama[1617]: hello", "2026-08-01T07:02:33+00:00"),
    ('[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     "/api/generate"', None),
])
def test_line_time_formats(line, expected):
    t = line_time(line, NOW)
    assert t is not None
    if expected:
        assert datetime.fromtimestamp(t, timezone.utc).isoformat() == expected


def test_year_less_stamps_are_the_latest_past_moment():
    # journald short prefix and vLLM's `INFO 08-01 07:02:33`: no year, local time
    for line in ("Aug 01 07:02:33 j-360 ollama[1617]: msg", "INFO 08-01 07:02:33 [loggers.py:123] Engine 000: Avg"):
        t = line_time(line, NOW)
        assert t is not None and NOW - 3 * 86400 < t <= NOW
    later = line_time("Dec 31 23:00:00 host x: y", NOW)  # in the future this year -> last year
    assert later is not None and later < NOW


def test_line_time_none_and_garbage():
    assert line_time("load_tensors: offloaded 33/33 layers to GPU") is None
    assert line_time("time=2026-13-45T99:99:99Z nonsense") is None


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_line_time_never_raises(text):
    line_time(text, NOW)


def test_engine_hints():
    assert engine_from_name("ollama.service") == OLLAMA
    assert engine_from_name("/var/log/vllm.log") == VLLM
    assert engine_from_name("llama-server.service") == LLAMACPP
    assert engine_from_name("server.log") is None


def test_message_lines_shapes():
    assert message_lines([104, 105, 10, 255]) == ["hi", "\ufffd"]
    assert message_lines(None) == [] and message_lines(["a", "b\nc"]) == ["a", "b", "c"]
    assert message_lines(b"x\ny") == ["x", "y"]


def write_log(path, start: float, count: int, step: float = 60.0, extra: str = "") -> None:
    with open(path, "a") as f:
        for i in range(count):
            f.write(slog(start + i * step, f"line {i}{extra}") + "\n")
            if i % 10 == 0:
                f.write("load_tensors: offloaded 33/33 layers to GPU\n")  # unstamped runner output


def test_window_drops_old_lines_and_keeps_unstamped_followers(tmp_path):
    log = tmp_path / "server.log"
    write_log(log, NOW - 48 * 3600, 48 * 60)  # one line a minute for two days
    lines = list(FileSource(log, since_seconds=3600, now=NOW).lines())
    stamped = [l for l in lines if l.startswith("time=")]
    assert len(stamped) == 60
    assert all(line_time(l, NOW) >= NOW - 3600 for l in stamped)
    assert "load_tensors: offloaded 33/33 layers to GPU" in lines


def test_file_without_stamps_is_read_whole(tmp_path):
    log = tmp_path / "llama.log"
    log.write_text("srv  params_from_: Chat format\nslot launch_slot_: id  0 | task 0 | processing task\n")
    src = FileSource(log, since_seconds=60, now=NOW)
    assert src.engine == LLAMACPP and len(list(src.lines())) == 2


def test_bisection_finds_the_window_in_a_big_file(tmp_path):
    log = tmp_path / "vllm.log"
    write_log(log, NOW - 10 * 86400, 120_000, step=7.2, extra=" " + "x" * 40)
    assert log.stat().st_size > BISECT_ABOVE
    with open(log, "rb") as f:
        offset = window_start(f, 0, log.stat().st_size, NOW - 3600, NOW)
        f.seek(offset)
        head = f.read(200).decode()
    assert offset > log.stat().st_size * 0.9 and head.startswith("time=") or head.startswith("load_tensors")
    fast = list(FileSource(log, since_seconds=3600, now=NOW).lines())
    assert all(line_time(l, NOW) is None or line_time(l, NOW) >= NOW - 3600 for l in fast)
    assert len([l for l in fast if l.startswith("time=")]) == 500


@pytest.mark.parametrize("offset", ["abc", None, [1], -5, 1.5, True])
def test_a_damaged_saved_position_reads_the_file_again(tmp_path, offset):
    log, state_file = tmp_path / "vllm.log", tmp_path / "state.json"
    write_log(log, NOW - 600, 5)
    key = FileSource(log).state_key
    state_file.write_text(json.dumps({key: {"inode": log.stat().st_ino, "offset": offset}}))
    assert len(list(FileSource(log, since_seconds=None, state=ResumeState(state_file)).lines())) == 6


def test_resume_reads_only_appended_bytes(tmp_path):
    log, state_file = tmp_path / "vllm.log", tmp_path / "state.json"
    write_log(log, NOW - 600, 5)
    first = FileSource(log, since_seconds=None, state=ResumeState(state_file))
    assert len(list(first.lines())) == 6
    size = log.stat().st_size
    assert ResumeState(state_file).get(first.state_key)["offset"] == size
    assert list(FileSource(log, since_seconds=None, state=ResumeState(state_file)).lines()) == []
    write_log(log, NOW - 60, 2)
    again = FileSource(log, since_seconds=None, state=ResumeState(state_file))
    assert [l for l in again.lines()] == [slog(NOW - 60, "line 0"), "load_tensors: offloaded 33/33 layers to GPU", slog(NOW, "line 1")]
    # an unterminated last line waits for the next run when resuming
    with open(log, "a") as f:
        f.write("partial")
    assert list(FileSource(log, since_seconds=None, state=ResumeState(state_file)).lines()) == []
    with open(log, "a") as f:
        f.write(" line\n")
    assert list(FileSource(log, since_seconds=None, state=ResumeState(state_file)).lines()) == ["partial line"]


def test_rotation_and_truncation_start_over(tmp_path):
    log, state_file = tmp_path / "vllm.log", tmp_path / "state.json"
    write_log(log, NOW - 600, 5)
    list(FileSource(log, since_seconds=None, state=ResumeState(state_file)).lines())
    os.rename(log, tmp_path / "vllm.log.1")  # logrotate: a new file under the old name
    write_log(log, NOW - 60, 2)
    rotated = FileSource(log, since_seconds=None, state=ResumeState(state_file))
    assert len(list(rotated.lines())) == 3 and "rotated" in rotated.notes[0]
    log.write_text("short\n")  # truncated in place (same inode, smaller)
    truncated = FileSource(log, since_seconds=None, state=ResumeState(state_file))
    assert list(truncated.lines()) == ["short"] and "truncated" in truncated.notes[0]


def test_unterminated_last_line_of_a_pasted_file_is_read(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(b"first\nlast without newline")
    assert list(FileSource(log, since_seconds=None).lines()) == ["first", "last without newline"]


def test_runaway_line_and_bounded_memory(tmp_path):
    log = tmp_path / "vllm.log"
    with open(log, "wb") as f:
        f.write(b"A" * (3 * MAX_LINE) + b"\n")  # one line with no end in sight
        line = (slog(NOW, "Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 4 reqs") + "\n").encode()
        f.write(line * (24 * 1024 * 1024 // len(line)))
    tracemalloc.start()
    count = longest = 0
    for text in FileSource(log, since_seconds=None).lines():
        count += 1
        longest = max(longest, len(text))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert longest == MAX_LINE  # the runaway line's head; its tail is dropped, not split into lines
    assert count == 1 + 24 * 1024 * 1024 // len(line)
    assert peak < 16 * 1024 * 1024, peak  # a 27 MiB file read in ~1 MiB chunks


def test_missing_file_sets_error(tmp_path):
    src = FileSource(tmp_path / "nope.log")
    assert list(src.lines()) == [] and "No such file" in src.error


def test_state_file_shared_by_parallel_writers_keeps_every_key(tmp_path):
    path = tmp_path / "state.json"
    a, b = ResumeState(path), ResumeState(path)  # loaded before either writes
    a.put("host-a|file:/x", {"offset": 1})
    b.put("host-b|file:/x", {"offset": 2})
    fresh = ResumeState(path)
    assert fresh.get("host-a|file:/x") == {"offset": 1} and fresh.get("host-b|file:/x") == {"offset": 2}
    path.write_text("not json")
    assert ResumeState(path).get("host-a|file:/x") is None  # a damaged file means start over


def test_remote_file_source_resumes_with_stat_and_dd(tmp_path):
    """RemoteFileSource only needs `stat` and `dd` on the far side; run them here for real."""
    from llmdoctor.hosts.local import LocalHost
    from llmdoctor.hosts.logs import RemoteFileSource

    log, state = tmp_path / "vllm.log", ResumeState(tmp_path / "state.json")
    write_log(log, NOW - 600, 3)
    first = RemoteFileSource(LocalHost("box"), str(log), since_seconds=None, state=state)
    assert first.engine == VLLM and len(list(first.lines())) == 4 and first.error is None
    assert list(RemoteFileSource(LocalHost("box"), str(log), since_seconds=None, state=state).lines()) == []
    write_log(log, NOW, 1)
    assert list(RemoteFileSource(LocalHost("box"), str(log), since_seconds=None, state=state).lines()) == [
        slog(NOW, "line 0"), "load_tensors: offloaded 33/33 layers to GPU"]
    missing = RemoteFileSource(LocalHost("box"), str(tmp_path / "nope.log"))
    assert list(missing.lines()) == [] and "nope.log" in missing.error


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=4096), st.sampled_from([None, 3600.0]))
def test_binary_garbage_file_never_tracebacks(tmp_path_factory, data, window):
    log = tmp_path_factory.mktemp("g") / "server.log"
    log.write_bytes(data)
    lines = list(FileSource(log, since_seconds=window, now=NOW).lines())
    assert all(isinstance(l, str) for l in lines)
    if window is None:
        body = data[:-1] if data.endswith(b"\n") else data
        assert "\n".join(lines) == body.decode("utf-8", "replace")


def test_unwritable_state_dir_does_not_end_the_scan(tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("line one\nline two\n")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the state directory should be")
    state = ResumeState(blocker / "state" / "log-state.json")
    assert list(FileSource(log, since_seconds=None, state=state).lines()) == ["line one", "line two"]
    assert state.error and "cannot save log positions" in state.error
