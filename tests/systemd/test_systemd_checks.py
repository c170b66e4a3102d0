"""The systemd collectors on evidence directories and the CONFIG_NOT_APPLIED checks."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from llmdoctor.knowledge.engines import OLLAMA, EngineInstance
from llmdoctor.facts import Context, FactStore, FactUnavailable
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Cause
from tests.systemd.helpers import config_checks, findings_by_check

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
CONFIG_DIRS = sorted(EVIDENCE.glob("config-*"))
INSTALL_UNIT = (Path(__file__).resolve().parent.parent / "fixtures" / "systemd" / "install_sh.service").read_text()


def run_mine(host, engines=None) -> tuple[dict[str, list], FactStore]:
    preset = {"engines": engines} if engines is not None else None
    store = FactStore(Context(host), preset=preset)
    return findings_by_check(store), store


@pytest.mark.parametrize("directory", CONFIG_DIRS, ids=[d.name for d in CONFIG_DIRS])
def test_recorded_evidence(directory):
    expected = json.loads((directory / "expected.json").read_text())["checks"]
    found, store = run_mine(EvidenceHost(directory))
    assert sorted(found) == sorted(expected), found
    for findings in found.values():
        for f in findings:
            assert f.cause is Cause.CONFIG_NOT_APPLIED and f.evidence and f.fix.summary
            assert f.fix.commands


def test_reload_evidence_quotes_file_line_and_loaded_value():
    found, store = run_mine(EvidenceHost(EVIDENCE / "config-no-reload"))
    (f,) = found["systemd-reload-pending"]
    pairs = [(e.source, e.text) for e in f.evidence]
    assert ("systemctl show ollama.service", "NeedDaemonReload=yes") in pairs
    assert ("/etc/systemd/system/ollama.service.d/override.conf:2", 'Environment="OLLAMA_NUM_PARALLEL=8"') in pairs
    assert ("systemctl show ollama.service", "Environment= has OLLAMA_NUM_PARALLEL=4") in pairs
    assert f.fix.commands == ("systemctl daemon-reload && systemctl restart ollama.service",)
    (u,) = store.get("systemd_units")
    assert u.file_env["OLLAMA_NUM_PARALLEL"] == "8" and u.loaded_env["OLLAMA_NUM_PARALLEL"] == "4"
    assert u.process_env["OLLAMA_NUM_PARALLEL"] == "4"


def test_restart_evidence_names_the_process():
    found, _ = run_mine(EvidenceHost(EVIDENCE / "config-no-restart"))
    (f,) = found["systemd-restart-pending"]
    texts = [e.text for e in f.evidence]
    assert "Environment= has OLLAMA_NUM_PARALLEL=8" in texts
    assert any(t.endswith("has OLLAMA_NUM_PARALLEL=4") and e.source.endswith("/environ")
               for e, t in zip(f.evidence, texts))
    assert any(t.startswith("ActiveEnterTimestamp=") for t in texts)


def test_healthy_state_from_systemctl_cat():
    _, store = run_mine(EvidenceHost(EVIDENCE / "config-healthy"))
    (u,) = store.get("systemd_units")
    assert u.fragment_path == "/etc/systemd/system/ollama.service"
    assert u.dropin_paths == ("/etc/systemd/system/ollama.service.d/override.conf",)
    assert u.file_env == u.loaded_env
    assert u.file_env_origin["OLLAMA_NUM_PARALLEL"].endswith("override.conf")
    assert u.need_daemon_reload is False and u.main_pid and u.user == "ollama"


def test_shell_export_snippet_and_conflict_winner():
    found, _ = run_mine(EvidenceHost(EVIDENCE / "config-shell-export"))
    (f,) = found["systemd-env-outside-unit"]
    assert f.evidence[0].source == "/root/.bashrc:2"
    assert 'Environment="OLLAMA_HOST=0.0.0.0:11434"' in f.fix.config
    found, _ = run_mine(EvidenceHost(EVIDENCE / "config-dropin-conflict"))
    (f,) = found["systemd-env-conflict"]
    assert "override.conf wins with OLLAMA_KEEP_ALIVE=24h" in f.title


def _copy(tmp_path, name) -> Path:
    d = tmp_path / name
    shutil.copytree(EVIDENCE / name, d)
    return d


def test_garbage_env_txt_is_a_note_not_a_crash(tmp_path):
    d = _copy(tmp_path, "config-dropin-no-header")
    (d / "env.txt").write_text("this is not systemctl output\n")
    found, store = run_mine(EvidenceHost(d))
    (u,) = store.get("systemd_units")
    assert u.loaded_env is None
    assert any(n.startswith("unparseable env.txt:") for n in u.notes)
    assert sorted(found) == ["systemd-dropin-ignored"]


def test_hand_made_partial_env_txt_is_no_reload_finding(tmp_path):
    d = _copy(tmp_path, "config-healthy")
    (d / "env.txt").write_text("OLLAMA_NUM_PARALLEL=4\n")  # pasted by hand: PATH etc. left out
    shutil.rmtree(d / "files")
    found, store = run_mine(EvidenceHost(d))
    assert found == {}
    (d / "env.txt").write_text("OLLAMA_NUM_PARALLEL=2\n")
    found, _ = run_mine(EvidenceHost(d))
    assert sorted(found) == ["systemd-reload-pending"]


def test_no_unit_files_means_no_comparison(tmp_path):
    d = tmp_path / "plain"
    d.mkdir()
    (d / "meta.json").write_text('{"engine": "ollama", "unit": "ollama.service"}')
    (d / "env.txt").write_text("Environment=OLLAMA_NUM_PARALLEL=1\n")
    found, store = run_mine(EvidenceHost(d))
    assert found == {}
    (u,) = store.get("systemd_units")
    assert u.fragment_path is None and u.loaded_env == {"OLLAMA_NUM_PARALLEL": "1"}


def test_no_engine_unit_is_quietly_unavailable(tmp_path):
    d = tmp_path / "none"
    d.mkdir()
    store = FactStore(Context(EvidenceHost(d)), preset={"engines": (EngineInstance(OLLAMA, pid=5),)})
    with pytest.raises(FactUnavailable) as e:
        store.get("systemd_units")
    assert e.value.quiet


def test_client_side_ollama_host_and_user_unit_dir(tmp_path):
    d = _copy(tmp_path, "config-healthy")
    bashrc = d / "files" / "root" / ".bashrc"
    bashrc.parent.mkdir(parents=True)
    bashrc.write_text("export OLLAMA_HOST=http://gpu-box.lan:11434\n")  # the CLI's server address
    found, _ = run_mine(EvidenceHost(d))
    assert found == {}
    user_dropin = d / "files" / "root" / ".config" / "systemd" / "user" / "ollama.service.d" / "override.conf"
    user_dropin.parent.mkdir(parents=True)
    user_dropin.write_text("[Service]\nEnvironment=OLLAMA_NUM_PARALLEL=8\n")
    found, _ = run_mine(EvidenceHost(d))
    (f,) = found["systemd-dropin-ignored"]
    assert "directory systemd never reads" in f.title
    assert "mv /root/.config/systemd/user/ollama.service.d/override.conf" in f.fix.commands[0]


def test_secrets_are_redacted_everywhere(tmp_path):
    d = _copy(tmp_path, "config-shell-export")
    (d / "files" / "root" / ".bashrc").write_text("export OLLAMA_API_KEY=hunter2\nexport OLLAMA_HOST=0.0.0.0\n")
    found, _ = run_mine(EvidenceHost(d))
    (f,) = found["systemd-env-outside-unit"]
    blob = json.dumps([[e.source, e.text] for e in f.evidence]) + f.fix.config + f.title
    assert "hunter2" not in blob and "<redacted>" in blob


def test_environment_file_counts_for_the_process(tmp_path):
    d = _copy(tmp_path, "config-healthy")
    (d / "systemctl_cat.txt").unlink()
    (d / "unit.service").write_text(INSTALL_UNIT.replace("[Install]", "EnvironmentFile=-/etc/default/ollama\n\n[Install]"))
    (d / "files" / "etc" / "default").mkdir(parents=True)
    (d / "files" / "etc" / "default" / "ollama").write_text("OLLAMA_MAX_QUEUE=64\n")
    env_txt = (d / "env.txt").read_text().replace(" OLLAMA_NUM_PARALLEL=4 OLLAMA_KEEP_ALIVE=30m", "")
    (d / "env.txt").write_text(re.sub(r"(?m)^DropInPaths=.*$", "DropInPaths=", env_txt))
    found, store = run_mine(EvidenceHost(d))
    (u,) = store.get("systemd_units")
    assert u.environment_file_env == {"OLLAMA_MAX_QUEUE": "64"}
    # the process predates the env file's variable: restart; /etc/default/ollama is read, so no shell finding
    assert sorted(found) == ["systemd-restart-pending"], found
    texts = [e.text for e in found["systemd-restart-pending"][0].evidence]
    assert "OLLAMA_MAX_QUEUE=64" in texts  # quoted from the environment file, with its line as source
    assert "Environment= has no OLLAMA_NUM_PARALLEL" in texts  # the process still has the old drop-in's value


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["[Service]", "[Unit]", "Environment=", 'Environment="OLLAMA_X=1 2"', "EnvironmentFile=-/x",
                              "MainPID=7", "NeedDaemonReload=yes", "DropInPaths=/a /b", "\\", "#", "A=\"", "=",
                              "Environment=OLLAMA_NUM_PARALLEL=4", "\0", "é"]), max_size=12).map("\n".join),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unit=_TEXT, dropin=_TEXT, env=_TEXT, environ=st.binary(max_size=100), bashrc=_TEXT)
def test_garbage_evidence_never_crashes(tmp_path_factory, unit, dropin, env, environ, bashrc):
    d = tmp_path_factory.mktemp("garbage")
    (d / "meta.json").write_text('{"engine": "ollama", "unit": "ollama.service"}')
    (d / "unit.service").write_text(unit)
    (d / "dropins").mkdir()
    (d / "dropins" / "override.conf").write_text(dropin)
    (d / "env.txt").write_text(env)
    (d / "files" / "proc" / "7").mkdir(parents=True)
    (d / "files" / "proc" / "7" / "environ").write_bytes(environ)
    (d / "files" / "root").mkdir()
    (d / "files" / "root" / ".bashrc").write_text(bashrc)
    found, store = run_mine(EvidenceHost(d))  # asserts no check crashed
    for name in ("systemd_units", "shell_exports"):
        assert not store.missing.get(name) or "collector failed" not in store.missing[name].reason, \
            store.missing[name].reason
    for findings in found.values():
        for f in findings:
            assert f.evidence and f.fix.summary


def test_generator_dropins_and_merged_usr_paths_are_not_a_reload(tmp_path):
    d = _copy(tmp_path, "config-healthy")
    env_txt = (d / "env.txt").read_text()
    env_txt = env_txt.replace(
        "DropInPaths=/etc/systemd/system/ollama.service.d/override.conf",
        "DropInPaths=/run/systemd/generator/ollama.service.d/50-gen.conf /etc/systemd/system/ollama.service.d/override.conf")
    (d / "env.txt").write_text(env_txt)
    found, _ = run_mine(EvidenceHost(d))
    assert found == {}


def test_restart_from_ollama_start_up_line_when_environ_is_unreadable():
    found, _ = run_mine(EvidenceHost(EVIDENCE / "config-no-restart-log"))
    (f,) = found["systemd-restart-pending"]
    assert f.confidence == "medium"
    assert ("journal.log", 'last start-up logged server config env="map[... OLLAMA_NUM_PARALLEL:0 ...]"') in [
        (e.source, e.text) for e in f.evidence]


def test_start_up_line_older_than_the_process_is_not_used():
    from datetime import datetime, timezone

    checks = {s.id: s.func for s in config_checks()}
    from llmdoctor.knowledge.systemd.units import UnitState

    u = UnitState("ollama.service", engine="ollama", fragment_path="/etc/systemd/system/ollama.service",
                  loaded_env={"OLLAMA_NUM_PARALLEL": "8"}, active_since="Sun 2026-11-29 11:22:26 UTC")

    class Log:
        server_config = {"OLLAMA_NUM_PARALLEL": "4"}
        server_config_example = None
        server_config_at = datetime(2026, 11, 28, 9, 0, tzinfo=timezone.utc)  # a start before this one

    assert list(checks["systemd-restart-pending"]([u], Log())) == []
    Log.server_config_at = datetime(2026, 11, 29, 11, 22, 27, tzinfo=timezone.utc)
    (f,) = checks["systemd-restart-pending"]([u], Log())
    assert "OLLAMA_NUM_PARALLEL" in f.title
    Log.server_config = {"OLLAMA_NUM_PARALLEL": "8"}
    assert list(checks["systemd-restart-pending"]([u], Log())) == []
