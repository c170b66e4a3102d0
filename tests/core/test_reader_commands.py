"""Commands as the reader will run them (issue 27 item 3): `sudo` only where a command needs root and
the reader is not root (unknown: kept), the drop-in written by one pasteable here-document, no GPU
setting where the evidence shows no GPU, and vLLM's command and flags as its release has them."""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.judge import fixes
from llmdoctor.judge.fixes import (ALIASES, GPU_SETTINGS, as_reader, dropin, fit_host, for_audience, llama,
                                   remedy_fix, render, vllm, write_file)
from llmdoctor.knowledge.reader import Reader, parse_whoami, prompt_user
from llmdoctor.knowledge.ticket import split_ticket
from llmdoctor.knowledge.vllm.log import scan_vllm_lines
from llmdoctor.knowledge.vllm_cli import has_flag, has_serve
from llmdoctor.plugins import load_checks

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"


class Aud:
    def __init__(self, root=None, journal=None, gpu=None, vllm_version=None):
        self.root, self.journal, self.gpu, self.vllm_version = root, journal, gpu, vllm_version


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def diagnose(directory, specs):
    return diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs)


# ---- sudo --------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, user, root", [
    ("systemctl daemon-reload && systemctl restart ollama.service",
     "sudo systemctl daemon-reload && sudo systemctl restart ollama.service",
     "systemctl daemon-reload && systemctl restart ollama.service"),
    ("systemctl show ollama -p Environment", "systemctl show ollama -p Environment",
     "systemctl show ollama -p Environment"),
    ("systemctl --user restart ollama", "systemctl --user restart ollama", "systemctl --user restart ollama"),
    ("sudo systemctl enable --now nvidia-persistenced", "sudo systemctl enable --now nvidia-persistenced",
     "systemctl enable --now nvidia-persistenced"),
    ("sed -i '1i [Service]' /etc/systemd/system/ollama.service.d/x.conf",
     "sudo sed -i '1i [Service]' /etc/systemd/system/ollama.service.d/x.conf",
     "sed -i '1i [Service]' /etc/systemd/system/ollama.service.d/x.conf"),
    ("ollama ps", "ollama ps", "ollama ps"),
    ("nvidia-smi", "nvidia-smi", "nvidia-smi"),
    ("rmmod nvidia_uvm && modprobe nvidia_uvm", "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm",
     "rmmod nvidia_uvm && modprobe nvidia_uvm"),
    ("journalctl -u ollama -b | grep -E 'a|b'  # compare && see", "sudo journalctl -u ollama -b | grep -E 'a|b'  # compare && see",
     "journalctl -u ollama -b | grep -E 'a|b'  # compare && see"),
    ("cat /proc/$(systemctl show -p MainPID --value ollama)/environ", "cat /proc/$(systemctl show -p MainPID --value ollama)/environ",
     "cat /proc/$(systemctl show -p MainPID --value ollama)/environ"),
])
def test_sudo_where_the_command_needs_root_and_the_reader_is_not_root(command, user, root):
    assert as_reader(command, Aud(root=False)) == user
    assert as_reader(command, Aud()) == user  # unknown: the safe default for a copy-paste
    assert as_reader(command, Aud(root=True, journal=True)) == root


def test_a_reader_in_the_journal_groups_reads_the_journal_without_sudo():
    assert as_reader("journalctl -u ollama", Aud(root=False, journal=True)) == "journalctl -u ollama"
    who = parse_whoami("uid=1000(ann) gid=1000(ann) groups=1000(ann),4(adm)", "whoami.txt")
    assert (who.user, who.root, who.journal) == ("ann", False, True)


def test_a_here_documents_body_is_never_prefixed():
    cmd = write_file("/etc/systemd/system/x.service.d/zz.conf", "[Service]\nEnvironment=\"A=rm /etc/x && tee /etc/y\"\n")
    out = as_reader(cmd, Aud(root=False))
    first, body = out.split("\n", 1)
    assert first.startswith("sudo mkdir -p /etc/systemd/system/x.service.d && sudo tee /etc/")
    assert body == cmd.split("\n", 1)[1]


# ---- the drop-in in one command ----------------------------------------------------------------

def test_the_here_document_writes_the_drop_in_byte_for_byte(tmp_path):
    """Pasted into bash, the command writes exactly the drop-in (quotes, backslashes, `%`, `$` intact)."""
    values = {"OLLAMA_HOST": "0.0.0.0:11434", "OLLAMA_ORIGINS": 'a "b" c\\d %h $HOME `id`'}
    path = str(tmp_path / "etc" / "ollama.service.d" / "zz-llmdoctor.conf")
    subprocess.run(["bash", "-c", write_file(path, dropin("ollama", values, path_comment=False))], check=True,
                   timeout=30)
    assert Path(path).read_text() == dropin("ollama", values, path_comment=False)


