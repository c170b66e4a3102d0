"""judge/chains.py: roots before their consequences, `caused_by` on the consequences.

End to end: tests/fixtures/evidence/llamacpp-slot-split (-np splits -c, then prompts refused)
and tests/fixtures/realcases/case106 (ollama#9452: an exported 32768 would not hold the
91,541-token prompt that was cut, so the export is no root of the truncation).
"""
from __future__ import annotations

import json
from pathlib import Path

from llmdoctor.judge.chains import link, root_first
from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def f(check, cause=Cause.CPU_SPILL, sev=Severity.WARNING, text="x", instance=""):
    return Finding(cause, sev, text, (Evidence("s", text),), Fix("fix"), check=check, instance=instance)


def test_a_root_moves_before_its_consequence_and_takes_its_severity():
    spill = f("ollama-cpu-spill", sev=Severity.CRITICAL)
    other = f("ollama-one-slot", Cause.QUEUEING)
    kv = f("ollama-kv-capacity", Cause.KV_CAPACITY)
    out = link([spill, other, kv])
    assert [x.check for x in out] == ["ollama-kv-capacity", "ollama-cpu-spill", "ollama-one-slot"]
    assert out[0].severity is Severity.CRITICAL and out[1].caused_by == "ollama-kv-capacity"
    assert not out[0].caused_by and not out[2].caused_by


def test_findings_in_no_chain_keep_their_order():
    fs = [f("ollama-one-slot", Cause.QUEUEING), f("swap-activity", Cause.SWAP)]
    assert link(fs) == fs and link([]) == []


def test_other_instances_are_not_linked():
    out = link([f("llamacpp-context-exceeded", Cause.CONTEXT_TRUNCATION, instance="a"),
                f("llamacpp-slot-context", Cause.KV_CAPACITY, instance="b")])
    assert not any(x.caused_by for x in out)


def test_a_setting_not_applied_is_the_root_only_where_its_value_would_help():
    cfg = f("config-set-outside-server", Cause.CONFIG_NOT_APPLIED, text="OLLAMA_CONTEXT_LENGTH set in a shell")
    trunc = f("ollama-context-truncation", Cause.CONTEXT_TRUNCATION)

    class Log:
        truncation_max_prompt = 91541

    class A:
        name, value = "OLLAMA_CONTEXT_LENGTH", "32768"

    class Declared:
        assignments = (A(),)

    assert not any(x.caused_by for x in link([trunc, cfg], {"ollama_log": Log(), "declared_settings": Declared()}))
    A.value = "131072"
    out = link([trunc, cfg], {"ollama_log": Log(), "declared_settings": Declared()})
    assert [x.check for x in out] == ["config-set-outside-server", "ollama-context-truncation"]
    assert out[1].caused_by == "config-set-outside-server"


def test_root_first_after_a_resort():
    a = f("llamacpp-context-exceeded", Cause.CONTEXT_TRUNCATION)
    a = Finding(a.cause, a.severity, a.title, a.evidence, a.fix, check=a.check, caused_by="llamacpp-slot-context")
    b = f("llamacpp-slot-context", Cause.KV_CAPACITY)
    assert [x.check for x in root_first([a, b])] == ["llamacpp-slot-context", "llamacpp-context-exceeded"]


def _diagnose(case: str) -> list[dict]:
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.model import Report, report_to_dict
    from llmdoctor.plugins import load_checks
    import shutil
    import tempfile

    specs, _ = load_checks(site_dir=None, entry_points=False)
    src = next(FIX.glob(case))
    with tempfile.TemporaryDirectory() as tmp:
        for p in src.iterdir():
            if p.name != "case.json":
                shutil.copy(p, Path(tmp) / p.name)
        res = diagnose_target(EvidenceHost(Path(tmp)), DiagnoseOptions(sample_seconds=0), specs)
    return json.loads(json.dumps(report_to_dict(Report("t", (res.report,)))))["targets"][0]["findings"]


def test_case106_truncation_stays_first():
    fs = [x for x in _diagnose("realcases/case106_*") if x["severity"] != "info"]
    assert fs[0]["cause"] == "CONTEXT_TRUNCATION" and not any("caused_by" in x for x in fs)


def test_every_renderer_names_the_root():
    from llmdoctor.model import Report, TargetReport
    from llmdoctor.render import render_markdown, render_text
    from llmdoctor.render.html import render_html

    out = link([f("llamacpp-context-exceeded", Cause.CONTEXT_TRUNCATION), f("llamacpp-slot-context", Cause.KV_CAPACITY)])
    r = Report("t", (TargetReport(target="t", engine="llamacpp", findings=tuple(out)),))
    for text in (render_text(r, color=False), render_markdown(r), render_html(r)):
        assert "follows from" in text and "llamacpp-slot-context" in text
    assert render_text(r, color=False).index("llamacpp-slot-context") < render_text(r, color=False).index("llamacpp-context-exceeded")


def test_a_context_not_applied_is_the_root_of_an_answer_cut_to_the_default():
    # the answer's count says the prompt was cut, not how long it was: the value meant is taken as meant
    cfg = f("config-set-outside-server", Cause.CONFIG_NOT_APPLIED, text="OLLAMA_CONTEXT_LENGTH set in a shell")
    cut = f("ollama-answer-truncated", Cause.CONTEXT_TRUNCATION)
    out = link([cut, cfg])
    assert [x.check for x in out] == ["config-set-outside-server", "ollama-answer-truncated"]
    assert out[1].caused_by == "config-set-outside-server"
