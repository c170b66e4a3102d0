"""The journal reader on a REAL journal file made with systemd-journal-remote: every backend
(python-systemd's Reader, streamed journalctl, journalctl through Host.run) reads the same
lines, honours the time window, and resumes after its cursor."""
from __future__ import annotations

from llmdoctor.hosts.live import BaseHost
import time

import pytest
from hypothesis import example, given, strategies as st

from llmdoctor.knowledge.engines import OLLAMA
from llmdoctor.hosts.base import CommandResult, HostUnreachable
from llmdoctor.hosts.local import LocalHost
from llmdoctor.hosts.logs import NOT_PERMITTED, JournalSource, ResumeState, format_entry, systemd_reader_available
from llmdoctor.parsing import strip_journal_prefix

from . import journalfile

pytestmark = pytest.mark.real

BACKENDS = ["journalctl", "host"] + (["reader"] if systemd_reader_available() else [])
UNIT = "ollama.service"
FIRST = 'time=2026-08-01T07:02:33.347Z level=INFO source=routes.go:1274 msg="server config" env="map[OLLAMA_NUM_PARALLEL:1]"'


@pytest.fixture()
def journal_dir(tmp_path):
    reason = journalfile.skip_reason()
    if reason:
        pytest.skip(reason)
    now = time.time()
    return journalfile.append_entries(tmp_path / "journal", [
        (UNIT, "an entry from two days ago", now - 2 * 86400),
        (UNIT, FIRST, now - 60),
        ("other.service", "not ours", now - 50),
        (UNIT, b"CUDA error: out of memory\n  current device: 0 \xff\xfe", now - 40),
        (UNIT, "[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     \"/api/generate\"", now - 30),
    ])


def messages(source):
    return [strip_journal_prefix(line) for line in source.lines()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_reads_window_and_multiline_binary_message(journal_dir, backend):
    src = JournalSource(LocalHost(), "ollama", directory=str(journal_dir), backend=backend)
    assert src.name == "journal:ollama.service" and src.engine == OLLAMA
    assert src.probe() is None
    got = messages(src)
    assert got == [
        FIRST,
        "CUDA error: out of memory",
        "  current device: 0 \ufffd\ufffd",
        got[3],
    ], got
    assert got[3].startswith("[GIN] 2025/03/06 - 11:42:21 | 503 |")
    assert src.error is None
    raw = next(iter(src.lines()))
    assert raw.endswith(FIRST) and " gpubox ollama[1617]: " in raw  # journalctl short-iso look


def test_all_backends_agree(journal_dir):
    seen = {b: list(JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=b).lines()) for b in BACKENDS}
    first = seen[BACKENDS[0]]
    assert all(lines == first for lines in seen.values()), seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_resume_reads_only_new_entries(journal_dir, tmp_path, backend):
    state = ResumeState(tmp_path / "state" / "log-state.json")
    first = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=backend, state=state)
    assert len(list(first.lines())) == 4
    again = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=backend,
                          state=ResumeState(tmp_path / "state" / "log-state.json"))
    assert list(again.lines()) == []  # nothing new
    journalfile.append_entries(journal_dir, [(UNIT, "llama runner started in 6.43 seconds", time.time() - 5)], 5_000_000)
    third = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=backend,
                          state=ResumeState(tmp_path / "state" / "log-state.json"))
    assert messages(third) == ["llama runner started in 6.43 seconds"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_damaged_saved_cursor_reads_the_window(journal_dir, tmp_path, backend):
    state = ResumeState(tmp_path / "log-state.json")
    key = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=backend).state_key
    state.put(key, {"cursor": 12345})
    src = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend=backend, state=state)
    assert len(list(src.lines())) == 4 and src.error is None


def test_two_scanners_in_one_run_see_the_same_lines(journal_dir, tmp_path):
    src = JournalSource(LocalHost(), UNIT, directory=str(journal_dir), backend="journalctl",
                        state=ResumeState(tmp_path / "s.json"))
    assert list(src.lines()) == list(src.lines()) and len(list(src.lines())) == 4


class FakeHost(BaseHost):
    """Only for what this machine cannot show: a journalctl refused for lack of permission.
    The stderr text is journalctl's own hint (systemd src/journal/journalctl.c)."""

    kind, name = "ssh", "remote"

    def run(self, argv, timeout=10):
        return CommandResult(tuple(argv), 0, "", "Hint: You are currently not seeing messages from other users and the system.\n"
                             "      Users in groups 'adm', 'systemd-journal' can see all messages.\n")


def test_permission_problem_is_a_clean_reason():
    src = JournalSource(FakeHost(), UNIT)
    assert src.backend == "host" and src.probe() == NOT_PERMITTED
    assert list(src.lines()) == [] and src.error == NOT_PERMITTED


@given(st.one_of(st.none(), st.integers(), st.text(max_size=40), st.floats(allow_nan=True)))
@example("9" * 30)
@example(10**400)
@example("-99999999999999999")
def test_any_entry_time_gives_lines_not_a_traceback(stamp):
    """A journal entry with a time no calendar holds (garbage from a remote journalctl
    or a damaged file) still reads as a line, dated at the epoch."""
    lines = format_entry({"__REALTIME_TIMESTAMP": stamp, "MESSAGE": "msg=x"}, "ollama")
    assert len(lines) == 1 and lines[0].endswith("ollama: msg=x")
    src = JournalSource(FakeHost(), UNIT)
    src._accept({"__REALTIME_TIMESTAMP": stamp})


class UnreachableStreamHost(FakeHost):
    def stream(self, argv, timeout=10):
        raise HostUnreachable("remote: timeout (no SSH session within 25 s)")


def test_a_stream_that_cannot_connect_sets_the_error():
    src = JournalSource(UnreachableStreamHost(), UNIT)
    assert list(src.lines()) == [] and "no SSH session" in src.error
