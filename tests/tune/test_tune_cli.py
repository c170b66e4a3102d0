"""`llmdoctor tune ollama` as a user runs it, against the recorded-shape Ollama stand-in,
writing under --root (files only; the real-systemd path is test_apply_nspawn.py)."""
from __future__ import annotations

import json

import pytest

from llmdoctor.app.tune import dropin
SEED = ("--users", "20", "--turn-seconds", "12", "--seconds-between-turns", "90", "--gpu-memory", "24GB")


def tune(cli, port, root, *args, input=None):
    return cli("tune", "ollama", "--port", str(port), "--root", str(root), *args, input=input)


def test_dry_run_shows_values_diff_and_commands_and_writes_nothing(cli, fake_ollama, tmp_path):
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED)
    assert code == 0, err
    assert "Tuning ollama.service: llama3:8b on Ollama 0.32.15" in out
    assert "OLLAMA_NUM_PARALLEL    1 (default) → 5" in out
    assert "OLLAMA_MAX_QUEUE       512 (default) → 20" in out
    assert "+++ /etc/systemd/system/ollama.service.d/zz-llmdoctor.conf" in out
    assert "systemctl restart ollama.service" in out and "Dry run: nothing was changed" in out
    assert not list(tmp_path.rglob("*"))


def test_json_dry_run(cli, fake_ollama, tmp_path):
    code, out, _ = tune(cli, fake_ollama, tmp_path, *SEED, "--format", "json")
    d = json.loads(out)
    assert code == 0
    changes = {c["name"]: c for c in d["proposal"]["changes"]}
    assert changes["OLLAMA_NUM_PARALLEL"]["proposed"] == "5" and changes["OLLAMA_NUM_PARALLEL"]["changed"]
    assert d["proposal"]["plan"]["recommended"]["parallel"] == 5
    assert d["dropin"]["content"].startswith(dropin.MARKER)


def test_apply_under_a_root_then_nothing_to_change_then_rollback(cli, fake_ollama, tmp_path):
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 0, out + err
    path = dropin.dropin_path(tmp_path, "ollama.service")
    # diagnose's What to change (ollama-one-slot: 4) is what is written; the sizing's 5 is said as a difference
    assert 'Environment="OLLAMA_NUM_PARALLEL=4"' in path.read_text()
    assert "OLLAMA_NUM_PARALLEL: tune's sizing alone would set 5; diagnose's What to change sets 4" in out
    assert "no service restarted" in out
    code, out, _ = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 0 and "Nothing to change" in out
    code, out, _ = tune(cli, fake_ollama, tmp_path, "--rollback")
    assert code == 0 and "rolled back" in out and not path.exists()


def test_apply_without_a_terminal_needs_yes(cli, fake_ollama, tmp_path):
    code, _, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply")
    assert code == 3 and "--apply without a terminal needs --yes" in err
    assert not list(tmp_path.rglob("*.conf"))


def test_without_workload_flags_and_no_terminal_it_sizes_from_memory(cli, fake_ollama, tmp_path):
    code, out, _ = tune(cli, fake_ollama, tmp_path, "--gpu-memory", "24GB")
    assert code == 0 and "No workload given: sized from memory alone (at most 16 slots)" in out
    assert "OLLAMA_NUM_PARALLEL    1 (default) → 16" in out


@pytest.mark.parametrize("args,message", [
    (("--model", "no-such-model", *SEED), "Ollama does not know model 'no-such-model'"),
    (("--users", "20", "--turn-seconds", "12"), "--gpu-memory"),
    ((*SEED, "--context", "65536"), "larger than llama3:8b's trained context 8,192"),
    ((*SEED, "--weights", "lots"), "give a unit"),
    ((*SEED, "--weights", "16"), "give a unit"),
])
def test_bad_input_exits_3_and_writes_nothing(cli, fake_ollama, tmp_path, monkeypatch, args, message):
    import llmdoctor.app.tune.hostfacts as hf

    monkeypatch.setattr(hf, "gpu_total", lambda gpu: None)  # as on a machine without a GPU
    code, out, err = tune(cli, fake_ollama, tmp_path, *args, "--apply", "--yes")
    assert code == 3, out
    assert message in err and "Traceback" not in out + err
    assert not list(tmp_path.rglob("*.conf"))