def test_every_way_a_drop_in_is_applied_is_one_command_then_reload():
    for how in ("restart", "reload", "edit", "edit+reload"):
        commands, config = render(fixes.env(None, restart=how, OLLAMA_NUM_PARALLEL=4))
        assert commands[0].startswith("mkdir -p /etc/systemd/system/ollama.service.d && tee ")
        assert "<<'EOF'\n[Service]\nEnvironment=\"OLLAMA_NUM_PARALLEL=4\"\nEOF" in commands[0]
        assert commands[1] == "systemctl daemon-reload && systemctl restart ollama"
        assert fixes.writes(commands[0], config)


def test_same_commands_in_text_markdown_html_and_json(specs):
    """The merged drop-in is the one here-document in every output, and its file is not shown twice."""
    import json

    from llmdoctor.model import Report, report_to_dict
    from llmdoctor.render.html import render_html
    from llmdoctor.render.report import render_markdown, render_text

    report = Report("t", (diagnose(EVIDENCE / "ollama-keepalive-unload", specs).report,))
    change = report.targets[0].changes[0]
    heredoc = change.commands[0]
    assert heredoc.startswith("sudo mkdir -p ") and "<<'EOF'\n" in heredoc
    md, text = render_markdown(report), render_text(report, color=False, width=None)
    assert heredoc in md and md.count("Environment=\"OLLAMA_KEEP_ALIVE=24h\"") == 1
    assert "\n".join(["[Service]", 'Environment="OLLAMA_KEEP_ALIVE=24h"', "EOF"]) in text
    assert text.count('Environment="OLLAMA_KEEP_ALIVE=24h"') == 1
    assert json.loads(json.dumps(report_to_dict(report)))["targets"][0]["what_to_change"][0]["commands"][0] == heredoc
    from html import escape

    html = render_html(report)  # the merged change's here-document, once
    assert html.count(escape(heredoc)) == 1
    assert '<pre class="config">' not in html  # the here-document is the file


# ---- who reads: a pasted ticket's prompt, this machine's user ---------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("user@gpu:~$ sudo journalctl -u ollama", ("user", False)),
    ("root@box:/# nvidia-smi", ("root", True)),
    ("[ann@rhel ~]$ ollama ps", ("ann", False)),
    ("$ ollama ps", ("", False)),
    ("PS C:\\> ollama ps", ("windows", None)),
    ("# a comment", None),
    ('Environment="OLLAMA_HOST=0.0.0.0"', None),
])
def test_prompt_user(line, expected):
    assert prompt_user(line) == expected


def _ticket_evidence(tmp_path, prompt: str) -> Path:
    """config-no-restart's files pasted as one ticket at `prompt`, split as `diagnose -e ticket.txt` splits it."""
    src = EVIDENCE / "config-no-restart"
    ev = tmp_path / prompt.split("@")[0]
    shutil.copytree(src, ev)
    for name, text in split_ticket(f"{prompt} ollama ps\n{(src / 'ollama_ps.txt').read_text()}"
                                   if (src / "ollama_ps.txt").exists() else f"{prompt} ollama ps\n").items():
        if name == "whoami.txt":
            (ev / name).write_text(text)
    return ev


@pytest.mark.parametrize("prompt, sudo", [("user@box:~$", True), ("root@box:/#", False)])
def test_a_pasted_tickets_prompt_decides_sudo(tmp_path, specs, prompt, sudo):
    ev = _ticket_evidence(tmp_path, prompt)
    assert (ev / "whoami.txt").read_text() == ("user\n" if sudo else "root\n")
    report = diagnose(ev, specs).report
    commands = [c for f in report.findings for c in f.fix.commands] + [c for ch in report.changes for c in ch.commands]
    restarts = [c for c in commands if "systemctl restart" in c]
    assert restarts, commands
    assert all(c.startswith("sudo ") == sudo for c in restarts), restarts


def test_without_a_prompt_or_whoami_sudo_stays(specs):
    report = diagnose(EVIDENCE / "config-no-restart", specs).report
    restarts = [c for f in report.findings for c in f.fix.commands if "systemctl restart" in c]
    assert restarts and all(c.startswith("sudo ") for c in restarts)


