"""Paste repair as a stream (issue 28): the repair holds at most a record being joined, whatever
the text's size, and an evidence log is repaired into its copy as repair_log repairs the text.
(Peak memory on a 200 MiB paste is measured by bench/paste_repair.py, not here.)"""
from __future__ import annotations

import io

import pytest

from llmdoctor.hosts import evidence
from llmdoctor.knowledge import pasted
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.pasted import FRAGMENT, MAX_JOINED, repair_log, repair_log_stream
from tests.support.repaste import VARIANTS

# besides a record (MAX_JOINED + 1 lines), what the stages hold: the last three lines (a fence glued
# to the last), the last non-blank one (zsh's %), the line that ends a record in each of the two
# joining stages, the lines that decide a cut at a line's end
HELD = 8
RECORD = ('time=2025-03-01T17:27:56.756-08:00 level=WARN source=runner.go:130 msg="truncating input prompt" '
          'limit=2048 prompt=91541 keep=5 new=2048 model=/usr/share/ollama/.ollama/models/blobs/sha256-abc')


def _lag(text: str, monkeypatch) -> tuple[int, list[str]]:
    """(most lines the repair read between two pieces it wrote, what it wrote). (The vocabulary
    a doubtful cut is decided by is read apart, 20,000 lines at most: left out here.)"""
    monkeypatch.setattr(pasted._Plan, "_vocabulary", lambda self: frozenset())
    reads = [0]
    written: list[str] = []
    most = [0]

    def source():
        reads[0] = 0
        for line in io.StringIO(text, newline=""):
            reads[0] += 1
            yield line

    def write(piece: str) -> None:
        most[0] = max(most[0], reads[0])
        reads[0] = 0
        written.append(piece)

    repair_log_stream(source, write)
    return most[0], written


def test_the_repair_holds_at_most_a_record(monkeypatch):
    """A wrapped journal of 20,000 records: between two lines written the repair reads no more
    than the lines of one record and the few it holds (HELD)."""
    text = VARIANTS["hard-80"]("\n".join(RECORD.replace("2048", str(i)) for i in range(20000)) + "\n")
    lag, written = _lag(text, monkeypatch)
    assert "".join(written).count("\n") >= 19999
    assert lag <= MAX_JOINED + 1 + HELD


def test_a_long_run_of_wrapped_lines_is_cut_at_max_joined(monkeypatch):
    lines = [RECORD[:70] + "x" * 10] + ["y" * 80] * 200 + ["z" * 10]
    lag, written = _lag("\n".join(lines) + "\n", monkeypatch)
    assert lag <= MAX_JOINED + 1 + HELD and "".join(written).count("\n") >= 200 // MAX_JOINED


def test_what_the_end_decides_is_held_until_the_end():
    # a fence glued to the last line, zsh's `%` behind blank lines, a cut with nothing after it
    text = "$ ollama ps\n" + "\n".join([RECORD] * 5) + '\n{"a": 1}%   \n  \n\n'
    assert repair_log(text).text == "\n".join([RECORD] * 5) + '\n{"a": 1}\n'
    r = repair_log("\n".join([RECORD] * 3) + "\n...\n\n\n")
    assert r.fragments == 0 and FRAGMENT not in r.text and r.text.endswith(RECORD + "\n\n\n")
    r = repair_log("```\n" + RECORD + "\n" + RECORD + "```\n")
    assert r.text == RECORD + "\n" + RECORD + "\n"


def _host(tmp_path, data: bytes) -> EvidenceHost:
    (tmp_path / "journal.log").write_bytes(data)
    return EvidenceHost(tmp_path)


@pytest.mark.parametrize("keep", [0, evidence.KEEP_LIMIT])  # read again on each pass, or held
def test_an_evidence_log_is_repaired_into_its_copy_as_the_text_is(tmp_path, monkeypatch, keep):
    monkeypatch.setattr(evidence, "KEEP_LIMIT", keep)
    text = VARIANTS["kubectl"]("\n".join([RECORD] * 50)).replace("\n", "\r\n")
    for i, data in enumerate((text.encode("utf-16"), b"\xef\xbb\xbf" + text.encode())):
        d = tmp_path / str(i)
        d.mkdir()
        host = _host(d, data)
        copy = host.path("journal.log")
        assert copy != d / "journal.log"
        expected = repair_log(text)
        assert copy.read_text(encoding="utf-8") == expected.text
        assert host.repair("journal.log").prefixes == expected.prefixes and "kubectl" in expected.prefixes


def test_a_clean_log_is_read_where_it_lies(tmp_path):
    host = _host(tmp_path, ("\n".join([RECORD] * 50) + "\n").encode())
    assert host.path("journal.log") == tmp_path / "journal.log" and host.repair("journal.log") is None


def test_a_utf16_log_too_long_to_repair_is_only_transcoded(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence, "REPAIR_LIMIT", 1000)
    text = "ollama  | " + "\nollama  | ".join([RECORD] * 50) + "\n"
    host = _host(tmp_path, text.encode("utf-16"))
    assert host.path("journal.log").read_text(encoding="utf-8") == text
    assert host.repair("journal.log") is None
