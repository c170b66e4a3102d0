"""No secret of the corpus reaches an output byte: planted in every kind of evidence file
(and in what a live host answers `collect`), it is absent from `diagnose --format text/json`,
from every file `collect` writes and from the exporter's metrics. Ordinary evidence that looks
a little like a secret (model names, digests, blob names, GPU UUIDs) survives redaction."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from llmdoctor.redact import KEEP, REDACTED, redact_fix, redact_text
from tests.core.secrets_corpus import ORDINARY, SECRETS
from tests.support.inprocess import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
ALL_LEAKS = sorted({leak for s in SECRETS for leak in s.leaks})
TEXT_FILES = ("journal.log", "server.log", "other.log", "env.txt", "unit.service", "dropins/override.conf",
              "systemctl_cat.txt", "cmdline.txt", "shell_export.txt", "client_errors.txt", "vmstat.txt",
              "meminfo.txt", "nvidia_smi.txt", "ollama_ps.txt", "metrics.prom", "files/proc/64/environ",
              "files/etc/systemd/system/ollama.service", "files/etc/profile.d/ollama.sh", "notes.txt")
JSON_FILES = ("api_ps.json", "api_show.json", "probe.json", "health.json", "props.json", "slots.json")


def leaks_in(text: str) -> list[str]:
    return [leak for leak in ALL_LEAKS if leak in text]


def planted_lines() -> str:
    return "\n".join(s.line for s in SECRETS) + "\n"


def plant(directory: Path) -> Path:
    """Every secret of the corpus in every evidence file kind of an Ollama directory whose
    unit, drop-in and loaded environment disagree (so the systemd checks quote them)."""
    shutil.copytree(FIXTURES / "config-no-reload", directory)
    lines = planted_lines()
    for name in TEXT_FILES:
        p = directory / name
        p.parent.mkdir(parents=True, exist_ok=True)
        old = p.read_text() if p.exists() else ""
        p.write_text(old + ("\n" if old and not old.endswith("\n") else "") + lines)
    # secrets as settings the checks compare and quote
    (directory / "dropins" / "override.conf").write_text(
        '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=8"\nEnvironment="OLLAMA_API_KEY=q7sysA1 q7sysB2 q7sysC3"\n'
        'Environment="HF_TOKEN=hf_q7AbCdEfGhIjKlMnOpQrStUvWxYz1234"\n' + lines)
    env = directory / "env.txt"
    env.write_text(env.read_text().replace(
        "OLLAMA_KEEP_ALIVE=30m", 'OLLAMA_KEEP_ALIVE=30m "OLLAMA_API_KEY=q7urlPass456 x" OLLAMA_BASE=https://admin:q7urlPass456@gpu1'))
    for name in JSON_FILES:
        doc = {"models": [{"name": "llama3:8b", "api_key": "q7jsonApiKey111", "note": lines}], "note": lines,
               "headers": {"Authorization": "Bearer q7bearerAbCdEf0123456789"}}
        (directory / name).write_text(json.dumps(doc))
    meta = json.loads((directory / "meta.json").read_text())
    meta.update(host="https://admin:q7urlPass456@gpu1", notes=lines)
    (directory / "meta.json").write_text(json.dumps(meta))
    return directory


@pytest.mark.parametrize("secret", SECRETS, ids=[s.form for s in SECRETS])
def test_every_format_is_redacted_in_every_context(secret):
    pad = 'time=2025-08-08T23:02:37Z level=INFO msg="filler"\n' * 3000  # past the small-text path
    for text in (secret.line, json.dumps(secret.line), json.dumps({"note": secret.line}), pad + secret.line + "\n" + pad):
        assert not [leak for leak in secret.leaks if leak in redact_text(text)], text[:200]


def test_whole_corpus_as_one_json_string():
    """Joined by `\\n` escapes, as a log or a Modelfile sits inside an API's JSON answer."""
    text = json.dumps({"modelfile": planted_lines(), "license": "MIT"})
    assert leaks_in(redact_text(text)) == []
    assert len(text * 20) > 64 * 1024 and leaks_in(redact_text(text * 20)) == []  # the pre-filtered path


def test_corpus_size():
    assert len(SECRETS) >= 40 and len({s.form for s in SECRETS}) == len(SECRETS)


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_evidence_survives(line):
    assert redact_text(line) == line
    assert redact_text(json.dumps(line)) == json.dumps(line)


