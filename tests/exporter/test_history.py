"""What changed: the exporter's history of settings and findings, and `llmdoctor history`.

The end-to-end test runs the real exporter (`--once --textfile`, as the systemd timer does)
twice over a copy of the `config-healthy` evidence fixture (a real systemd unit with an
override.conf drop-in and the process environment), with the drop-in edited between the
runs (OLLAMA_NUM_PARALLEL 4 -> 1, restarted): the finding the second run shows is told with
that change, and the exported metrics carry the settings for dashboard annotations.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from llmdoctor.app.exporter.history import (MAX_BYTES, MAX_EVENTS, History, describe, transition_json,
                                            transitions)
from llmdoctor.app.exporter.settings_snapshot import settings_snapshot
from llmdoctor.model import Cause, Severity

ROOT = Path(__file__).resolve().parents[2]
HEALTHY = ROOT / "tests" / "fixtures" / "evidence" / "config-healthy"


def finding(check="ollama-one-slot", cause=Cause.QUEUEING, severity=Severity.WARNING):
    return SimpleNamespace(check=check, cause=cause, severity=severity)


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "llmdoctor", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def test_settings_change_then_finding_is_told_with_it():
    h = History()
    h.observe("gpu1", 1000.0, {"OLLAMA_NUM_PARALLEL": ("4", "override.conf")}, [])
    h.observe("gpu1", 1060.0, {"OLLAMA_NUM_PARALLEL": ("1", "override.conf")}, [])
    h.observe("gpu1", 1120.0, {"OLLAMA_NUM_PARALLEL": ("1", "override.conf")}, [finding()])
    h.observe("gpu1", 1180.0, {"OLLAMA_NUM_PARALLEL": ("1", "override.conf")}, [])
    rows = transitions(h.events)
    assert [(r.event.kind, r.event.name, r.event.after) for r in rows] == [
        ("setting", "OLLAMA_NUM_PARALLEL", "1"), ("finding", "ollama-one-slot", "appeared"),
        ("finding", "ollama-one-slot", "cleared")]
    told = describe(rows[1])
    assert "QUEUEING since" in told and "OLLAMA_NUM_PARALLEL went 4 -> 1 at" in told and told.endswith("in override.conf")
    assert transition_json(rows[1])["after_settings_change"][0]["before"] == "4"
    assert "cleared" in describe(rows[2])


def test_a_change_long_before_is_not_blamed():
    h = History()
    h.observe("gpu1", 0.0, {"A": ("1", "x.conf")}, [])
    h.observe("gpu1", 60.0, {"A": ("2", "x.conf")}, [])
    h.observe("gpu1", 60.0 + 3600, {"A": ("2", "x.conf")}, [finding()])
    h.observe("gpu2", 60.0 + 3600, {}, [finding()])  # another target's change is not this one's
    assert [r.causes for r in transitions(h.events) if r.event.kind == "finding"] == [(), ()]
    assert [r.event.target for r in transitions(h.events, target="gpu2")] == ["gpu2"]
    assert transitions(h.events, since=100.0)[0].event.t == 3660.0


def test_first_sight_is_a_baseline_and_settings_added_or_removed_are_changes():
    h = History()
    assert h.observe("gpu1", 0.0, {"A": ("1", "x.conf")}, []) == []
    new = h.observe("gpu1", 1.0, {"B": ("2", "y.conf")}, [])
    assert sorted((e.name, e.before, e.after) for e in new) == [("A", "1", ""), ("B", "", "2")]
    assert [describe(transitions(new)[i]).split(" setting ")[1] for i in range(2)] == ["A (1) removed in x.conf",
                                                                                        "B set to 2 in y.conf"]


def test_a_cycle_that_changed_nothing_writes_nothing(tmp_path):
    h = History.load(str(tmp_path))
    h.observe("gpu1", 1.0, {"A": ("1", "x.conf")}, [])
    h.save()
    path = tmp_path / "history.json"
    first = path.stat().st_mtime_ns
    path.write_text(path.read_text())  # (a marker: rewritten only if saved again)
    marked = path.stat().st_mtime_ns
    h.observe("gpu1", 2.0, {"A": ("1", "x.conf")}, [])
    h.save()
    assert path.stat().st_mtime_ns == marked >= first
    h.observe("gpu1", 3.0, {"A": ("2", "x.conf")}, [])
    h.save()
    assert History.load(str(tmp_path)).events[0].after == "2"


def test_history_is_bounded_and_survives_a_restart(tmp_path):
    h = History.load(str(tmp_path))
    for i in range(MAX_EVENTS + 300):
        h.observe("gpu1", float(i), {"OLLAMA_KEEP_ALIVE": (f"{i}m", "override.conf")}, [])
    h.save()
    path = tmp_path / "history.json"
    assert path.stat().st_size <= MAX_BYTES and oct(path.stat().st_mode & 0o777) == "0o600"
    again = History.load(str(tmp_path))
    assert 0 < len(again.events) <= MAX_EVENTS and again.events[-1].after == f"{MAX_EVENTS + 299}m"
    assert again.key == h.key  # the digests stay comparable across runs
    new = again.observe("gpu1", 1e6, {"OLLAMA_KEEP_ALIVE": ("5m", "override.conf")}, [])
    assert [(e.before, e.after) for e in new] == [(f"{MAX_EVENTS + 299}m", "5m")]


@pytest.mark.parametrize("garbage", [b"", b"{", b"[]", b'{"events": "x", "last": [], "key": "zz"}',
                                     b'{"events": [{"t": "soon"}, 5, null], "last": {"a": 1}}', b"\xff\xfe\x00",
                                     b'{"events": [' + b'{"t": 1, "target": "x", "kind": "setting", "name": "A"},' * 60000 + b'1]}'],
                         ids=["empty", "cut", "list", "wrong-types", "bad-events", "binary", "oversized"])
def test_a_damaged_history_starts_afresh(tmp_path, garbage):
    (tmp_path / "history.json").write_bytes(garbage)
    h = History.load(str(tmp_path))
    assert h.events == [] and h.last == {}
    h.observe("gpu1", 1.0, {}, [finding()])
    h.save()
    assert History.load(str(tmp_path)).events[0].name == "ollama-one-slot"
    p = run_cli("history", "--state-dir", str(tmp_path), "--since", "100000d")
    assert "ollama-one-slot" in p.stdout


def test_secrets_are_digests_never_values():
    config = SimpleNamespace(values={"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_HOST": "0.0.0.0:11434", "OLLAMA_MODELS": "/srv/m",
                                     "OLLAMA_DEBUG": "0"},
                             origins={"OLLAMA_NUM_PARALLEL": "unit /etc/systemd/system/ollama.service.d/override.conf",
                                      "OLLAMA_HOST": "process environment", "OLLAMA_MODELS": "process environment",
                                      "OLLAMA_DEBUG": "default (0.11.4)"})
    unit = SimpleNamespace(unit="ollama.service", file_env={"HF_TOKEN": "hf_AbCdEfGhIjKlMnOp", "OLLAMA_MODELS": "/srv/m",
                                                           "SOME_VAR": "Sup3r-S3cret-Passw0rd"},
                           file_env_origin={"HF_TOKEN": "/etc/systemd/system/ollama.service.d/secrets.conf",
                                            "OLLAMA_MODELS": "/etc/systemd/system/ollama.service.d/override.conf"})
    config.values["OLLAMA_HOST"] = "https://admin:hunter2hunter2@gpu1:11434"  # a setting's name, a password in it
    cmd = SimpleNamespace(argv=("/usr/bin/llama-server", "-m", "/m/q.gguf", "--parallel", "4", "--api-key", "12345678",
                                "--ctx-size=8192", "--no-webui"))
    facts = {"ollama_config": config, "systemd_units": (unit,), "llamacpp_cmdline": cmd, "ollama_version": "0.11.4",
             "ollama_ps": (SimpleNamespace(name="llama3.1:8b"),)}
    snap = settings_snapshot(facts, b"k" * 32)
    assert snap["OLLAMA_NUM_PARALLEL"] == ("4", "override.conf")
    assert snap["OLLAMA_MODELS"] == ("/srv/m", "override.conf")  # the file a person edits
    assert "OLLAMA_DEBUG" not in snap  # a default is not a setting anyone made
    assert snap["--parallel@llamacpp"] == ("4", "command line") and snap["--ctx-size@llamacpp"][0] == "8192"
    assert snap["--no-webui@llamacpp"][0] == "" and snap["-m@llamacpp"][0] == "/m/q.gguf"
    assert snap["version@ollama"][0] == "0.11.4" and snap["models@ollama"][0] == "llama3.1:8b"
    text = json.dumps(snap)
    assert snap["OLLAMA_HOST"][0].startswith("digest:")
    for secret in ("hf_AbCdEfGhIjKlMnOp", "12345678", "Sup3r-S3cret-Passw0rd", "hunter2"):
        assert secret not in text
    assert snap["HF_TOKEN"][0].startswith("digest:") and snap["--api-key@llamacpp"][0].startswith("digest:")
    # a changed secret is a change; the same secret under another history's key is another digest
    facts2 = dict(facts, systemd_units=(SimpleNamespace(unit="ollama.service", file_env={"HF_TOKEN": "hf_other"},
                                                        file_env_origin={}),))
    assert settings_snapshot(facts2, b"k" * 32)["HF_TOKEN"] != snap["HF_TOKEN"]
    assert settings_snapshot(facts, b"j" * 32)["HF_TOKEN"] != snap["HF_TOKEN"]


def test_a_containers_environment_image_and_command():
    container = SimpleNamespace(env={"OLLAMA_NUM_PARALLEL": "2", "HF_TOKEN": "hf_secretsecretsecret"},
                                image="ollama/ollama:0.11.4", argv=("/bin/ollama", "serve", "--verbose"))
    snap = settings_snapshot({"container": container}, b"k" * 32)
    assert snap["OLLAMA_NUM_PARALLEL"] == ("2", "container") and snap["image@container"][0] == "ollama/ollama:0.11.4"
    assert snap["HF_TOKEN"][0].startswith("digest:") and snap["--verbose@container"] == ("", "command line")


def test_restart_time_is_when_a_change_took_effect():
    from llmdoctor.app.exporter.history import started_at

    assert started_at("Sun 2026-11-29 11:22:26 UTC", 2e9) == 1795951346.0
    assert started_at("Sun 2026-11-29 12:22:26 +0100", 2e9) == 1795951346.0
    for odd in ("Sun 2026-11-29 11:22:26 CET", "n/a", "", "Sun 2099-01-01 00:00:00 UTC"):
        assert started_at(odd, 5.0) == 5.0  # an ambiguous zone, garbage, or the future: when we looked
    h = History()
    h.observe("gpu1", 1795951000.0, {"started@ollama.service": ("Sun 2026-11-29 11:00:00 UTC", "systemd"),
                                     "OLLAMA_NUM_PARALLEL": ("4", "override.conf")}, [])
    new = h.observe("gpu1", 1795951400.0, {"started@ollama.service": ("Sun 2026-11-29 11:22:26 UTC", "systemd"),
                                           "OLLAMA_NUM_PARALLEL": ("1", "override.conf")}, [finding()])
    assert [(e.kind, e.name, e.t) for e in new] == [("restart", "ollama.service", 1795951346.0),
                                                    ("setting", "OLLAMA_NUM_PARALLEL", 1795951346.0),
                                                    ("finding", "ollama-one-slot", 1795951400.0)]
    assert h.last_changes("gpu1") == {"started@ollama.service": 1795951346.0, "OLLAMA_NUM_PARALLEL": 1795951346.0}


@pytest.mark.parametrize("facts", [{}, {"systemd_units": None, "ollama_config": "garbage", "engines": (None, 3)},
                                   {"llamacpp_cmdline": SimpleNamespace(argv=("--", "-", "--x=", "--y"))},
                                   {"ollama_ps": (object(),), "systemd_units": (SimpleNamespace(file_env=[1]),)},
                                   {"systemd_units": object(), "engines": 5, "ollama_ps": "x", "container": object()},
                                   {"container": SimpleNamespace(env={"A": 1}, image=None, argv="--x y")}])
def test_snapshot_of_odd_facts_never_raises(facts):
    assert isinstance(settings_snapshot(facts, b"k" * 16), dict)


def test_two_exporter_runs_tie_the_finding_to_the_change(tmp_path):
    ev, state, prom = tmp_path / "ev", tmp_path / "state", tmp_path / "llmdoctor.prom"
    shutil.copytree(HEALTHY, ev)
    (ev / "expected.json").unlink()
    run = ("exporter", "--evidence", str(ev), "--textfile", str(prom), "--once", "--state-dir", str(state))
    run_cli(*run)
    assert 'llmdoctor_setting_info{setting="OLLAMA_NUM_PARALLEL",value="4"} 1.0' in prom.read_text()
    assert "llmdoctor_finding{" not in prom.read_text()
    # the operator lowers the slots in the drop-in, reloads and restarts
    import time

    restarted = time.time() - 3600  # an hour before this run: the change is still the one the finding followed
    stamp = time.strftime("%a %Y-%m-%d %H:%M:%S UTC", time.gmtime(restarted)).encode()
    for name in ("systemctl_cat.txt", "env.txt", "files/proc/64/environ"):
        path = ev / name
        text = path.read_bytes().replace(b"OLLAMA_NUM_PARALLEL=4", b"OLLAMA_NUM_PARALLEL=1")
        path.write_bytes(text.replace(b"ActiveEnterTimestamp=Sun 2026-11-29 11:22:26 UTC", b"ActiveEnterTimestamp=" + stamp))
    run_cli(*run)
    metrics = prom.read_text()
    assert 'llmdoctor_setting_info{setting="OLLAMA_NUM_PARALLEL",value="1"} 1.0' in metrics
    assert 'llmdoctor_setting_changed_timestamp_seconds{setting="OLLAMA_NUM_PARALLEL"}' in metrics
    assert 'check="ollama-one-slot"' in metrics
    text = run_cli("history", "--state-dir", str(state)).stdout.splitlines()
    assert text[0].endswith("gpu-box ollama.service restarted")
    assert text[1].endswith("gpu-box setting OLLAMA_NUM_PARALLEL went 4 -> 1 in override.conf")
    assert "gpu-box QUEUEING since" in text[2] and "(ollama-one-slot," in text[2]
    assert text[2].split("; ", 1)[1] == f"OLLAMA_NUM_PARALLEL went 4 -> 1 at {time.strftime('%H:%M', time.localtime(restarted))} in override.conf"
    doc = json.loads(run_cli("history", "--state-dir", str(state), "-f", "json", "--target", "gpu-box").stdout)
    appeared = [t for t in doc["transitions"] if t["kind"] == "finding"]
    assert appeared[0]["after_settings_change"][0]["name"] == "OLLAMA_NUM_PARALLEL"
    assert appeared[0]["after_settings_change"][0]["t"] == int(restarted)  # when the change took effect
    # a third run with nothing changed adds nothing
    run_cli(*run)
    assert len(run_cli("history", "--state-dir", str(state)).stdout.splitlines()) == 3


def test_history_command_refusals(tmp_path):
    p = run_cli("history", "--state-dir", str(tmp_path), check=False)
    assert p.returncode == 3 and "no exporter history in" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "history.json").write_text("{}")
    for args in (("--since", "soon"), ("-f", "yaml")):
        p = run_cli("history", "--state-dir", str(tmp_path), *args, check=False)
        assert p.returncode == 3 and p.stderr.startswith("llmdoctor:") and "Traceback" not in p.stderr
    assert "No change in the last 7d" in run_cli("history", "--state-dir", str(tmp_path)).stdout


def test_the_dashboard_annotates_setting_changes(tmp_path):
    import yaml

    from llmdoctor.app.exporter.metrics import exported_names
    from tests.exporter.promql_names import metric_names
    from tests.support import prometheus as prom_support

    dashboard = json.loads((ROOT / "packaging" / "grafana" / "dashboard.json").read_text())
    (note,) = [a for a in dashboard["annotations"]["list"] if a["name"] == "Settings changed"]
    assert metric_names(note["expr"]) == {"llmdoctor_setting_changed_timestamp_seconds"} <= exported_names()
    if prom_support.promtool_skip_reason() is None:
        path = tmp_path / "a.yml"
        expr = note["expr"].replace("$instance", ".*").replace("$target", ".*")
        path.write_text(yaml.safe_dump({"groups": [{"name": "a", "rules": [{"record": "a:b", "expr": expr}]}]}))
        assert prom_support.promtool("check", "rules", str(path)).returncode == 0


@pytest.mark.real
def test_a_real_prometheus_sees_the_change_the_history_ties_to_the_finding(tmp_path):
    """The served exporter (HTTP, 1 s cycles) over an evidence copy edited while it runs: a real
    Prometheus scrapes the setting's new value and the dashboard's annotation query marks the
    change; `llmdoctor history` ties the finding to it."""
    import time

    from tests.exporter.conftest import exporter_process, wait_http
    from tests.support import prometheus as prom_support

    reason = prom_support.skip_reason()
    if reason:
        pytest.skip(reason)
    ev, state = tmp_path / "ev", tmp_path / "state"
    shutil.copytree(HEALTHY, ev)
    port = prom_support.free_port()
    with prom_support.running_prometheus([f"127.0.0.1:{port}"], job="llmdoctor", rule_files=[]) as prom:
        with exporter_process("--evidence", str(ev), "--listen", f"127.0.0.1:{port}", "--interval", "1s",
                              "--state-dir", str(state)):
            wait_http(f"http://127.0.0.1:{port}/metrics", needle=b"llmdoctor_setting_info{")
            assert prom.wait_for('llmdoctor_setting_info{setting="OLLAMA_NUM_PARALLEL",value="4"}', timeout=30)
            for name in ("systemctl_cat.txt", "env.txt", "files/proc/64/environ"):
                path = ev / name
                path.write_bytes(path.read_bytes().replace(b"OLLAMA_NUM_PARALLEL=4", b"OLLAMA_NUM_PARALLEL=1"))
            assert prom.wait_for('llmdoctor_setting_info{setting="OLLAMA_NUM_PARALLEL",value="1"}', timeout=30)
            dashboard = json.loads((ROOT / "packaging" / "grafana" / "dashboard.json").read_text())
            (note,) = [a for a in dashboard["annotations"]["list"] if a["name"] == "Settings changed"]
            marked = prom.wait_for(note["expr"].replace('instance=~"$instance", target=~"$target"', ""), timeout=30)
            assert marked and marked[0]["metric"]["setting"] == "OLLAMA_NUM_PARALLEL"
            assert abs(float(marked[0]["value"][1]) - time.time()) < 60
    lines = run_cli("history", "--state-dir", str(state)).stdout.splitlines()
    assert any(line.endswith("setting OLLAMA_NUM_PARALLEL went 4 -> 1 in override.conf") for line in lines), lines
    tied = [line for line in lines if "QUEUEING since" in line]
    assert tied and "; OLLAMA_NUM_PARALLEL went 4 -> 1 at " in tied[0], lines
