"""`systemctl show`, /proc/PID/environ, EnvironmentFile= and shell start-up files (pure)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmdoctor.parsing import ParseError
from llmdoctor.knowledge.systemd.environ import (
    parse_env_file,
    parse_etc_environment,
    parse_proc_environ,
    parse_shell_settings,
)
from llmdoctor.knowledge.systemd.show import parse_show

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "systemd"
EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"


def test_show_need_reload_recorded():
    r = parse_show((FIX / "show_need_reload.txt").read_text())
    assert r.need_daemon_reload is True
    assert r.env == {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                     "OLLAMA_NUM_PARALLEL": "4", "OLLAMA_KEEP_ALIVE": "30m"}
    assert r.fragment_path == "/etc/systemd/system/ollama.service"
    assert r.dropin_paths == ("/etc/systemd/system/ollama.service.d/override.conf",)
    assert r.main_pid and r.main_pid > 1
    assert r.user == "ollama" and r.load_state == "loaded"
    assert r.active_since and r.active_since.endswith("UTC")
    assert not r.plain


def test_show_quoting_recorded_matches_the_process_environment():
    """What `systemctl show` printed and what the process got, both from real systemd."""
    r = parse_show((FIX / "show_quoting.txt").read_text())
    proc = parse_proc_environ((FIX / "environ_quoting.bin").read_bytes())
    assert r.env
    for name, value in r.env.items():
        assert proc[name] == value, name
    assert r.env["A"] == 'x"y' and r.env["B"] == "$HOME" and r.env["C"] == "back\\slash"
    assert r.env["D"] == "tab\there" and r.env["M"] == "new\nline" and r.env["G"] == "a  b"
    assert r.env["E"] == "é" and r.env["F"] == "" and r.env["H"] == "100%"


def test_show_other_lines():
    r = parse_show("MainPID=0\nEnvironment=\nFragmentPath=\nDropInPaths=\nActiveEnterTimestamp=\n"
                   "LoadState=not-found\nNeedDaemonReload=no\n")
    assert (r.env, r.main_pid, r.fragment_path, r.dropin_paths, r.active_since, r.load_state,
            r.need_daemon_reload) == ({}, None, None, (), None, "not-found", False)
    r = parse_show("EnvironmentFiles=/etc/ollama.env (ignore_errors=yes)\nEnvironmentFiles=/etc/b.env (ignore_errors=no)\n")
    assert r.environment_files == ("/etc/ollama.env", "/etc/b.env") and r.env is None
    # the full `systemctl show` dump has many other properties: ignored
    r = parse_show("Type=simple\nRestart=always\nEnvironment=A=1\nLimitCPU=infinity\n")
    assert r.env == {"A": "1"}


def test_show_plain_lines():
    r = parse_show("# pasted by hand\nOLLAMA_NUM_PARALLEL=4\nexport OLLAMA_HOST=0.0.0.0\n\"OLLAMA_ORIGINS=a b\" X=1\n")
    assert r.plain
    assert r.env == {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_HOST": "0.0.0.0", "OLLAMA_ORIGINS": "a b", "X": "1"}
    assert r.need_daemon_reload is None and r.main_pid is None


@pytest.mark.parametrize("text", ["", "hello world\n", "[Service]\n", "=\n==\n", "\0\0\0"])
def test_show_garbage_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_show(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_show_garbage_never_crashes(text):
    try:
        parse_show(text)
    except ParseError as e:
        assert str(e)


def test_proc_environ():
    data = (EVIDENCE / "config-healthy" / "files" / "proc").glob("*/environ")
    env = parse_proc_environ(next(data).read_bytes())
    assert env["OLLAMA_NUM_PARALLEL"] == "4" and env["HOME"] == "/usr/share/ollama"
    assert parse_proc_environ(b"A=1\0A=2\0junk\0=x\0B=\0") == {"A": "1", "B": ""}
    assert parse_proc_environ(b"A=1\nB=2\n") == {"A": "1", "B": "2"}  # tr '\0' '\n' copy


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_proc_environ_garbage(data):
    assert isinstance(parse_proc_environ(data), dict)


def test_env_file():
    text = ('# comment\n; comment\nOLLAMA_HOST=0.0.0.0\nOLLAMA_ORIGINS="a b"\nexport NOPE=1\nbad line\n'
            "LONG=one\\\ntwo\nQ='single'\n")
    got = {s.name: (s.value, s.lineno) for s in parse_env_file(text, "/etc/ollama.env")}
    assert got == {"OLLAMA_HOST": ("0.0.0.0", 3), "OLLAMA_ORIGINS": ("a b", 4), "LONG": ("onetwo", 7),
                   "Q": ("single", 9)}


def test_shell_settings():
    text = """# ~/.bashrc
export OLLAMA_HOST=0.0.0.0
export OLLAMA_ORIGINS="*" OLLAMA_KEEP_ALIVE='24h'
OLLAMA_MODELS=/srv/models; export OLLAMA_MODELS
declare -x OLLAMA_NUM_PARALLEL=4
if [ -d /opt ]; then export CUDA_VISIBLE_DEVICES=0,1; fi
OLLAMA_DEBUG=1 ollama serve
alias o='OLLAMA_HOST=x ollama'
setenv VLLM_PORT 8001
set -gx LLAMA_ARG_N_PARALLEL 4
export BROKEN="unterminated
"""
    got = [(s.name, s.value, s.lineno) for s in parse_shell_settings(text, "/root/.bashrc")]
    assert got == [
        ("OLLAMA_HOST", "0.0.0.0", 2),
        ("OLLAMA_ORIGINS", "*", 3), ("OLLAMA_KEEP_ALIVE", "24h", 3),
        ("OLLAMA_MODELS", "/srv/models", 4),
        ("OLLAMA_NUM_PARALLEL", "4", 5),
        ("CUDA_VISIBLE_DEVICES", "0,1", 6),
        ("VLLM_PORT", "8001", 9),
        ("LLAMA_ARG_N_PARALLEL", "4", 10),
        ("BROKEN", '"unterminated', 11),
    ]


def test_etc_environment():
    got = parse_etc_environment('PATH="/usr/bin:/bin"\nOLLAMA_HOST=0.0.0.0\n# x\nnot an assignment\n')
    assert [(s.name, s.value) for s in got] == [("PATH", "/usr/bin:/bin"), ("OLLAMA_HOST", "0.0.0.0")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_shell_garbage_never_crashes(text):
    parse_shell_settings(text, "/x")
    parse_etc_environment(text)
    parse_env_file(text, "/x")