def test_a_later_drop_in_stops_the_apply(cli, fake_ollama, tmp_path):
    d = tmp_path / "etc/systemd/system/ollama.service.d"
    d.mkdir(parents=True)
    (d / "zzz-site.conf").write_text('[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=1"\n')
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED)
    assert code == 0 and "Conflicts (apply refuses until they are resolved)" in out
    code, _, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 3 and "zzz-site.conf sets OLLAMA_NUM_PARALLEL=1 and sorts after zz-llmdoctor.conf" in err
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_override_conf_is_named_and_kept(cli, fake_ollama, tmp_path):
    d = tmp_path / "etc/systemd/system/ollama.service.d"
    d.mkdir(parents=True)
    original = b'[Service]\r\nEnvironment="OLLAMA_NUM_PARALLEL=2"   \r\n# keep me\r\n'
    (d / "override.conf").write_bytes(original)
    code, out, _ = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 0
    assert "override.conf sets OLLAMA_NUM_PARALLEL=2; zz-llmdoctor.conf sorts after it and wins" in out
    assert (d / "override.conf").read_bytes() == original


def test_guided_in_a_terminal_asks_explains_and_confirms(cli, fake_ollama, tmp_path, monkeypatch):
    import llmdoctor.cli.tune as tune_cmd

    monkeypatch.setattr(tune_cmd, "_interactive", lambda: True)
    code, out, err = cli("tune", "ollama", "--port", str(fake_ollama), "--root", str(tmp_path), "--gpu-memory",
                         "24GB", "--apply", input="chat\n20\n12\n78\ny\n")
    assert code == 0, out + err
    assert "How many people use it at the busiest time?" in out
    assert "20 users × 12 s per answer ÷ (12 s answer + 78 s pause) per turn = 2.7 in flight" in out
    assert "5 slots cover the number in flight 90 % of the time" in out
    assert "Write /etc/systemd/system/ollama.service.d/zz-llmdoctor.conf and restart ollama.service?" in out
    assert 'Environment="OLLAMA_NUM_PARALLEL=4"' in dropin.dropin_path(tmp_path, "ollama.service").read_text()
    assert "tune's sizing alone would set 5" in out  # diagnose's value is written, the difference said


def test_declining_the_confirmation_writes_nothing(cli, fake_ollama, tmp_path, monkeypatch):
    import llmdoctor.cli.tune as tune_cmd

    monkeypatch.setattr(tune_cmd, "_interactive", lambda: True)
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", input="n\n")
    assert code == 3 and "not applied" in err
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_no_ollama_answering_is_bad_input(cli, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = tune(cli, port, tmp_path, *SEED)
    assert code == 3 and f"Ollama does not answer on port {port}" in err and "connection refused" in err


def test_dry_run_from_an_evidence_directory(cli):
    from .conftest import REPO

    d = REPO / "tests/fixtures/evidence/ollama-kv-capacity"
    code, out, err = cli("tune", "ollama", "--evidence", str(d), "--concurrent", "4")
    assert code == 0, err
    assert "on Ollama 0.11.6" in out and "OLLAMA_NUM_PARALLEL    1 (default) → 4" in out
    assert "Dry run: nothing was changed" in out
    code, _, err = cli("tune", "ollama", "--evidence", str(d), "--concurrent", "4", "--apply", "--yes")
    assert code == 3 and "dry run" in err


def test_ctrl_c_inside_apply_exits_130_restores_and_says_what_was_cut(cli, fake_ollama, tmp_path, monkeypatch):
    """Ctrl-C while `tune ollama --apply` writes the drop-in (issue 27, item 4): exit 130, the outcome
    names the interruption and the restored state, no drop-in is left, and the line the command
    prints as it exits says what was cut (llmdoctor.steps.cut)."""
    from llmdoctor import steps
    from llmdoctor.app.tune import apply as tune_apply

    real_replace, calls = tune_apply.system_files.replace, []

    def interrupted(path, content):
        calls.append(path)
        if len(calls) == 1:  # the new drop-in: Ctrl-C mid-write
            raise KeyboardInterrupt
        return real_replace(path, content)

    monkeypatch.setattr(tune_apply.system_files, "replace", interrupted)
    monkeypatch.setattr(steps, "CUT", "", raising=False)
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 130, out + err
    assert "interrupted (Ctrl-C) before the new values were verified" in out
    assert "Traceback" not in out + err
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()  # there was none before
    assert steps.CUT.startswith("interrupted (Ctrl-C)")
