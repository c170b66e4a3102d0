"""`tune ollama` proposes the change diagnose's What to change gives for the same evidence: for
every evidence fixture whose report has a systemd place, the same drop-in path and the same
Environment= lines (tune's sizing adds a line only where diagnose sets nothing, and says so);
the same held-back items; its JSON follows llmdoctor/schema/tune.schema.json."""
from __future__ import annotations

import json
import re
from functools import lru_cache

import jsonschema
import pytest
from typer.testing import CliRunner

from llmdoctor.schema import tune_schema
from tests.support.schema import report_doc

from .conftest import REPO

EVIDENCE = REPO / "tests/fixtures/evidence"
_ENV = re.compile(r'^Environment=.*$', re.M)
_PATH = re.compile(r"^# (/etc/systemd/system/\S+\.conf)$", re.M)


def _run(*args: str) -> tuple[int, str]:
    from llmdoctor.cli import _register_commands, app

    if not any(g.name == "tune" for g in app.registered_groups):
        _register_commands()  # the add-on commands (tune, plan, ...), as `llmdoctor tune` loads them
    r = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "200"})
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout


@lru_cache(maxsize=None)
def _diagnosed(name: str) -> dict | None:
    """The report's What to change entry for a systemd place, None when it has none."""
    _, out = _run("diagnose", "--evidence", str(EVIDENCE / name), "--format", "json")
    changes = [c for t in report_doc(out)["targets"] for c in t["what_to_change"] if c["place"].startswith("systemd ")]
    assert len(changes) <= 1, f"{name}: more than one systemd place"
    return changes[0] if changes else None


# every evidence fixture whose report has a systemd place (all of them Ollama's unit)
WITH_PLACE = [d.name for d in sorted(EVIDENCE.iterdir()) if d.is_dir() and _diagnosed(d.name) is not None]


def _tune_json(name: str, *args: str) -> dict:
    unit = _diagnosed(name)["place"].split(" ", 1)[1]
    code, out = _run("tune", "ollama", "--evidence", str(EVIDENCE / name), "--unit", unit, "--format", "json", *args)
    assert code == 0, out
    doc = json.loads(out)
    jsonschema.Draft202012Validator(tune_schema()).validate(doc)
    return doc


def test_the_corpus_has_systemd_places():
    assert len(WITH_PLACE) >= 10, WITH_PLACE  # 17 when written


@pytest.mark.parametrize("name", WITH_PLACE)
def test_tune_proposes_diagnoses_change(name):
    want = _diagnosed(name)
    doc = _tune_json(name)
    plan = doc["plan"]
    assert plan["place"] == want["place"]
    # the same file
    assert _PATH.search(want["config"]).group(1) == plan["path"] == doc["dropin"]["path"]
    # diagnose's change as the report gives it, held-back items and their reasons included
    got = plan["what_to_change"]
    assert got["settings"] == want["settings"] and got["held_back"] == want["held_back"]
    assert set(want["held_back"]) <= set(plan["held_back"])
    # the same Environment= lines; any line besides them is tune's sizing, where diagnose sets
    # nothing, and says why
    written = set(_ENV.findall(doc["dropin"]["content"]))
    asked = set(_ENV.findall(want["config"]))
    assert asked <= written, name
    extra = {s["name"]: s for s in plan["settings"] if s["source"] != "diagnose"}
    assert {line.split("=", 1)[1].strip('"').split("=", 1)[0] for line in written - asked} == set(extra)
    assert all(s["source"] == "sizing" and s["why"].startswith("tune's sizing") for s in extra.values())
    assert not set(extra) & set(want["settings"])


@pytest.mark.parametrize("name", [n for n in WITH_PLACE if n in ("ollama-one-slot", "ollama-cpu-spill")])
def test_without_sizing_the_drop_in_is_diagnoses_change_exactly(name):
    want = _diagnosed(name)
    doc = _tune_json(name)
    assert doc["proposal"] is None and any(u.startswith("sizing:") for u in doc["unavailable"])
    assert _ENV.findall(doc["dropin"]["content"]) == sorted(_ENV.findall(want["config"]))


def test_a_raise_held_back_by_diagnose_is_not_written_and_says_why():
    want = _diagnosed("ollama-one-slot")
    assert want["held_back"] and want["held_back"][0].startswith("OLLAMA_NUM_PARALLEL=4")
    doc = _tune_json("ollama-one-slot")
    assert "OLLAMA_NUM_PARALLEL" not in doc["dropin"]["content"]
    assert doc["plan"]["held_back"] == want["held_back"]


def test_sizing_adds_only_where_diagnose_sets_nothing_and_differences_are_said():
    doc = _tune_json("ollama-kv-capacity", "--concurrent", "4")
    by = {s["name"]: s for s in doc["plan"]["settings"]}
    assert by["OLLAMA_NUM_PARALLEL"]["value"] == "6" and by["OLLAMA_NUM_PARALLEL"]["source"] == "diagnose"
    assert by["OLLAMA_MAX_QUEUE"]["source"] == "sizing" and by["OLLAMA_MAX_QUEUE"]["value"] == "24"
    assert any(d.startswith("OLLAMA_NUM_PARALLEL: tune's sizing alone would set 4") for d in doc["plan"]["differences"])
    # a memory finding stands (KV_CAPACITY): the sizing's raise of the context is held back, with the reason
    assert any(h.startswith("OLLAMA_CONTEXT_LENGTH=8192 (tune's sizing): memory does not fit yet (KV_CAPACITY")
               for h in doc["plan"]["held_back"])


def test_text_output_names_the_change_and_the_differences():
    code, out = _run("tune", "ollama", "--evidence", str(EVIDENCE / "ollama-kv-capacity"), "--concurrent", "4")
    assert code == 0
    assert "diagnose's What to change for systemd ollama.service (from ollama-kv-capacity), written as is:" in out
    assert "differs: OLLAMA_NUM_PARALLEL: tune's sizing alone would set 4" in out
    assert "OLLAMA_MAX_QUEUE=24: tune's sizing (diagnose's What to change does not set it)" in out
    assert "4 × 6 slots written = 24." in out  # the queue follows the slots diagnose asks for
