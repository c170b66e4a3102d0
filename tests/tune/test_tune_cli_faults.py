"""`llmdoctor tune ollama --apply` when the transaction cannot run: another tune holds the
lock, the backup directory refuses writes. One line on stderr, exit 3, nothing written
(issue 16)."""
from __future__ import annotations

import os

from llmdoctor.app.tune import dropin
from llmdoctor.app.tune.apply import BACKUP_DIR, LOCK_FILE
from llmdoctor.hosts.tune_lock import StateLock
from tests.tune.test_tune_cli import SEED, tune


def test_a_held_lock_is_one_line_naming_the_holder(cli, fake_ollama, tmp_path):
    with StateLock(tmp_path / LOCK_FILE, "/" + LOCK_FILE):
        code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert f"another llmdoctor tune is running (held by pid {os.getpid()} started" in err
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_a_backup_directory_that_cannot_be_made_is_one_line(cli, fake_ollama, tmp_path):
    (tmp_path / BACKUP_DIR).parent.mkdir(parents=True)
    (tmp_path / BACKUP_DIR).write_text("a file where the backup directory goes")
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert "cannot take a backup" in err and "nothing was changed" in err
    assert not dropin.dropin_path(tmp_path, "ollama.service").exists()


def test_a_dropin_path_that_is_a_directory_is_one_line(cli, fake_ollama, tmp_path):
    dropin.dropin_path(tmp_path, "ollama.service").mkdir(parents=True)  # cannot be read as a file
    code, out, err = tune(cli, fake_ollama, tmp_path, *SEED, "--apply", "--yes")
    assert code == 3 and len(err.strip().splitlines()) == 1 and "zz-llmdoctor.conf" in err
