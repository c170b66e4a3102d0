"""The message catalogue (knowledge/messages.py and each engine's knowledge/<engine>/catalogue.py)
tested as a catalogue, not as samples: every entry names its source and versions, every
example line matches its pattern, names its engine on its own (one-line paste, with and
without its prefix), and yields the entry's facts through the engine's own parser in every
paste form of tests/support/repaste.py."""
from __future__ import annotations

import re

import pytest

from llmdoctor.knowledge.messages import FAMILY, TABLES, catalogue, coverage, find_message, table_module
from llmdoctor.knowledge.pasted import repair_log
from llmdoctor.knowledge.recognize import engine_of_text
from llmdoctor.model import Cause
from tests.support.repaste import LINE_FORMS

ROWS = catalogue()
EXAMPLES = [(m, e) for m in ROWS for e in m.examples]


def _id(x):
    return x.id if hasattr(x, "id") else None


def test_ids_are_unique_and_engines_known():
    ids = [m.id for m in ROWS]
    assert len(ids) == len(set(ids))
    assert [m.id for m in ROWS if not m.id.startswith(m.engine + ".")] == []  # `ENGINE.area.name`
    assert {m.engine for m in ROWS} <= set(TABLES) | {FAMILY}


@pytest.mark.parametrize("m", ROWS, ids=_id)
def test_entry_is_complete(m):
    assert m.source and m.versions and m.examples, m.id
    assert re.search(r"\S+:\d+", m.source), f"{m.id}: the source names no file:line"
    assert all(c in Cause.__members__ or c == "OTHER" for c in m.causes), m.causes
    assert all(a == a.casefold() and a for a in m.anchors), f"{m.id}: anchors must be lower case"
    for e in m.examples:
        assert e.real or re.match(r"rendered from \S+:\d+ @ \S+", e.origin), f"{m.id}: origin {e.origin!r}"


@pytest.mark.parametrize("m,e", EXAMPLES, ids=[f"{m.id}#{i}" for i, (m, e) in enumerate(EXAMPLES)])
def test_example_matches_and_names_its_engine(m, e):
    assert re.search(m.pattern, e.line), f"{m.id}: pattern does not match its example"
    assert any(a in e.line.casefold() for a in m.anchors), f"{m.id}: no anchor in its example"
    assert find_message(e.line) is not None
    want = {"llamacpp", "ollama"} if m.engine == FAMILY else {m.engine}
    assert engine_of_text(e.line) in want, f"{m.id}: one line names {engine_of_text(e.line)}"


def _holds(summary, path: str, want) -> bool:
    value = summary
    for part in path.split("."):
        if value is None:
            return False  # an intermediate record the parser did not make
        value = value.get(part) if isinstance(value, dict) else getattr(value, part)
    return bool(value) if want is True else value == want


# Lines wrapped without indentation are rejoined from what the text shows (knowledge/pasted.py):
# a single message wrapped so that its first piece ends exactly at a common width, with nothing
# else in the paste, can look like two lines. Those forms are held to a measured rate instead.
UNINDENTED_WRAPS = {"hard-60": 0.98, "hard-80": 0.98, "hard-120": 0.98, "word-60": 0.94, "word-80": 0.92,
                    "word-120": 0.97}
WITH_FACTS = [(m, e, form) for m, e in EXAMPLES if m.expect for form in sorted(LINE_FORMS)
              if form not in UNINDENTED_WRAPS]


def _yields(m, e, form) -> list:
    engine = "llamacpp" if m.engine == FAMILY else m.engine
    text = repair_log(LINE_FORMS[form](e.line, engine)).text
    summary = table_module(engine).summarize(text.split("\n"))
    return [(p, v) for p, v in m.expect if not _holds(summary, p, v)]


@pytest.mark.parametrize("m,e,form", WITH_FACTS, ids=[f"{m.id}-{f}-{i}" for i, (m, e, f) in enumerate(WITH_FACTS)])
def test_example_yields_its_facts_in_every_paste_form(m, e, form):
    wrong = _yields(m, e, form)
    assert not wrong, f"{m.id} pasted {form}: {wrong} do not hold"


@pytest.mark.parametrize("form", sorted(UNINDENTED_WRAPS))
def test_unindented_wraps_keep_the_facts_of_nearly_every_example(form, capsys):
    cases = [(m, e) for m, e in EXAMPLES if m.expect]
    missed = [m.id for m, e in cases if _yields(m, e, form)]
    rate = 1 - len(missed) / len(cases)
    with capsys.disabled():
        print(f"\n{form}: {rate:.1%} of {len(cases)} examples keep their facts; missed: {', '.join(missed) or 'none'}")
    assert rate >= UNINDENTED_WRAPS[form], missed


def test_coverage_per_engine(capsys):
    cov = coverage()
    with capsys.disabled():
        print("\ncatalogue coverage (entries with a real line / all): "
              + ", ".join(f"{e} {r}/{t}" for e, (r, t) in sorted(cov.items())))
    assert cov
