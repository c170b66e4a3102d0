"""The keep-list: every secret of the corpus, planted under an innocent name (neither a secret's
name nor a setting's) in every structure evidence has, is withheld with its name kept; the
settings the diagnosis reads keep their values; error messages keep their words."""
from __future__ import annotations

import json

import pytest

from llmdoctor.settings_names import is_setting_flag, is_setting_variable
from llmdoctor.redact import REDACTED, redact_fix, redact_text
from llmdoctor.redact_struct import plain, withheld
from tests.core.secrets_corpus import ORDINARY, SECRETS, SOURCES

VALUES = sorted({s.leaks[0] for s in SECRETS if " " not in s.leaks[0] and "\n" not in s.leaks[0]})
ENV, FLAG = "MYAPP_UPSTREAM", "upstream-ref"

# (structure, planter): the planter puts `value` under the env name or the flag name
STRUCTURES = {
    "env listing": lambda v: f"{ENV}={v}\nOLLAMA_KEEP_ALIVE=5m\n",
    "proc environ": lambda v: f"PATH=/usr/bin\0{ENV}={v}\0HOME=/root\0",
    "unit Environment= quoted": lambda v: f'Environment="{ENV}={v}" "OLLAMA_NUM_PARALLEL=4"',
    "unit Environment= bare": lambda v: f"Environment={ENV}={v} OLLAMA_NUM_PARALLEL=4",
    "unit quoted two words": lambda v: f'Environment="{ENV}={v} second"',
    "export": lambda v: f"export {ENV}='{v}'",
    "container Env": lambda v: json.dumps({"Config": {"Env": ["PATH=/usr/bin", f"{ENV}={v}"]}}, indent=2),
    "compose list": lambda v: f"services:\n  ollama:\n    environment:\n      - {ENV}={v}\n",
    "compose map": lambda v: f"services:\n  ollama:\n    environment:\n      {ENV}: {v}\n",
    "compose map quoted": lambda v: f'    environment:\n      {ENV}: "{v}"\n',
    "pod env yaml": lambda v: f"env:\n- name: {ENV}\n  value: {v}\n",
    "pod env value first": lambda v: f'env:\n- value: "{v}"\n  name: {ENV}\n',
    "pod env json": lambda v: json.dumps({"env": [{"name": ENV, "value": v}]}),
    "pod env json value first": lambda v: json.dumps({"env": [{"value": v, "name": ENV}]}),
    "describe Environment": lambda v: f"    Environment:\n      {ENV}:  {v}\n      OLLAMA_HOST:  0.0.0.0\n",
    "argv": lambda v: f"vllm serve Qwen/Qwen3-8B --{FLAG} {v} --port 8000",
    "argv equals": lambda v: f"llama-server -m /m.gguf --{FLAG}={v} -c 4096",
    "argv quoted two words": lambda v: f'vllm serve m --{FLAG} "{v} two" --port 1',
    "argv shell-quoted whole": lambda v: f"sglang '--{FLAG}={v} two' --port 1",
    "argv continued": lambda v: f"vllm serve m \\\n  --{FLAG} \\\n  {v} \\\n  --port 8000",
    "proc cmdline": lambda v: f"vllm\0serve\0m\0--{FLAG}\0{v}\0--port\08000\0",
    "json list": lambda v: json.dumps(["vllm", "serve", "m", f"--{FLAG}", v, "--port", "8000"]),
    "json list equals": lambda v: json.dumps(["vllm", f"--{FLAG}={v}"]),
    "python repr": lambda v: repr(["--model", "m", f"--{FLAG}", v]),
    "yaml args list": lambda v: f"      args:\n        - --model\n        - m\n        - --{FLAG}\n        - {v}\n",
    "yaml args quoted": lambda v: f'      args:\n        - "--{FLAG}"\n        - "{v}"\n',
    "yaml flow list": lambda v: f'args: ["--{FLAG}", "{v}", "--port", "8000"]',
    "inspect Args": lambda v: json.dumps({"Path": "vllm", "Args": ["serve", "m", f"--{FLAG}", v]}, indent=4),
    "inspect Cmd": lambda v: json.dumps({"Config": {"Cmd": ["--model", "m", f"--{FLAG}", v]}}, indent=4),
    "inspect Entrypoint": lambda v: json.dumps({"Config": {"Entrypoint": ["python3", "-m", "vllm", f"--{FLAG}", v]}}),
    "describe Args": lambda v: f"    Command:\n      vllm\n    Args:\n      serve\n      --{FLAG}\n      {v}\n      --port\n      8000\n",
    "json string of a log": lambda v: json.dumps({"log": f"starting: vllm serve m --{FLAG} {v}\n"}),
}


