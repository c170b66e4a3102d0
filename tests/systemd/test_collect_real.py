"""`llmdoctor collect` on a real booted systemd, then `diagnose --evidence` on what it
wrote: the forgotten daemon-reload seen live is seen offline too, and no secret is
written anywhere."""
from __future__ import annotations

import pytest

from llmdoctor.app.collect import collect_evidence
from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from tests.support.nspawn import ContainerHost, booted_container, skip_reason
from tests.systemd.test_systemd_real import DROPIN, GROUP_LINE, INSTALL_SH_UNIT, PASSWD_LINE, UNIT

pytestmark = [pytest.mark.real, pytest.mark.root]

CONFIG_ONLY = DiagnoseOptions(only=("CONFIG_NOT_APPLIED",), sample_seconds=0)


def test_collect_then_diagnose_offline_matches_live(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with booted_container("collect", {
        "etc/systemd/system/ollama.service": INSTALL_SH_UNIT,
        "etc/passwd": open("/etc/passwd").read() + PASSWD_LINE,
        "etc/group": open("/etc/group").read() + GROUP_LINE,
    }) as c:
        c.run(["mkdir", "-p", "/usr/share/ollama"], check=True)
        c.run(["systemctl", "start", UNIT], check=True)
        c.write(DROPIN, '[Service]\nEnvironment="OLLAMA_NUM_PARALLEL=4"\nEnvironment="HF_TOKEN=hf_s3cret"\n')
        host = ContainerHost(c)
        live = {f.check for f in diagnose_target(host, CONFIG_ONLY).report.findings}
        out = tmp_path / "evidence"
        written, notes = collect_evidence(host, out)
    assert "systemd-reload-pending" in live
    assert any(name.startswith("files/etc/systemd/system/ollama.service.d/") for name in written), (written, notes)
    offline = {f.check for f in diagnose_target(EvidenceHost(out), CONFIG_ONLY).report.findings}
    assert offline == live
    for f in out.rglob("*"):
        if f.is_file():
            assert b"hf_s3cret" not in f.read_bytes(), f
