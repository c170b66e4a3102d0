"""Issue 16, part 3: no user-supplied operand is ever read as an option, a unit name is
checked against systemd's rules before any use, and the tuner never writes outside --root."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from llmdoctor.app.tune import dropin
from llmdoctor.app.tune.apply import ApplyError, Transaction
from llmdoctor.hosts.base import CommandResult, HostError
from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit

REPO = Path(__file__).resolve().parents[2]
HOSTILE = ["-Hlocalhost/x", "--host=evil", "../../x", "a/b.service", "a\nb", "a b", "x" * 300, "",
           ".service", "@.service", "a@b@c.service", "ollama.service\n", "ol$lama", "ollama;id"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_unit_names_are_refused(name):
    with pytest.raises(BadUnitName):
        check_unit(name)


@pytest.mark.parametrize("name,unit", [("ollama", "ollama.service"), ("ollama.service", "ollama.service"),
                                       ("vllm@gpu0.service", "vllm@gpu0.service"), ("dev-sda.device", "dev-sda.device"),
                                       ("llama\\x2dserver", "llama\\x2dserver.service"), ("a:b_c.socket", "a:b_c.socket")])
def test_systemd_unit_names_pass_normalized(name, unit):
    assert check_unit(name) == unit


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), LLMDOCTOR_QUIET="1")
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True,
                          timeout=60, env=env, cwd=cwd)


@pytest.mark.parametrize("argv", [
    ["diagnose", "--unit=-Hlocalhost/x", "--sample-seconds", "0"],
    ["collect", "-o", "OUT", "--unit", "a\nb"],
    ["exporter", "--once", "--textfile", "m.prom", "--unit=-Hx"],
    ["tune", "ollama", "--unit", "../../x", "--root", "ROOT", "--apply", "--yes"],
])
def test_every_command_refuses_a_bad_unit_in_one_line_exit_3(tmp_path, argv):
    argv = [a.replace("OUT", str(tmp_path / "out")).replace("ROOT", str(tmp_path / "root")) for a in argv]
    r = _cli(*argv, cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "unit name" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "root").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written anywhere


class Recorder:
    """A live host that records every argv and answers nothing useful."""

    name = "rec"
    kind = "live"
    recorded = False
    partial = False
    problems: list = []

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def kept(self, what):
        return ()

    def observe(self, live, recall):
        return live()

    def run(self, argv, timeout=10.0):
        self.calls.append(list(argv))
        return CommandResult(tuple(argv), 1, "", "no")

    def reader(self):
        return None

    def container_inspect(self):
        raise HostError("not a container")

    def read(self, path, limit=0):
        raise FileNotFoundError(path)

    def exists(self, path):
        return False

    def listdir(self, path):
        raise FileNotFoundError(path)

    def http(self, *a, **k):
        raise HostError("no http")


def _operand_guarded(argv: list[str], unit: str) -> bool:
    """The unit is after a `--`, or an option's own value (`--unit=NAME`)."""
    if f"--unit={unit}" in argv:
        return True
    return "--" in argv and argv.index("--") < argv.index(unit)


def test_systemctl_show_puts_the_unit_after_double_dash():
    from llmdoctor.facts.systemd_files import _show

    host = Recorder()
    _show(host, "ollama.service")
    assert host.calls and _operand_guarded(host.calls[0], "ollama.service")
    host = Recorder()
    result, note = _show(host, "--host=evil")
    assert result is None and "unit name" in note and host.calls == []  # refused before anything ran


def test_collect_guards_every_unit_operand(tmp_path):
    from llmdoctor.app.collect import collect_evidence

    host = Recorder()
    collect_evidence(host, tmp_path / "ev", units=("ollama.service",), since_seconds=60, engines=())
    with_unit = [c for c in host.calls if "ollama.service" in " ".join(c)]
    assert {c[0] for c in with_unit} >= {"systemctl", "journalctl"}
    for argv in with_unit:
        assert _operand_guarded(argv, "ollama.service"), argv


def test_journal_reader_validates_the_unit():
    from llmdoctor.hosts.logs.journal import JournalSource

    src = JournalSource(Recorder(), "ollama.service", backend="host")
    assert src._argv([])[1] == "--unit=ollama.service"
    with pytest.raises(HostError, match="unit name"):
        JournalSource(Recorder(), "-Hx.service", backend="host")._argv([])


def test_tuner_refuses_a_unit_that_leaves_the_root(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(ApplyError, match="unit name"):
        Transaction("../../../x", root, None, live=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"] and not any(root.iterdir())


def test_tuner_refuses_a_dropin_directory_linked_out_of_the_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "etc/systemd/system").mkdir(parents=True)
    outside.mkdir()
    (root / "etc/systemd/system/ollama.service.d").symlink_to(outside)
    with pytest.raises(ApplyError, match="outside --root"):
        Transaction("ollama.service", root, None, live=False)
    assert list(outside.iterdir()) == []


def test_tuner_commands_guard_the_unit(tmp_path):
    from tests.tune.test_apply_root import ScriptedSystemd, with_unit, CONTENT, VALUES

    with_unit(tmp_path)
    sd = ScriptedSystemd()
    Transaction("ollama.service", tmp_path, sd, live=True, ready_timeout=0.5).apply(CONTENT, VALUES)
    with_unit_calls = [c for c in sd.calls if "ollama.service" in c]
    assert with_unit_calls
    for argv in with_unit_calls:
        assert _operand_guarded(argv, "ollama.service"), argv
    assert dropin.dropin_path(tmp_path, "ollama.service").exists() is False  # the scripted run failed and restored