def test_the_innocent_names_are_no_settings():
    assert not is_setting_variable(ENV) and not is_setting_flag(FLAG)


def test_corpus_has_100_formats_with_sources():
    assert len(SECRETS) >= 100 and len({s.form for s in SECRETS}) == len(SECRETS)
    assert len(SOURCES) >= 60 and all(SOURCES.values())


@pytest.mark.parametrize("structure", sorted(STRUCTURES))
def test_every_secret_is_withheld_in_every_structure(structure):
    plant = STRUCTURES[structure]
    leaked = []
    for value in VALUES:
        text = plant(value)
        out = redact_text(text)
        if value in out:
            leaked.append((value, out))
        name = ENV if ENV in text else f"--{FLAG}"
        assert name in out, out
    assert leaked == [], leaked[:3]


@pytest.mark.parametrize("structure", sorted(STRUCTURES))
def test_large_texts_too(structure):
    """Past the small-text path (a log of megabytes): the same structure, line by line."""
    pad = 'time=2025-08-08T23:02:37Z level=INFO msg="filler"\n' * 2000
    text = pad + STRUCTURES[structure](VALUES[0]) + "\n" + pad
    out = redact_text(text)
    if "\n" not in STRUCTURES[structure]("x").strip("\n") or structure.startswith(("pod env", "json")):
        assert VALUES[0] not in out


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_evidence_is_unchanged(line):
    assert redact_text(line) == line


def test_settings_and_plain_values_are_kept():
    for v in ("8192", "0.9", "true", "8GiB", "30m0s", "/models/qwen.gguf", "qwen.gguf", "0.0.0.0:8000",
              "http://gpu1:11434/v1", "q8_0", "<TOKEN>", "${HF_TOKEN}", "ROCm0", "cuda:0"):
        assert plain(v), v
    for v in ("q7abcXYZ123", "hunter2hunter2", "sk-abc", "https://u:p@h/x?token=1"):
        assert not plain(v), v


def test_withheld_values_are_counted():
    withheld(reset=True)
    redact_text(f"{ENV}=q7abcXYZ123 --{FLAG} q7defXYZ456 OLLAMA_NUM_PARALLEL=4")
    assert withheld() == 2


def test_error_messages_keep_their_words():
    for msg in ("llmdoctor: --evidence DIR is not a directory: /tmp/x",
                "error: unexpected argument '--ctx' found",
                "use --ctx-size to raise the context (now 2048)",
                "collect: cannot read /proc/64/environ: Permission denied",
                "kubectl: error: unknown flag --container-name"):
        assert redact_text(msg) == msg


def test_fix_from_a_pod_args_list_keeps_no_secret():
    config = "args:\n  - --model\n  - m\n  - --api-key\n  - q7podArgsKey123\n  - --max-num-seqs\n  - \"64\"\n"
    fixed = redact_fix(config)
    assert "q7podArgsKey123" not in fixed and REDACTED not in fixed
    assert "- --max-num-seqs" in fixed and "--api-key" in fixed


def test_no_evidence_fixture_loses_a_word_to_redaction():
    """The fixtures hold no secret: their reports (findings, fixes, the settings header) must come
    through whole. (Prose after a flag, `--max-num-seqs. Beyond that`, and llmdoctor's own default
    marks, `NUM_PARALLEL=1*`, were once taken for values.)"""
    from pathlib import Path

    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.model import Report
    from llmdoctor.plugins import load_checks
    from llmdoctor.render import render_text

    specs = load_checks(site_dir=None, entry_points=False)[0]
    evidence = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
    damaged = []
    for d in sorted(p for p in evidence.iterdir() if (p / "expected.json").is_file()):
        report = diagnose_target(EvidenceHost(d), DiagnoseOptions(sample_seconds=0), specs).report
        if "<redacted>" in render_text(Report("t", (report,)), color=False):
            damaged.append(d.name)
    assert damaged == []
