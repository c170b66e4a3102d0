"""judge/tune_merge, pure: diagnose's What to change as is, the sizing only where it sets
nothing, no raise while memory does not fit, and a second tune that changes nothing."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.app.tune import dropin
from llmdoctor.judge.proposal import Change as Sized
from llmdoctor.judge.tune_merge import DIAGNOSE, KEPT, SIZING, combine
from llmdoctor.model import Change
from llmdoctor.redact import REDACTED

PLACE = "systemd ollama.service"


def sized(name, proposed, current=None, source="default of Ollama 0.11.6 (1)"):
    return Sized(name, current, source, proposed, f"why {name}")


def test_diagnose_wins_and_the_sizing_adds_where_it_sets_nothing():
    d = Change(PLACE, (("OLLAMA_NUM_PARALLEL", "4"),), checks=("ollama-one-slot",))
    plan = combine(PLACE, d, [sized("OLLAMA_NUM_PARALLEL", "5"), sized("OLLAMA_CONTEXT_LENGTH", "8192")])
    by = {s.name: s for s in plan.settings}
    assert by["OLLAMA_NUM_PARALLEL"].value == "4" and by["OLLAMA_NUM_PARALLEL"].source == DIAGNOSE
    assert by["OLLAMA_CONTEXT_LENGTH"].source == SIZING
    assert plan.differences == ("OLLAMA_NUM_PARALLEL: tune's sizing alone would set 5; diagnose's What to change "
                                "sets 4 (ollama-one-slot), and that is what is written",)


def test_held_back_by_diagnose_is_not_written_and_an_earlier_value_stays():
    held = "OLLAMA_NUM_PARALLEL=4 (QUEUEING, ollama-one-slot): memory does not fit yet; raise it once ..."
    d = Change(PLACE, (("OLLAMA_KV_CACHE_TYPE", "q8_0"),), checks=("ollama-cpu-spill",), held_back=(held,),
               held=(("OLLAMA_NUM_PARALLEL", "4"),))
    plan = combine(PLACE, d, [sized("OLLAMA_NUM_PARALLEL", "5")], memory="CPU_SPILL, ollama-cpu-spill")
    assert plan.values() == {"OLLAMA_KV_CACHE_TYPE": "q8_0"} and plan.held_back == (held,)
    plan = combine(PLACE, d, [sized("OLLAMA_NUM_PARALLEL", "5")], own={"OLLAMA_NUM_PARALLEL": "2"},
                   memory="CPU_SPILL, ollama-cpu-spill")
    assert plan.values()["OLLAMA_NUM_PARALLEL"] == "2"


def test_no_raise_of_slots_or_context_by_the_sizing_while_memory_does_not_fit():
    sizing = [sized("OLLAMA_NUM_PARALLEL", "5"), sized("OLLAMA_CONTEXT_LENGTH", "2048", "8192", "unit file"),
              sized("OLLAMA_MAX_QUEUE", "20", source="default (512)")]
    plan = combine(PLACE, None, sizing, memory="CPU_SPILL, ollama-cpu-spill")
    values = plan.values()
    assert "OLLAMA_NUM_PARALLEL" not in values  # a raise: held back, with the memory finding named
    assert plan.held_back[0].startswith("OLLAMA_NUM_PARALLEL=5 (tune's sizing): memory does not fit yet (CPU_SPILL")
    assert values["OLLAMA_CONTEXT_LENGTH"] == "2048"  # a lowering is allowed
    assert values["OLLAMA_MAX_QUEUE"] == "20"  # not a memory setting


def test_a_secret_is_never_written_back():
    d = Change(PLACE, (("OLLAMA_HOST", f"user:{REDACTED}@host"), ("OLLAMA_NUM_PARALLEL", "4")), checks=("x",))
    plan = combine(PLACE, d)
    assert plan.values() == {"OLLAMA_NUM_PARALLEL": "4"} and "OLLAMA_HOST: a secret" in plan.held_back[0]


def test_once_the_finding_is_gone_a_second_tune_keeps_diagnoses_value(tmp_path: Path):
    d = Change(PLACE, (("OLLAMA_NUM_PARALLEL", "4"),), checks=("ollama-one-slot",))
    sizing = [sized("OLLAMA_NUM_PARALLEL", "5")]
    first = combine(PLACE, d, sizing)
    text = dropin.render(first.values(), first.provenance())
    assert "# OLLAMA_NUM_PARALLEL: as diagnose's What to change asks (ollama-one-slot)" in text
    # after the restart diagnose no longer asks (the value is in effect); the sizing still says 5
    own = {x.name: x.value for x in dropin.parse_env_lines(text) if x.kind == "set"}
    second = combine(PLACE, None, [sized("OLLAMA_NUM_PARALLEL", "5", "4", "llmdoctor")], own,
                     dropin.provenance_of(text))
    s = second.settings[0]
    assert (s.value, s.source, s.checks) == ("4", KEPT, ("ollama-one-slot",))
    assert dropin.render(second.values(), second.provenance()) == text  # nothing to change
    assert "4 stays, as diagnose asked earlier" in second.differences[0]


def test_from_evidence_the_second_prepare_has_nothing_to_change(tmp_path: Path):
    from llmdoctor.app.tune import session
    from llmdoctor.hosts.evidence import EvidenceHost

    host = EvidenceHost(Path(__file__).parents[1] / "fixtures/evidence/ollama-kv-capacity")
    p = session.prepare(host, session.TuneOptions(root=tmp_path))
    path = dropin.dropin_path(tmp_path, "ollama.service")
    path.parent.mkdir(parents=True)
    path.write_text(p.new)
    again = session.prepare(EvidenceHost(host.root), session.TuneOptions(root=tmp_path))
    assert again.nothing_to_change and again.values == p.values
