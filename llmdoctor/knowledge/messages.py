"""The message catalogue: every engine message that carries a fact a cause needs, with the
line of the engine's own source that prints it and the versions that print it.

Rules written one sample at a time miss the same cause in another version's words; the
engines' sources do not. Each engine keeps its table in `knowledge/<engine>/catalogue.py`
(`MESSAGES`, and `summarize(lines)`, which runs that engine's own parser so a test can
check the facts each message yields). This module loads the tables, recognises an engine
from any single catalogued message (with or without the prefix it usually comes with), and
is what `llmdoctor messages` prints.

Pure: text in, values out. The tables are imported on first use only (start-up time).
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import import_module

from llmdoctor.model import Record, record

# Tables by module; "llama.cpp" is the code both llama-server and Ollama's runner print
# (loader, context, backend lines): those entries live in the llamacpp table.
TABLES = ("ollama", "vllm", "llamacpp", "sglang")
FAMILY = "llama.cpp"
ENGINE_NAMES = TABLES + (FAMILY,)


@record
class Example(Record):
    """One line the message printed: a real one (origin: the public report's address, or a
    recorded run's fixture path) or one rendered from the format string (origin:
    "rendered from FILE:LINE @ TAG")."""

    line: str
    origin: str

    @property
    def real(self) -> bool:
        return not self.origin.startswith("rendered")


@record
class Message(Record):
    """One catalogued message.

    pattern: a regular expression found anywhere in the line (never anchored to a prefix,
    so a line pasted without its journald, slot or logger prefix still matches); anchors:
    lower-case literals, one of which every match contains (the cheap test that comes first);
    facts: what the message tells (names, for people); causes: the causes it supports;
    expect: (attribute path on the engine's summary, value) pairs that must hold after
    `summarize` reads the example lines: `True` means "present and truthy"."""

    id: str
    engine: str
    versions: str
    source: str
    pattern: str
    anchors: tuple[str, ...]
    facts: tuple[str, ...]
    causes: tuple[str, ...]
    examples: tuple[Example, ...]
    expect: tuple[tuple[str, object], ...] = ()
    note: str = ""

    @property
    def has_real_line(self) -> bool:
        return any(e.real for e in self.examples)


def message(id: str, engine: str, versions: str, source: str, pattern: str, anchors, facts=(), causes=(),
            examples=(), expect=(), note: str = "") -> Message:
    """A table row, written compactly: anchors may be one string; examples (line, origin) pairs."""
    return Message(id, engine, versions, source, pattern, (anchors,) if isinstance(anchors, str) else tuple(anchors),
                   tuple(facts), tuple(causes), tuple(Example(l, o) for l, o in examples), tuple(expect), note)


def table_module(name: str):
    return import_module(f"llmdoctor.knowledge.{name}.catalogue")


@lru_cache(maxsize=None)
def catalogue(engine: str | None = None) -> tuple[Message, ...]:
    """Every catalogued message, or one engine's ("llama.cpp": the shared loader lines;
    "llamacpp": llama-server's own and the shared ones)."""
    out: list[Message] = []
    for name in TABLES:
        try:
            rows = table_module(name).MESSAGES
        except ModuleNotFoundError:
            continue
        out += [m for m in rows if engine is None or m.engine == engine or (engine == "llamacpp" and m.engine == FAMILY)]
    return tuple(out)


class _Matcher:
    """One alternation of every anchor, searched once per line at C speed; the patterns of
    the messages whose anchor matched are tried after."""

    def __init__(self, messages: tuple[Message, ...]) -> None:
        by_anchor: dict[str, list[tuple[Message, re.Pattern]]] = {}
        for m in messages:
            compiled = re.compile(m.pattern)
            for a in m.anchors:
                by_anchor.setdefault(a, []).append((m, compiled))
        self.by_anchor = by_anchor
        literals = sorted(by_anchor, key=len, reverse=True)
        self.anchor = re.compile("|".join(re.escape(a) for a in literals)) if literals else None

    def find(self, line: str) -> Message | None:
        if self.anchor is None:
            return None
        folded = line.casefold()
        seen: set[str] = set()
        for hit in self.anchor.finditer(folded):
            a = hit.group()
            if a in seen:
                continue
            seen.add(a)
            for m, pattern in self.by_anchor[a]:
                if pattern.search(line):
                    return m
        # an alternation reports the longest anchor at each place only: try the shorter ones
        for a, rows in self.by_anchor.items():
            if a not in seen and a in folded:
                for m, pattern in rows:
                    if pattern.search(line):
                        return m
        return None


@lru_cache(maxsize=1)
def _matcher() -> _Matcher:
    return _Matcher(catalogue())


def find_message(line: str) -> Message | None:
    """The catalogued message one line carries, if any (prefix or not)."""
    return _matcher().find(line)


def messages_in(lines, limit: int = 4000) -> dict[str, tuple[int, str, str]]:
    """Per engine name ("llama.cpp" for the shared loader lines): how many of the first
    `limit` lines carry a catalogued message, the first such line and its message id."""
    found: dict[str, list] = {}
    m = _matcher()
    for n, line in enumerate(lines):
        if n >= limit:
            break
        if not line.strip():
            continue
        msg = m.find(line)
        if msg is None:
            continue
        hit = found.get(msg.engine)
        if hit is None:
            found[msg.engine] = [1, line.strip()[:300], msg.id]
        else:
            hit[0] += 1
    return {e: tuple(h) for e, h in found.items()}


def coverage() -> dict[str, tuple[int, int]]:
    """Per table: (entries with a real line, all entries)."""
    out: dict[str, tuple[int, int]] = {}
    for m in catalogue():
        real, total = out.get(m.engine, (0, 0))
        out[m.engine] = (real + m.has_real_line, total + 1)
    return out