def test_redaction_is_idempotent():
    once = redact_text(planted_lines())
    assert redact_text(once) == once and REDACTED in once


def test_fix_never_carries_a_redacted_value():
    config = '[Service]\nEnvironment="OLLAMA_API_KEY=q7sysA1 q7sysB2"\nEnvironment="OLLAMA_NUM_PARALLEL=4"\n'
    fixed = redact_fix(config)
    assert REDACTED not in fixed and "q7sys" not in fixed
    assert f"# OLLAMA_API_KEY: {KEEP}" in fixed and 'Environment="OLLAMA_NUM_PARALLEL=4"' in fixed


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_diagnose_reports_leak_nothing(tmp_path, fmt):
    d = plant(tmp_path / "ev")
    code, out = cli("diagnose", "--evidence", str(d), "--format", fmt)
    assert code in (0, 1, 2, 3) and "Traceback" not in out, out[-2000:]
    assert leaks_in(out) == [], out[-3000:]
    assert REDACTED in out or KEEP in out  # the planted settings were shown, redacted
    assert "gpu1" in out  # the target is named, without its password


def test_collect_bundle_leaks_nothing(tmp_path):
    """A live-host collect: the host answers every command, read and request with the
    planted evidence (journalctl with journal.log); no file collect writes holds a secret."""
    from llmdoctor.app.collect import collect_evidence
    from llmdoctor.hosts.base import CommandResult
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.knowledge.engines import OLLAMA, EngineInstance

    src = plant(tmp_path / "src")

    class PlantedLiveHost(EvidenceHost):
        kind, recorded, partial = "live", False, False

        def kept(self, what):
            return ()  # a live host keeps no recorded files

        def observe(self, live, recall):
            return live()

        def run(self, argv, timeout=10):
            if argv[0] == "journalctl":
                return CommandResult(tuple(argv), 0, (src / "journal.log").read_text())
            return super().run(argv, timeout)

        def read(self, path, limit=16 * 1024 * 1024):
            if path.startswith("/proc/64/") or path.startswith("/etc/"):
                return (src / f"files{path}").read_bytes()[:limit]
            return super().read(path, limit)

    out = tmp_path / "bundle"
    host = PlantedLiveHost(src)
    written, _notes = collect_evidence(host, out, engines=(EngineInstance(OLLAMA, unit="ollama.service", pid=64, port=11434),))
    assert {"journal.log", "env.txt", "systemctl_cat.txt", "meta.json"} <= set(written) or "journal.log" in written
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for p in files:
        data = p.read_bytes().decode("utf-8", "replace")
        assert leaks_in(data) == [], (p.name, leaks_in(data))
    code, report = cli("diagnose", "--evidence", str(out), "--format", "json")
    assert leaks_in(report) == [] and "Traceback" not in report
    withheld = json.loads((out / "meta.json").read_text())["withheld"]  # the bundle says how many it withheld
    assert isinstance(withheld, int) and withheld > 0


def test_exporter_metrics_leak_nothing(tmp_path):
    d = plant(tmp_path / "ev")
    prom = tmp_path / "out.prom"
    code, out = cli("exporter", "--evidence", str(d), "--textfile", str(prom), "--once",
                    "--state-dir", str(tmp_path / "state"))
    assert "Traceback" not in out, out[-2000:]
    text = prom.read_text() if prom.exists() else ""
    assert text, out[-2000:]
    assert leaks_in(text + out) == []


def test_probe_progress_line_hides_the_password(capsys, monkeypatch):
    monkeypatch.delenv("LLMDOCTOR_QUIET", raising=False)
    from llmdoctor.cli.probe import _progress_printer

    _progress_printer(True)("connecting to http://admin:q7urlPass456@gpu1:11434 ...")
    err = capsys.readouterr().err
    assert "q7urlPass456" not in err and "admin" in err and REDACTED in err


def test_error_lines_hide_credentials():
    code, out = cli("diagnose", "--host", "https://admin:q7urlPass456@gpu1:11434/x y")
    assert code == 3 and "q7urlPass456" not in out


def test_long_chains_of_pairs_need_no_recursion():
    """`KEY=KEY=KEY=…` (hypothesis found it) ran one call deeper per pair, past Python's limit."""
    for text in ("KEY=" * 5000 + "x", "key_id:" * 3000 + "hf_q7AbCdEfGhIjKlMnOpQrStUvWxYz1234"):
        out = redact_text(text)
        assert "hf_q7" not in out and out.endswith(REDACTED)
