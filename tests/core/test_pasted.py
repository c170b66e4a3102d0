"""Pasted evidence: prompts, fences, colour codes, CRLF and quote markers are removed."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.pasted import normalize_pasted

# samples.md 1b (attogram/ollama-bash-lib demo), as a user would paste it into a ticket
OLLAMA_PS = (
    "NAME          ID              SIZE      PROCESSOR          CONTEXT    UNTIL              \n"
    "mistral:7b    6577803aa9a0    8.3 GB    13%/87% CPU/GPU    16384      4 minutes from now    \n"
)


def test_prompt_fence_crlf_ansi():
    pasted = "```\r\nuser@gpu-box:~$ ollama ps\r\n" + OLLAMA_PS.replace("\n", "\r\n").replace("13%/87%", "\x1b[1m13%/87%\x1b[0m") + "```\r\n"
    assert normalize_pasted(pasted).strip("\n") == OLLAMA_PS.strip("\n")


def test_quoted_reply():
    quoted = "".join(f"> {l}\n" for l in OLLAMA_PS.splitlines())
    assert normalize_pasted(quoted).strip("\n") == OLLAMA_PS.strip("\n")


def test_sudo_and_root_prompts():
    text = "root@box:/# sudo journalctl -u ollama --no-pager\nAug 08 23:02:37 j-360 ollama[1617]: msg\n"
    assert normalize_pasted(text) == "Aug 08 23:02:37 j-360 ollama[1617]: msg\n"


def test_unit_file_comments_survive():
    unit = "# /etc/systemd/system/ollama.service\n[Service]\n# keep this comment\nExecStart=/usr/local/bin/ollama serve\n"
    assert normalize_pasted(unit) == unit


@given(st.text(max_size=300))
def test_never_raises_and_never_grows(text):
    assert len(normalize_pasted(text)) <= len(text)


def test_evidence_host_applies_it(tmp_path):
    (tmp_path / "ollama_ps.txt").write_text("$ ollama ps\n" + OLLAMA_PS)
    assert EvidenceHost(tmp_path).run(["ollama", "ps"]).stdout.startswith("NAME")


def test_systemctl_cat_pasted_as_unit_file(tmp_path):
    (tmp_path / "unit.service").write_text(
        "# /etc/systemd/system/ollama.service\n[Service]\nExecStart=/usr/local/bin/ollama serve\n\n"
        "# /etc/systemd/system/ollama.service.d/override.conf\n[Service]\nEnvironment=\"OLLAMA_NUM_PARALLEL=4\"\n"
    )
    host = EvidenceHost(tmp_path)
    assert host.listdir("/etc/systemd/system/ollama.service.d") == ["override.conf"]
    assert b"OLLAMA_NUM_PARALLEL=4" in host.read("/etc/systemd/system/ollama.service.d/override.conf")


def test_literal_pre_tests_change_no_match():
    """The cheap tests in front of PROMPT, FENCE, _JOURNAL, _EXCEPTION, _KUBECTL, _STAMP, _COMPOSE_STRICT and
    _DOCKER_JSON (each pattern compiled and tried only on lines that can match it) decide as the
    patterns alone do, on every line of every fixture file and on lines made to match."""
    from pathlib import Path

    from llmdoctor.knowledge import pasted as P

    made = ["$ ollama ps", "user@gpu:~$ sudo journalctl -u ollama", "PS C:\\> ollama ps", "(venv) $ python -m vllm x",
            "> k logs pod", "```text", "  ~~~", "ValueError: too long", "[pod/a-0/b] x", "2024-01-01T00:00:00Z x",
            "ollama  | msg", '{"log":"x\\n"}', "[rank0]: RuntimeError: x", "$ ./build/bin/llama-server -m x",
            "root@h:/# sudo -n systemctl cat ollama", "5月 21 17:49:23 host ollama[1576]: x",
            "Dec 01 21:00:00 gpu-box ollama[1]: x", "1700000000.123456 host ollama[1]: x",
            "Mon 2024-01-01 00:00:00 UTC host x: y", "2024-01-01T00:00:00.5+0000 host ollama[1]: x"]
    made += [f"$ {c} x" for c in ("journalctl", "systemctl", "nvidia-smi", "amd-smi", "rocm-smi", "vmstat", "cat", "curl",
                                  "docker", "podman", "tail", "head", "grep", "less", "vllm", "sglang", "free", "wget",
                                  "http", "kubectl", "oc logs", "k get", "python3 -m sglang")]
    root = Path(__file__).resolve().parents[1] / "fixtures"
    lines = made + [l for p in sorted(root.rglob("*")) if p.is_file() and p.stat().st_size < 4_000_000
                    for l in p.read_bytes().decode("utf-8", "replace").split("\n")]
    for line in lines:
        assert P._is_prompt(line) == bool(P.PROMPT.match(line)), line
        assert P._is_fence(line) == bool(P.FENCE.match(line)), line
        assert bool(P._journal(line)) == bool(P._JOURNAL.match(line)), line
        assert P._is_exception(line) == bool(P._EXCEPTION.match(line)), line
        assert bool(line.startswith("[") and P._KUBECTL.match(line)) == bool(P._KUBECTL.match(line)), line
        assert bool(line[:1].isdigit() and P._STAMP.match(line)) == bool(P._STAMP.match(line)), line
        bare = line.lstrip(" ")
        assert bool(" | " in line and P._COMPOSE_STRICT.match(bare)) == bool(P._COMPOSE_STRICT.match(bare)), line
        assert bool(line.startswith('{"') and P._DOCKER_JSON.match(line)) == bool(P._DOCKER_JSON.match(line)), line
    assert sum(P._is_prompt(l) for l in made) >= 7 and sum(P._is_fence(l) for l in made) == 2
    assert sum(bool(P._journal(l)) for l in made) >= 5


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["$", "#", "%", ">", " ", "  ", "\t", "(venv)", "PS C:\\", "user@gpu:~", "[1]", "sudo",
                                 "-n", "ollama", "cat", "k", "logs", "oc", "get", "./bin/llama-server", "python3 -m vllm",
                                 "May", "5月", "21", "17:49:23", "2024-01-01", "T", "00:00:00", ".5", "Z", "1700000000",
                                 ".123", "host", "ollama[1]:", "UTC", "x"]), max_size=14).map("".join))
def test_prompt_and_journal_pre_tests_on_made_lines(line):
    from llmdoctor.knowledge import pasted as P

    assert P._is_prompt(line) == bool(P.PROMPT.match(line)), line
    assert bool(P._journal(line)) == bool(P._JOURNAL.match(line)), line
