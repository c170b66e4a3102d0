"""probe.json: what `llmdoctor probe --format json` writes reads back; garbage is a
ValueError (shown as "unparseable probe.json: ..."), never a traceback."""
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmdoctor.facts.probe import runs_from_json

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"

KEYS = ["url", "engine", "samples", "id", "scenario", "chunk_s", "server", "slots", "ttft_s", "errors", "probe"]
json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=6),
    max_leaves=25)


def test_round_trip():
    runs = runs_from_json((EVIDENCE / "probe-llamacpp-one-slot" / "probe.json").read_bytes())
    assert runs_from_json(json.dumps(runs.to_dict()).encode()) == runs
    doc = {"version": "0.1.0", "targets": [], "probe": runs.to_dict()}  # the CLI's JSON document
    assert runs_from_json(json.dumps(doc).encode()) == runs


@given(json_values)
def test_garbage_is_a_value_error(value):
    try:
        runs_from_json(json.dumps(value).encode())
    except ValueError:
        pass


def test_not_json():
    with pytest.raises(ValueError):
        runs_from_json(b"\x00not json")


@pytest.mark.parametrize("number", [b"1e400", b"-Infinity", b"NaN", str(10**400).encode()])
@pytest.mark.parametrize("where", ["slots", "sample"])
def test_numbers_beyond_any_float_are_a_value_error(number, where):
    """JSON (as Python reads it) allows Infinity, NaN and 1e400; none is a count or a time."""
    sample = b'{"id": "a", "scenario": "single", "ttft_s": %s}' % number
    doc = (b'{"url": "u", "engine": "ollama", "slots": %s}' % number if where == "slots"
           else b'{"url": "u", "engine": "ollama", "samples": [%s]}' % sample)
    with pytest.raises(ValueError, match="must be a number"):
        runs_from_json(doc)
