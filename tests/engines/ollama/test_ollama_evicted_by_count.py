"""Evictions read from the scheduler's bookkeeping (`loaded runners count=N` after each load,
server/sched.go:449 @ v0.5.7): a load of another model that leaves the count where it was,
before keep-alive could have unloaded the one before, and the cases that must stay silent."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.judge.ollama import added_loads, counted_evictions, embed_and_chat
from llmdoctor.knowledge.ollama.log import scan

EVIDENCE = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"
TAKING_TURNS = (EVIDENCE / "ollama-evicted-by-count" / "journal.log").read_text().splitlines()
BOTH_LOADED = (EVIDENCE / "ollama-two-models-loaded" / "journal.log").read_text().splitlines()


def test_two_models_taking_turns_at_one_runner():
    s = scan(TAKING_TURNS, "journal.log")
    assert [ld.runners_after for ld in s.loads] == [1, 1, 1, 1] and s.loaded_runners == 1
    found = counted_evictions(s, 300.0)
    assert [(e.evicted, e.by.model, e.after_s) for e in found] == [
        ("sha256-8c625c9569c3", "sha256-970aa74c0a90", 26.0), ("sha256-970aa74c0a90", "sha256-8c625c9569c3", 5.0),
        ("sha256-8c625c9569c3", "sha256-970aa74c0a90", 20.0)]
    assert found[0].by.ctx_size == 8192 and found[0].by.parallel == 4
    assert embed_and_chat(s)


def test_a_second_model_loaded_next_to_the_first_is_no_eviction_and_no_reload():
    s = scan(BOTH_LOADED, "journal.log")
    assert counted_evictions(s, 300.0) == ()
    assert added_loads(s) == (s.loads[1],)


def test_a_load_after_keep_alive_could_have_run_out_is_not_counted():
    s = scan(TAKING_TURNS, "journal.log")
    assert counted_evictions(s, 5.0) == ()  # OLLAMA_KEEP_ALIVE=5s: each could have expired
    assert counted_evictions(s, 0.0) == ()  # keep_alive 0: unloaded after every request by design


def test_the_same_model_loaded_again_is_not_another_models_eviction():
    lines = [x for x in TAKING_TURNS if "970aa74c0a90" not in x and "/api/embed" not in x]
    assert counted_evictions(scan(lines, "journal.log"), 300.0) == ()


def test_a_runner_that_died_is_not_an_eviction():
    died = ('time=2025-03-05T06:59:19.000Z level=ERROR source=sched.go:455 msg="error loading llama server" '
            'error="llama runner process has terminated: signal: killed"')
    lines = TAKING_TURNS[:7] + [died] + TAKING_TURNS[7:]
    assert counted_evictions(scan(lines, "journal.log"), 300.0) == ()


def test_without_the_count_nothing_is_concluded():
    lines = [x for x in TAKING_TURNS if "loaded runners" not in x]
    assert counted_evictions(scan(lines, "journal.log"), 300.0) == ()


def test_a_reload_for_other_options_is_named_so():
    # server/sched.go:161 @ v0.12.11 (DEBUG), as knowledge/ollama/catalogue.py renders it
    from checks.ollama_model_evicted import model_evicted
    from llmdoctor.knowledge.ollama.catalogue import MESSAGES

    line = next(m for m in MESSAGES if m.id == "ollama.sched.reloading").examples[0].line
    found = list(model_evicted(scan([line], "journal.log")))
    assert len(found) == 1 and "other load options" in found[0].title
    assert "num_ctx" in found[0].fix.summary
    assert list(model_evicted(scan(BOTH_LOADED, "journal.log"))) == []
