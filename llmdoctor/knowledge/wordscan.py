"""Where any of a set of literal words occurs in a block of bytes, at C speed.

A log scanner asks this once per block (a megabyte of whole lines) and reads in Python only
the lines it names. `re` with an alternation of a hundred words tries every branch at nearly
every byte (~300 ms a MiB, slower than reading every line); an Aho-Corasick automaton reads each
byte once. With the `ahocorasick-rs` package (a dependency) `available()` is True and the scanners
take this path; an install without it keeps reading line by line, and `WordScan` still answers
(the `re` way) so that the tests compare the two paths on any machine.
"""
from __future__ import annotations

import re


def _automaton():
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs.BytesAhoCorasick


def available() -> bool:
    """Is the fast matcher installed?"""
    return _automaton() is not None


def _kind(words: list[bytes]) -> dict:
    """A few words: leftmost-first, which lets the automaton use its SIMD (Teddy) searcher; many:
    a full DFA (a third faster than the default automaton over an Ollama journal)."""
    import ahocorasick_rs as ac

    if len(words) <= 16:
        return {"matchkind": ac.MATCHKIND_LEFTMOST_FIRST}
    return {"matchkind": ac.MATCHKIND_STANDARD, "implementation": ac.Implementation.DFA}


def _minimal(words) -> list[bytes]:
    """The words less those that hold a shorter one (a line with either holds the shorter)."""
    out: list[bytes] = []
    for w in sorted(set(words), key=len):
        if w and not any(o in w for o in out):
            out.append(w)
    return out


class WordScan:
    """Word occurrences in `data` (`cased` words, as written) and in `data.lower()` (`folded`
    words, lower case). Every occurrence of a word overlaps one that starts() reports, so a
    line that holds a word is named (no word holds a newline)."""

    def __init__(self, cased: tuple[bytes, ...], folded: tuple[bytes, ...], fast: bool | None = None) -> None:
        make = _automaton() if fast is not False else None
        self.fast = make is not None
        sets = [_minimal(w) for w in (cased, folded)]
        if make is not None:
            self._finders = [make(w, **_kind(w)).find_matches_as_indexes if w else None for w in sets]
        else:
            self._finders = [re.compile(b"|".join(re.escape(x) for x in sorted(w, key=len, reverse=True))).finditer
                             if w else None for w in sets]

    def starts(self, data: bytes) -> list[int]:
        """Sorted start offsets of word occurrences in `data`."""
        cased, folded = self._finders
        out: list[int] = []
        for finder, text in ((cased, data), (folded, data.lower() if folded is not None else b"")):
            if finder is None:
                continue
            if self.fast:
                out.extend(start for _, start, _ in finder(text))
            else:
                out.extend(m.start() for m in finder(text))
        if cased is not None and folded is not None:
            out.sort()
        return out
