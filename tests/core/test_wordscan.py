"""knowledge.wordscan: every matcher names the same lines, those that hold a word (the cased
ones as written, the folded ones in any ASCII case), and each start it reports is a word's; a
compiled matcher that cannot run here gives way to the next one."""
from __future__ import annotations

import random

import pytest

from llmdoctor.knowledge import wordscan

MATCHERS = [wordscan.RE, *wordscan.installed()]
CASED = (b"GPU", b"KV", b"GIN]")
FOLDED = (b"out of memory", b"cuinit err", b"offload", b"offloaded", b"load", b"\xc4\xb0", b"x")
PIECES = (b"gpu", b"Gpu", b"GPU", b"kv", b"KV", b"OUT OF MEMORY", b"Out Of Memory", b"out of memor", b"CuInit ERR",
          b"OFFLOADED", b"offLoad", b"lo", b"ad", b"\xc4\xb0", b"\xc4", b"\xb0", b"GIN", b"]", b"X", b"\n", b" ", b"\xff")


def _lines_with_words(data: bytes) -> set[int]:
    """The starts of the lines that hold a word, found the slow, obvious way."""
    out, pos = set(), 0
    for line in data.split(b"\n"):
        low = line.lower()
        if any(w in line for w in CASED) or any(w in low for w in FOLDED):
            out.add(pos)
        pos += len(line) + 1
    return out


def _named(data: bytes, starts: list[int]) -> set[int]:
    return {data.rfind(b"\n", 0, s) + 1 for s in starts}


def _is_word_at(data: bytes, s: int) -> bool:
    return any(data.startswith(w, s) for w in CASED) or any(data[s:s + len(w)].lower() == w for w in FOLDED)


@pytest.mark.parametrize("matcher", MATCHERS)
def test_names_every_line_with_a_word(matcher):
    scan = wordscan.WordScan(CASED, FOLDED, matcher)
    assert scan.matcher == matcher
    rnd = random.Random(5)
    for _ in range(300):
        data = b"".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 40)))
        starts = scan.starts(data)
        assert starts == sorted(starts), data
        assert all(_is_word_at(data, s) for s in starts), data
        assert _named(data, starts) == _lines_with_words(data), data


@pytest.mark.parametrize("matcher", MATCHERS)
def test_no_words_of_one_kind(matcher):
    only_cased = wordscan.WordScan(CASED, (), matcher)
    assert only_cased.starts(b"out of memory\nGPU") == [14]
    only_folded = wordscan.WordScan((), FOLDED, matcher)
    assert _named(b"gpu\nOUT OF MEMORY", only_folded.starts(b"gpu\nOUT OF MEMORY")) == {4}
    assert only_folded.starts(b"") == []


def test_a_matcher_that_cannot_run_gives_way(monkeypatch):
    """Hyperscan refuses a CPU without SSSE3 when the database is made: the next matcher is used;
    asked for by name, the failure is raised."""
    def refuse(*_a, **_k):
        raise RuntimeError("no SSSE3")

    monkeypatch.setattr(wordscan, "_Hyperscan", refuse)
    monkeypatch.setattr(wordscan, "installed", lambda: (wordscan.HYPERSCAN,))
    scan = wordscan.WordScan(CASED, FOLDED)
    assert scan.matcher == wordscan.RE
    assert _named(b"a\nthe GPU", scan.starts(b"a\nthe GPU")) == {2}
    with pytest.raises(RuntimeError):
        wordscan.WordScan(CASED, FOLDED, wordscan.HYPERSCAN)


@pytest.mark.parametrize("matcher", MATCHERS)
def test_apart_words_reported_apart(matcher):
    """Every `GIN]` (as written: `gin]` is not one) apart from the words, which stay as they were."""
    scan = wordscan.WordScan(CASED[:2], FOLDED, matcher, apart=(b"GIN]",))
    rnd = random.Random(9)
    for _ in range(200):
        data = b"".join(rnd.choice(PIECES + (b"GIN]", b"gin]", b"[GIN] x")) for _ in range(rnd.randint(0, 40)))
        starts, gins = scan.scan(data)
        assert starts == scan.starts(data) == wordscan.WordScan(CASED[:2], FOLDED, matcher).starts(data)
        assert gins == [i for i in range(len(data)) if data.startswith(b"GIN]", i)], data
