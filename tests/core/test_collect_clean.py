"""`collect --clean`: every evidence fixture, cleaned, names no original host, address or user,
and `diagnose --evidence` finds the same causes by the same checks; the mapping is reused by
a later run and kept on the collecting host only (mode 0600, outside the bundle)."""
from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from llmdoctor.app.clean import Cleaner, clean_bundle
from tests.support.inprocess import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
# the fixtures that name hosts, addresses, users or model directories, and a pod and a container
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
SITE = ("2025-08-08T23:02:37+0100 gpu-box-7 ollama[64]: listening on 10.20.30.40:11434 (fe80::1ff:fe23:4567:890a)\n"
        "2025-08-08T23:02:38+0100 gpu-box-7 ollama[64]: client 192.168.7.9 from /home/alice/work mac 3c:fd:fe:aa:bb:cc "
        "ACMECORP cluster\n")


def findings(d: Path) -> list[tuple[str, str]]:
    code, out = cli("diagnose", "--evidence", str(d), "--format", "json")
    assert "Traceback" not in out, out[-2000:]
    doc = json.loads(out)
    return sorted((f["check"], f["cause"]) for t in doc["targets"] for f in t.get("findings", []))


def plant_site(d: Path) -> None:
    log = d / "journal.log"
    log.write_text(SITE + (log.read_text() if log.exists() else ""))
    meta = d / "meta.json"
    doc = json.loads(meta.read_text()) if meta.exists() else {}
    doc["host"] = "bob@gpu-box-7.corp.example"
    meta.write_text(json.dumps(doc))


@pytest.mark.parametrize("case", CASES)
def test_cleaned_bundle_has_the_same_findings_and_no_site_names(tmp_path, case):
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / case, src)
    plant_site(src)
    cleaned = tmp_path / "cleaned"
    shutil.copytree(src, cleaned)
    cleaner = Cleaner(tmp_path / "state", ("acmecorp",))
    clean_bundle(cleaned, cleaner)
    path = cleaner.save()
    originals = [o for kind in ("host", "ipv4", "ipv6", "mac", "user", "word") for o in cleaner.map[kind]]
    assert {"gpu-box-7", "10.20.30.40", "192.168.7.9", "alice", "bob", "acmecorp"} <= {o.lower() for o in originals}
    for p in cleaned.rglob("*"):
        if p.is_file():
            text = p.read_text(errors="replace")
            for o in ("gpu-box-7", "10.20.30.40", "192.168.7.9", "fe80::1ff:fe23:4567:890a", "3c:fd:fe:aa:bb:cc",
                      "alice", "ACMECORP", "bob@"):
                assert o not in text, (p.name, o)
    assert findings(cleaned) == findings(src)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and cleaned not in path.parents


def test_the_mapping_is_stable_across_runs(tmp_path):
    first = Cleaner(tmp_path / "state")
    one = first.clean("x 10.1.2.3 y") if first.learn("", "gpu1") is None else ""
    first.save()
    second = Cleaner(tmp_path / "state")
    second.learn("", "gpu2")
    assert second.clean("x 10.1.2.3 y gpu1 gpu2") == f"{one} host-1 host-2"
    assert one == "x 192.0.2.1 y"


def test_ordinary_numbers_are_not_addresses(tmp_path):
    c = Cleaner(tmp_path / "s")
    for text in ("driver 550.54.15 cuda 12.4", "time 23:02:37", "127.0.0.1:11434 and ::1 and 0.0.0.0",
                 "version 1.2.3.4.5", "sha256:6a0746a1ec1aef3e"):
        assert c.clean(text) == text


def test_whoami_is_cleaned_and_still_decides_sudo(tmp_path):
    """whoami.txt (`id` output, collect's record of who runs the fixes): the user's name becomes its
    pseudonym, root stays root, and the reader read back keeps whether it is root."""
    from llmdoctor.hosts.evidence import EvidenceHost

    for text, root in (("uid=1000(alice) gid=1000(alice) groups=1000(alice),4(adm)\n", False),
                       ("uid=0(root) gid=0(root) groups=0(root)\n", True)):
        bundle = tmp_path / str(root)
        bundle.mkdir()
        (bundle / "whoami.txt").write_text(text)
        clean_bundle(bundle, Cleaner(tmp_path / f"state-{root}"))
        kept = (bundle / "whoami.txt").read_text()
        assert "alice" not in kept and (kept == text) == root, kept
        reader = EvidenceHost(bundle).reader()
        assert reader.root is root and reader.user == ("root" if root else "user-1") and reader.journal is True