def test_whoami_garbage_says_nothing():
    assert parse_whoami("\x00\x01 !!", "whoami.txt") is None
    assert parse_whoami("", "whoami.txt") is None


_AS_READER = ("from llmdoctor.facts import Context, FactStore; from llmdoctor.hosts.local import LocalHost; "
              "from llmdoctor.judge.fixes import as_reader; r = FactStore(Context(LocalHost())).get('reader'); "
              "print(r.user, r.root, as_reader('systemctl restart ollama', r))")


def test_a_run_as_this_user_and_as_a_non_root_user():
    """The local reader is the user running llmdoctor: run as root and as `nobody` (setpriv)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    mine = subprocess.run([sys.executable, "-c", _AS_READER], capture_output=True, text=True, env=env, timeout=60)
    assert mine.returncode == 0, mine.stderr
    root = os.geteuid() == 0
    assert mine.stdout.split()[1] == str(root)
    assert mine.stdout.strip().endswith(("systemctl restart ollama" if root else "sudo systemctl restart ollama"))
    if not root:
        pytest.skip("not root: cannot run as another user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", _AS_READER],
                       capture_output=True, text=True, env=env, timeout=60, cwd="/")
    if p.returncode != 0 and "Permission denied" in p.stderr:
        pytest.skip(f"nobody cannot read the checkout: {p.stderr.strip()[-200:]}")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[1] == "False"
    assert p.stdout.strip().endswith(" sudo systemctl restart ollama")


def test_ssh_login_decides():
    from llmdoctor.hosts.ssh import SSHHost

    assert SSHHost("root@gpu1").reader().root is True
    assert SSHHost("ann@gpu1").reader().root is False
    assert SSHHost("gpu1", sudo=True).reader().root is False
    assert SSHHost("gpu1").reader() is None  # the login ssh_config picks: unknown, sudo kept


# ---- no GPU flag without a GPU -------------------------------------------------------------------

GPU_WORDS = re.compile(r"(?<![\w-])(" + "|".join(re.escape(g) for g in sorted(
    GPU_SETTINGS | {k for k, v in ALIASES.items() if v in GPU_SETTINGS}, key=len, reverse=True)) + r")(?![\w=-])")


def test_a_host_without_a_gpu_gets_no_gpu_setting():
    fix = remedy_fix("Offload and size the context.", llama({"-ngl": 999, "-c": 8192}))
    fitted = fit_host(fix, Aud(gpu=False))
    line, note = fitted.commands[0].split("  # ", 1)
    assert line == "llama-server -m MODEL -c 8192"
    assert note == "-ngl left out: no GPU on this host"
    assert [s.name for s in fitted.remedy.settings] == ["-c"]  # so the merge never sees it either
    assert fit_host(fix, Aud(gpu=None)) == fix  # unknown: kept
    only = fit_host(remedy_fix("Offload.", llama({"-ngl": 999})), Aud(gpu=False))
    assert only.commands[0].startswith("# nothing to set") and only.remedy.settings == ()


def test_gpu_less_fixtures_have_no_gpu_flag(specs):
    """Every evidence fixture whose evidence says the host has no GPU: no GPU flag or variable in any
    fix or merged change (and the fact names the line that says so)."""
    gpu_less = []
    for d in sorted(glob.glob(str(EVIDENCE / "*" / ""))):
        found = FactStore(Context(EvidenceHost(d), sample_seconds=0)).optional("host_gpu")
        if found is not None and found[0] is False:
            assert found[1]
            gpu_less.append(d)
    assert len(gpu_less) >= 3, gpu_less  # ollama-cpu-only-host, ollama-gpu-lost, ollama-gpu-rejected
    for d in gpu_less:
        report = diagnose(d, specs).report
        texts = ([c for f in report.findings for c in f.fix.commands] + [f.fix.config for f in report.findings]
                 + [c for ch in report.changes for c in ch.commands] + [ch.config for ch in report.changes])
        assert [m.group(1) for t in texts for m in GPU_WORDS.finditer(t)] == [], d


def test_a_gpu_host_says_so(specs):
    found = FactStore(Context(EvidenceHost(EVIDENCE / "gpu-table-595"), sample_seconds=0)).optional("host_gpu")
    assert found == (True, "nvidia_smi.txt: 1 GPU(s)")


# ---- vLLM's command and flags by release -----------------------------------------------------------

def test_vllm_serve_first_in_0_5_2_and_flags_by_release():
    assert has_serve("0.5.1") is False and has_serve("0.5.2") is True and has_serve(None) is None
    assert has_flag("0.3.3", "--enable-prefix-caching") is False
    assert has_flag("0.4.1", "--enable-prefix-caching") is True
    assert has_flag("0.4.0", "--enable-prefix-caching") is None  # between the releases checked: no claim
    assert has_flag("0.2.7", "--kv-cache-dtype") is False and has_flag("0.2.7", "--max-num-seqs") is True


def test_an_old_vllm_gets_the_api_server_form_and_only_its_flags():
    fix = remedy_fix("More sequences, prefix caching.", vllm(None, max_num_seqs=64, enable_prefix_caching=""))
    old = for_audience(fix, Aud(vllm_version="0.3.3"))
    assert old.commands[0] == ("python -m vllm.entrypoints.openai.api_server --model MODEL --max-num-seqs 64"
                               "  # --enable-prefix-caching left out: not in vLLM 0.3.3")
    mid = for_audience(fix, Aud(vllm_version="0.4.3"))
    assert mid.commands[0] == "python -m vllm.entrypoints.openai.api_server --model MODEL --max-num-seqs 64 --enable-prefix-caching"
    new = for_audience(fix, Aud(vllm_version="0.6.6.post1"))
    assert new.commands[0] == "vllm serve MODEL --max-num-seqs 64 --enable-prefix-caching"
    assert for_audience(fix, Aud()).commands == fix.commands


def test_the_vllm_version_is_read_from_its_start_up_lines(tmp_path, specs):
    def release(*lines):
        return scan_vllm_lines(lines).release

    assert release("INFO 06-01 12:00:00 api_server.py:177] vLLM API server version 0.4.3") == "0.4.3"
    assert release("INFO 08-01 llm_engine.py:175] Initializing an LLM engine (v0.5.4) with config: model=x") == "0.5.4"
    assert release("INFO 02-20 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model=x") == "0.7.2"
    assert release("vLLM API server version 0.4.3", "Initializing a V1 LLM engine (v0.11.0) with config: x") == "0.11.0"
    assert release("INFO 06-01 12:00:00 api_server.py:177] vLLM API server version") is None
    # a recorded vLLM whose fix is a command line: with a 0.4.3 start-up line, the module form
    ev = tmp_path / "ev"
    shutil.copytree(EVIDENCE / "vllm-kv-concurrency", ev)
    log = ev / "vllm.log"
    log.write_text("INFO 06-01 12:00:00 api_server.py:177] vLLM API server version 0.4.3\n" + log.read_text())
    report = diagnose(ev, specs).report
    lines = [c for f in report.findings for c in f.fix.commands] + [c for ch in report.changes for c in ch.commands]
    assert any(c.startswith("python -m vllm.entrypoints.openai.api_server") for c in lines), lines
    assert not any(c.startswith("vllm serve") for c in lines), lines


def test_reader_record_is_a_value():
    assert Reader("ann", False, None, "x") == Reader("ann", False, None, "x")


def test_a_scripted_collect_as_a_non_root_user_gives_sudo_in_the_bundles_fixes(tmp_path):
    """Issue 27's non-root run, end to end: `llmdoctor collect` run as `nobody` (setpriv) records
    whoami.txt, and a diagnosis of a bundle holding it prints the merged drop-in's commands with
    `sudo`; the same bundle with root's `id` prints them without."""
    if os.geteuid() != 0:
        pytest.skip("not root: cannot run as another user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="llmdoctor-nobody-"))  # (pytest's tmp_path is root's alone)
    home.chmod(0o777)
    out = home / "bundle"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", HOME=str(home))
    try:
        p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                            "llmdoctor", "collect", "-o", str(out)], capture_output=True, text=True, env=env, timeout=120,
                           cwd="/")
        kept = (out / "whoami.txt").read_text() if p.returncode == 0 else ""
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if p.returncode != 0 and "Permission denied" in p.stderr:
        pytest.skip(f"nobody cannot read the checkout: {p.stderr.strip()[-200:]}")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert kept.startswith("uid=65534(") and "groups=" in kept, kept
    for who, sudo in ((kept, True), ("uid=0(root) gid=0(root) groups=0(root)\n", False)):
        ev = tmp_path / f"ev-{sudo}"
        shutil.copytree(EVIDENCE / "ollama-keepalive-unload", ev)
        (ev / "whoami.txt").write_text(who)
        d = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--evidence", str(ev), "--format", "json"],
                           capture_output=True, text=True, env=env, timeout=120)
        (change,) = json.loads(d.stdout)["targets"][0]["what_to_change"]
        assert all(c.startswith("sudo ") == sudo for c in change["commands"] if "systemctl" in c or "tee " in c), change
