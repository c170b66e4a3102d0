"""`llmdoctor explain`, the generated pages under docs/checks/, the alert rules' runbook_url,
and site thresholds in a config file (llmdoctor/config.py)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from llmdoctor import config
from llmdoctor.app import explain as E
from llmdoctor.knowledge.causes import CAUSES
from llmdoctor.plugins import load_checks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "checks"
RULE_FILES = [ROOT / "packaging" / "prometheus" / "rules.yml"]
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"
REGENERATE = "regenerate with `python -m llmdoctor.app.explain docs/checks`"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def test_generated_pages_have_not_drifted():
    wanted = E.pages()
    on_disk = {p.name for p in DOCS.glob("*.md")}
    assert on_disk == set(wanted), f"docs/checks/ has {sorted(on_disk ^ set(wanted))} extra or missing: {REGENERATE}"
    stale = [name for name, text in wanted.items() if (DOCS / name).read_text(encoding="utf-8") != text]
    assert not stale, f"docs/checks/{stale[0]} (and {len(stale) - 1} more) drifted from the checks: {REGENERATE}"


def test_every_check_explains_itself(specs):
    assert len(specs) >= 80
    for s in specs:
        e = E.explain(s)
        assert s.cause.value in CAUSES, f"{s.id}: no text for cause {s.cause.value} in knowledge/causes.py"
        assert e.purpose and e.why and e.fix and e.unsafe and e.false_positives, s.id
        assert e.facts and all(what for _n, what, _r in e.facts), f"{s.id}: a fact without a purpose"
        assert e.page.endswith(f"/docs/checks/{s.id}.md")
    # the log-reading checks name the catalogued messages they read, with versions
    e = E.explain(next(s for s in specs if s.id == "ollama-one-slot"))
    ids = {m.id for m in e.messages}
    assert {"ollama.server.config", "ollama.gin.access_ok"} <= ids and all(m.versions for m in e.messages)


def test_thresholds_are_read_from_the_checks_source(specs):
    by_id = {s.id: [t.name for t in E.explain(s).thresholds] for s in specs}
    assert by_id["cpu-contention"] == ["CPU_OTHERS_SHARE", "CPU_BUSY_SHARE", "CPU_STEAL_SHARE", "CPU_ENGINE_ACTIVE_CORES"]
    assert "STALL_MIN_WINDOW_S" in by_id["engine-stalled"]  # through judge/progress.py, the helper it calls
    assert "QUEUE_TREND_GROWTH" in by_id["vllm-queueing"]  # `thresholds as T` in judge/queue_shape.py
    assert "QUEUE_MAX_OVERLAP" in by_id["probe-queueing"]  # the probe's own module
    # judge/gpu.py: throttled_by -> held -> GPU_HELD_CLOCK_FRACTION, within the helper's module
    assert by_id["gpu-throttled"] == ["GPU_BUSY_UTIL_PCT", "GPU_HELD_CLOCK_FRACTION", "GPU_POWER_LIMIT_LOWERED_FRACTION",
                                     "GPU_IDLE_PSTATE"]
    rows = E.threshold_rows(("LLAMACPP_PREFILL_SHARE", "CPU_OTHERS_SHARE"))
    assert "share of request time" in rows[0].comment and "a third of every core" in rows[1].comment


def test_explain_command_in_each_format():
    p = cli("explain", "llamacpp-prefill")
    assert p.returncode == 0, p.stderr
    for heading in ("What it finds:", "Why it slows users:", "The fix:", "When the fix is unsafe:",
                    "Known false positives:", "Evidence lines it reads", "Thresholds", "LLAMACPP_PREFILL_SHARE = 0.5"):
        assert heading in p.stdout
    doc = json.loads(cli("explain", "llamacpp-prefill", "-f", "json").stdout)
    assert doc["cause"] == "PREFILL" and doc["thresholds"][0]["overridden_by"] is None and doc["messages"]
    assert cli("explain", "llamacpp-prefill", "-f", "markdown").stdout == (DOCS / "llamacpp-prefill.md").read_text()
    listed = cli("explain", "--thresholds").stdout
    assert "OLLAMA_SLOW_LOAD_S = 5.0" in listed and "PREFILL_TTFT_WARN_S = 2.0" in listed


@pytest.mark.parametrize("args,message", [(("explain", "ollama-one-slt"), "did you mean ollama-one-slot"),
                                          (("explain",), "name a check"),
                                          (("explain", "ollama-one-slot", "-f", "yaml"), "--format yaml")])
def test_explain_refusals(args, message):
    p = cli(*args)
    assert p.returncode == 3 and message in p.stderr and "Traceback" not in p.stderr


def test_a_site_threshold_is_shown_and_used(tmp_path):
    site = tmp_path / "config.toml"
    site.write_text("[thresholds]\nOLLAMA_REJECTED_BURST = 1000\nllamacpp_prefill_share = 0.75\n")
    p = cli("--config", str(site), "explain", "llamacpp-prefill")
    assert f"LLAMACPP_PREFILL_SHARE = 0.75 (default 0.5, set in {site})" in p.stdout, p.stderr
    doc = json.loads(cli("--config", str(site), "explain", "ollama-rejected-burst", "-f", "json").stdout)
    assert doc["thresholds"] == [{"name": "OLLAMA_REJECTED_BURST", "value": 1000, "default": 5,
                                  "why": doc["thresholds"][0]["why"], "overridden_by": str(site)}]
    # the diagnosis compares with the site's value: the burst of five 503s is no longer one
    ev = str(EVIDENCE / "ollama-rejected-burst")
    plain = json.loads(cli("diagnose", "--evidence", ev, "-f", "json").stdout)
    site_run = json.loads(cli("--config", str(site), "diagnose", "--evidence", ev, "-f", "json").stdout)

    def checks(doc):
        return {f["check"] for t in doc["targets"] for f in t["findings"]}

    assert "ollama-rejected-burst" in checks(plain) and "ollama-rejected-burst" not in checks(site_run)


@pytest.mark.parametrize("text,message", [
    ("[thresholds]\nOLLAMA_SLOW_LOAD = 3\n", "unknown threshold 'OLLAMA_SLOW_LOAD'; did you mean OLLAMA_SLOW_LOAD_S"),
    ("[threshold]\nOLLAMA_SLOW_LOAD_S = 3\n", "unknown key 'threshold' (known: thresholds)"),
    ("[thresholds]\nOLLAMA_REJECTED_BURST = 2.5\n", "expected a int like the default 5"),
    ("[thresholds]\nLLAMACPP_PREFILL_SHARE = 'half'\n", "expected a float"),
    ("[thresholds]\nLLAMACPP_PREFILL_SHARE = -1\n", "must not be negative"),
    ("thresholds = 3\n", "thresholds must be a table"),
    ("[thresholds\n", "not valid TOML"),
    (b"\xff\xfe[thresholds]", "not valid TOML"),
])
def test_config_errors_are_one_clear_line(tmp_path, text, message):
    site = tmp_path / "config.toml"
    site.write_bytes(text if isinstance(text, bytes) else text.encode())
    p = cli("--config", str(site), "checks")
    assert p.returncode == 3 and message in p.stderr and str(site) in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_a_missing_config_named_is_an_error_the_default_is_optional(tmp_path, monkeypatch):
    p = cli("--config", str(tmp_path / "none.toml"), "checks")
    assert p.returncode == 3 and "none.toml" in p.stderr
    monkeypatch.setattr(config, "DEFAULT_PATH", str(tmp_path / "absent.toml"))
    monkeypatch.delenv(config.ENV, raising=False)
    assert config.apply() == {}


def test_apply_and_reset_in_process(tmp_path):
    from llmdoctor.judge import thresholds as T
    from llmdoctor.judge.probe import thresholds as P

    site = tmp_path / "c.toml"
    site.write_text("[thresholds]\nSGLANG_KV_FULL = 0.95\nPREFILL_TTFT_WARN_S = 4\n")
    try:
        assert config.apply(str(site)) == {"SGLANG_KV_FULL": 0.95, "PREFILL_TTFT_WARN_S": 4.0}
        assert T.SGLANG_KV_FULL == 0.95 and P.PREFILL_TTFT_WARN_S == 4.0
        assert config.apply(str(site))  # applied twice: the default stays the module's own
        assert config.OVERRIDES["SGLANG_KV_FULL"][1] == 0.9
    finally:
        config.reset()
    assert T.SGLANG_KV_FULL == 0.9 and P.PREFILL_TTFT_WARN_S == 2.0 and not config.OVERRIDES


def test_every_new_threshold_name_is_overridable():
    """Names are read from the modules: every upper-case constant is a key (no list to keep)."""
    from llmdoctor.judge import thresholds as T

    names = config.threshold_names()
    assert all(n in names for n in vars(T) if n.isupper() and not n.startswith("_"))


def _anchors(text: str) -> set[str]:
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_every_alert_has_a_runbook_url_to_a_page(path):
    groups = yaml.safe_load(path.read_text())["groups"]
    for rule in (r for g in groups for r in g["rules"] if "alert" in r):
        url = rule["annotations"].get("runbook_url", "")
        assert url.startswith(E.DOCS_BASE), f"{rule['alert']}: runbook_url {url!r}"
        page, _, anchor = url[len(E.DOCS_BASE):].partition("#")
        assert (DOCS / page).is_file(), f"{rule['alert']}: {page} is not a page of docs/checks"
        if anchor:
            assert anchor in _anchors((DOCS / page).read_text()), f"{rule['alert']}: no section #{anchor} in {page}"


def test_completion_offers_the_check_ids(specs):
    from llmdoctor.cli.complete import check_ids

    assert check_ids("ollama-one") == ["ollama-one-slot"]
    assert set(check_ids("")) == {s.id for s in specs}
