"""The journal read over SSH streams line by line (bounded memory) and gives the same
lines as reading it locally, on a real journal file made with systemd-journal-remote."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from llmdoctor.hosts.local import LocalHost
from llmdoctor.hosts.logs import JournalSource
from tests.logs import journalfile

pytestmark = pytest.mark.real


@pytest.fixture()
def shared_journal():
    reason = journalfile.skip_reason()
    if reason:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="llmd-journal-"))
    try:
        now = time.time()
        d = journalfile.append_entries(base / "journal", [
            ("ollama.service", 'msg="server config" env="map[OLLAMA_NUM_PARALLEL:1]"', now - 60),
            ("ollama.service", "[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     \"/api/generate\"", now - 30),
        ])
        for root, dirs, files in os.walk(base):  # the sshd test user must read it
            os.chmod(root, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        yield d
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_journal_over_ssh_matches_local(host, shared_journal):
    assert callable(getattr(host, "stream", None))
    remote = JournalSource(host, "ollama", directory=str(shared_journal), backend="host")
    local = JournalSource(LocalHost(), "ollama", directory=str(shared_journal), backend="journalctl")
    got = list(remote.lines())
    assert remote.error is None, remote.error
    assert got == list(local.lines())
    assert len(got) == 2 and got[1].endswith('POST     "/api/generate"')
