"""knowledge/env_forms.py: the form of a line decides whether the server sees the value; some
lines assign nothing at all (real lines from ollama#5722, #9452, #2940, #7892, #6839)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.env_forms import assignments_in, launches_engine, unit_file_assignments


def one(text: str, **kw):
    [a] = assignments_in(text, "t", **kw)
    return a


def test_forms():
    assert one("export OLLAMA_MODELS=/path/to/models/\n").form == "export"
    assert one("OLLAMA_CONTEXT_LENGTH=32768\n", listing=True).form == "listing"
    assert one("OLLAMA_CONTEXT_LENGTH=32768\n").form == "shell"
    assert one("OLLAMA_NUM_PARALLEL=4 ollama serve\n").form == "env-prefix"
    assert one('Environment="OLLAMA_HOST=0.0.0.0"\n').form == "systemd"
    assert one("setx OLLAMA_NUM_PARALLEL 4\n").value == "4"
    assert one('$env:OLLAMA_HOST="0.0.0.0:11434"\n').form == "powershell"
    assert one('launchctl setenv OLLAMA_HOST "0.0.0.0"\n').value == "0.0.0.0"
    assert one("docker run -d --gpus=all -e OLLAMA_KEEP_ALIVE=1h ollama/ollama\n").form == "docker"
    a = one("services:\n  ollama:\n    environment:\n      - OLLAMA_NUM_PARALLEL=4\n    ports:\n      - 11434:11434\n")
    assert (a.form, a.value) == ("compose", "4")
    assert one("environment:\n  OLLAMA_HOST: \"0.0.0.0\"\n").value == "0.0.0.0"
    assert one("env:\n- name: OLLAMA_NUM_PARALLEL\n  value: \"4\"\n").form == "kubernetes"
    assert assignments_in("export PATH=/usr/bin\nHOME=/root\n", "t") == []  # not engine variables


def test_lines_that_assign_nothing():
    a = one("export OLLAMA_NUM_PARALLEL:10\n")  # ollama#5722
    assert a.value is None and "not a valid identifier" in a.problem and a.intended == "10"
    assert one("export OLLAMA_HOST = 0.0.0.0\n").problem
    a = one("set OLLAMA_HOST = 0.0.0.0\n")
    assert "'OLLAMA_HOST '" in a.problem and a.intended == "0.0.0.0"
    a = one("Environment=“OLLAMA_HOST=0.0.0.0:11434”\n")  # ollama#7892
    assert "typographic" in a.problem and a.intended == "0.0.0.0:11434"
    assert one("setx OLLAMA_KEEP_ALIVE=-1\n").problem


def test_a_script_that_starts_the_server():
    script = "export OLLAMA_MAX_LOADED_MODELS:2\nexport OLLAMA_KEEP_ALIVE:60m\n\n/bin/ollama serve\n"
    assert launches_engine(script) == "/bin/ollama serve"
    assert launches_engine("export OLLAMA_HOST=0.0.0.0\n") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_garbage_never_raises(text):
    assignments_in(text, "g")
    assignments_in("environment:\n" + text, "g", listing=True)
    launches_engine(text)


def test_a_drop_in_read_alone():
    [a] = unit_file_assignments('Environment="OLLAMA_NUM_PARALLEL=4"\n', "dropins/override.conf")
    assert a.value is None and "before any section header" in a.problem and a.intended == "4"
    [a] = unit_file_assignments('[Unit]\nEnvironment="OLLAMA_NUM_PARALLEL=4"\n', "d")
    assert "in [Unit]" in a.problem
    [a] = unit_file_assignments('[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=4"\n', "d")
    assert (a.value, a.problem) == ("4", None)


def test_literal_pre_tests_change_no_match():
    """Each pattern of assignments_in is tried only on lines that start (or hold) what its
    matches do: on every fixture line, stripped as assignments_in strips it, and on lines made
    to match, the pre-test never turns a match away."""
    from pathlib import Path

    from llmdoctor.knowledge import env_forms as E

    made = [line.replace("A", "OLLAMA_NUM_PARALLEL") for line in (
        "Environment=A=1", "export A=x", "declare -x A=1", "SET A=1", "ſet A=1", "setx A 1", "SETX.exe A 1",
        "$env:A='x'", "$ENV:A=1", "[Environment]::SetEnvironmentVariable('A', '2', 'User')", "launchctl setenv A 1",
        "docker run -e A=1 img", "podman create x")]
    root = Path(__file__).resolve().parents[1] / "fixtures"
    lines = made + [l.strip() for p in sorted(root.rglob("*")) if p.is_file() and p.stat().st_size < 4_000_000
                    for l in p.read_bytes().decode("utf-8", "replace").splitlines()]
    tests = [(E._SYSTEMD, lambda l: l.startswith("Environment")),
             (E._EXPORT, lambda l: l.startswith(("export", "declare", "typeset"))),
             (E._CMD_SET, lambda l: l[:3].casefold() == "set"), (E._SETX, lambda l: l[:3].casefold() == "set"),
             (E._PWSH, lambda l: l.startswith("$")), (E._LAUNCHCTL, lambda l: l.startswith("launchctl"))]
    for line in lines:
        for pattern, pre in tests:
            assert pre(line) or not pattern.match(line), (pattern, line)
        assert "(" in line or not E._DOTNET.search(line), line
        assert any(w in line for w in ("docker", "podman", "nerdctl")) or not E._DOCKER_RUN.search(line), line
    assert len(E.assignments_in("\n".join(made), "x")) >= 10


def test_cmd_set_keeps_quotes_in_the_value():
    # cmd.exe's `set` takes everything after '=' as it is; `set "NAME=value"` quotes the assignment
    a = one('set LLAMA_ARG_CTX_SIZE="8192"\n')
    assert (a.form, a.value, a.intended) == ("cmd-set", '"8192"', "8192") and "keeps the quotes" in a.problem
    assert one('set "LLAMA_ARG_CTX_SIZE=8192"\n').value == "8192" and one('set "LLAMA_ARG_CTX_SIZE=8192"\n').problem is None
    assert one("set VLLM_HOST_IP='10.0.0.2'\n").value == "'10.0.0.2'"
    # Ollama trims quotes from its variables itself (envconfig.Var: strings.Trim(..., "\"'"), since 0.2.0)
    a = one('set OLLAMA_HOST="0.0.0.0"\n')
    assert (a.value, a.problem) == ("0.0.0.0", None)
    assert one("SET /A OLLAMA_NUM_PARALLEL=4\n").value == "4"


def test_kept_quotes_are_reported_with_the_value_the_server_reads():
    from llmdoctor.checks.config_assignment_ignored import assignment_ignored
    from llmdoctor.facts.declared import DeclaredSettings

    a = one('set LLAMA_ARG_HOST="0.0.0.0"\n')
    (f,) = assignment_ignored(DeclaredSettings((a,), {}), None)
    assert '"0.0.0.0"' in f.title and "quotes" in f.title
    assert "set LLAMA_ARG_HOST=0.0.0.0" in f.fix.commands
