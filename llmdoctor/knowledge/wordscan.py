"""Where any of a set of literal words occurs in a block of bytes, at C speed.

A log scanner asks this once per block (a megabyte of whole lines) and reads in Python only
the lines it names. `re` with an alternation of a hundred words tries every branch at nearly
every byte (~300 ms a MiB, slower than reading every line). Two compiled matchers read each byte
once, the first installed one is used:
- `hyperscan` (Linux x86-64): the cased and the case-folded words in one database, each folded
  word caseless, one SIMD pass over the block as written (~0.85 ms a MiB over an Ollama journal);
- `ahocorasick-rs` (every platform): a cased pass, and a pass over `block.lower()` for the
  folded words (~3.9 ms a MiB, the lower-casing included).
An install with neither keeps reading line by line, and `WordScan` still answers (the `re`
way) so that the tests compare every path on any machine.
"""
from __future__ import annotations

import re
from functools import lru_cache

HYPERSCAN, AHO_CORASICK, RE = "hyperscan", "aho-corasick", "re"


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def installed() -> tuple[str, ...]:
    """The compiled matchers this install has, the one used first."""
    return tuple(m for m, module in ((HYPERSCAN, "hyperscan"), (AHO_CORASICK, "ahocorasick_rs")) if _importable(module))


def available() -> bool:
    """Is a compiled matcher installed?"""
    return bool(installed())


def _kind(words: list[bytes]) -> dict:
    """A few words: leftmost-first, which lets the automaton use its SIMD (Teddy) searcher; many:
    a full DFA (a third faster than the default automaton over an Ollama journal)."""
    import ahocorasick_rs as ac

    if len(words) <= 16:
        return {"matchkind": ac.MATCHKIND_LEFTMOST_FIRST}
    return {"matchkind": ac.MATCHKIND_STANDARD, "implementation": ac.Implementation.DFA}


@lru_cache(maxsize=16)
def _minimal(words: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The words less those that hold a shorter one (a line with either holds the shorter)."""
    out: list[bytes] = []
    for w in sorted(set(words), key=len):
        if w and not any(o in w for o in out):
            out.append(w)
    return tuple(out)


@lru_cache(maxsize=8)
def _databases(words: tuple[bytes, ...], caseless: tuple[bool, ...], sizes: tuple[int, ...]) -> tuple:
    """Hyperscan block-mode databases of the first n words, for each n of `sizes` (~8 ms to
    compile: made once a process; a database is read-only, each scanner has its own scratch)."""
    import hyperscan as hs

    out = []
    for n in sizes:
        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        db.compile(expressions=list(words[:n]), ids=list(range(n)), elements=n, literal=True,
                   flags=[hs.HS_FLAG_CASELESS if c else 0 for c in caseless[:n]])
        out.append(db)
    return tuple(out)


class _Hyperscan:
    """Both word sets (and the apart words) in one pass over the block as written: block-mode
    databases of literals, the folded ones caseless (ASCII letters only, as bytes.lower() folds
    them). Hyperscan reports where a match ends; a word's start is that less its length."""

    def __init__(self, cased: list[bytes], folded: list[bytes], apart: list[bytes]) -> None:
        import hyperscan as hs

        words = cased + folded + apart
        caseless = (False,) * len(cased) + (True,) * len(folded) + (False,) * len(apart)
        self._lengths = [len(w) for w in words]
        self._first_apart = len(cased) + len(folded)
        # two databases: the words and the apart ones (scan), the words alone (starts: where
        # the apart words are dense, a callback for each would cost more than the pass)
        sizes = tuple(dict.fromkeys((len(words), self._first_apart)))
        self._dbs = [(db, hs.Scratch(db)) for db in _databases(tuple(words), caseless, sizes)]  # (one scan at a time)

    def scan(self, data: bytes, apart: bool = True) -> tuple[list[int], list[int]]:
        out: list[int] = []
        found: list[int] = []
        lengths, first_apart = self._lengths, self._first_apart

        def seen(i, _from, to, _flags, _ctx):
            (out if i < first_apart else found).append(to - lengths[i])

        db, scratch = self._dbs[0 if apart else -1]
        db.scan(data, match_event_handler=seen, scratch=scratch)
        out.sort()  # (reported by where they end)
        found.sort()
        return out, found


class _TwoPasses:
    """The cased words over the block, the folded ones over its lower case: Aho-Corasick
    automata, or `re` alternations (longest first) where no compiled matcher is installed."""

    def __init__(self, cased: list[bytes], folded: list[bytes], apart: list[bytes], matcher: str) -> None:
        if matcher == AHO_CORASICK:
            import ahocorasick_rs as ac

            self._finders = [ac.BytesAhoCorasick(w, **_kind(w)).find_matches_as_indexes if w else None
                             for w in (cased, folded)]
            self._start = lambda hit: hit[1]
        else:
            self._finders = [_alternation(w).finditer if w else None for w in (cased, folded)]
            self._start = re.Match.start
        self._apart = _alternation(apart).finditer if apart else None

    def scan(self, data: bytes, apart: bool = True) -> tuple[list[int], list[int]]:
        cased, folded = self._finders
        out: list[int] = []
        for finder, text in ((cased, data), (folded, data.lower() if folded is not None else b"")):
            if finder is not None:
                out.extend(map(self._start, finder(text)))
        if cased is not None and folded is not None:
            out.sort()
        return out, [m.start() for m in self._apart(data)] if apart and self._apart is not None else []


def _alternation(words: list[bytes]) -> re.Pattern:
    return re.compile(b"|".join(re.escape(x) for x in sorted(words, key=len, reverse=True)))


class WordScan:
    """Word occurrences in `data`: `cased` words as written, `folded` words (lower case) in any
    ASCII case. Every occurrence of a word overlaps one that starts() reports, so a line that
    holds a word is named (no word holds a newline). `apart`: words (as written, none overlapping
    itself) whose occurrences scan() reports apart, all of them, in the same pass where the
    matcher can (Ollama's `GIN]`).
    `matcher`: HYPERSCAN, AHO_CORASICK or RE; by default the first installed one that works
    here (Hyperscan needs SSSE3)."""

    def __init__(self, cased: tuple[bytes, ...], folded: tuple[bytes, ...], matcher: str | None = None,
                 apart: tuple[bytes, ...] = ()) -> None:
        sets = list(_minimal(tuple(cased))), list(_minimal(tuple(folded))), list(dict.fromkeys(apart))
        self._impl = None
        for name in (matcher,) if matcher else installed() + (RE,):
            try:
                self._impl = _Hyperscan(*sets) if name == HYPERSCAN else _TwoPasses(*sets, matcher=name)
            except Exception:  # noqa: BLE001  (a matcher that cannot run on this CPU: the next one)
                if matcher:
                    raise
                continue
            self.matcher = name
            break

    def starts(self, data: bytes) -> list[int]:
        """Sorted start offsets of word occurrences in `data` (the apart words not looked for)."""
        return self._impl.scan(data, apart=False)[0]

    def scan(self, data: bytes) -> tuple[list[int], list[int]]:
        """(starts(data), the sorted starts of every occurrence of an `apart` word)."""
        return self._impl.scan(data)
