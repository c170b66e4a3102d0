"""Fixes are closed under re-diagnosis: each fixture's merged "What to change" is applied to a
copy of the fixture the way it says (llmdoctor's drop-in written next to the unit, the
variables added to the environment listing, the corrected command line as cmdline.txt),
then the copy is diagnosed again. No new warning may appear (following our fix must not
create a finding), and a merged finding whose every evidence line is configuration must be
gone (a log still shows what happened before the change, so a log-based finding may stay)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.model import Severity
from llmdoctor.plugins import load_checks

EVIDENCE = Path(__file__).resolve().parent.parent / "fixtures" / "evidence"
DIRS = sorted(p.parent for p in EVIDENCE.glob("*/expected.json"))
CONFIG_SOURCES = ("cmdline.txt", "command line", "env.txt", "unit.service", "systemctl_cat.txt", "dropins/",
                  "files/", "/etc/systemd/")
# Writing the drop-in is the first step of the change; `systemctl daemon-reload` is the next,
# which a copy of the evidence cannot run: that the drop-in is not loaded yet is expected.
NOT_YET_RELOADED = "systemd-reload-pending"


@pytest.fixture(scope="module")
def specs():
    return load_checks(site_dir=None, entry_points=False)[0]


def diagnose(directory, specs):
    return diagnose_target(EvidenceHost(directory), DiagnoseOptions(sample_seconds=0), specs).report


def apply(change, ev: Path) -> bool:
    """The change applied to the evidence copy as an operator would; False when it cannot be."""
    if change.place.startswith("systemd ") and change.config:
        unit = change.place.split(" ", 1)[1]
        if (ev / "files").is_dir():
            path = ev / "files" / "etc/systemd/system" / f"{unit}.d" / "zz-llmdoctor.conf"
        else:
            path = ev / "dropins" / "zz-llmdoctor.conf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(change.config)
        if (ev / "env.txt").is_file() and not (ev / "files").is_dir():
            with (ev / "env.txt").open("a") as f:
                f.writelines(f"{k}={v}\n" for k, v in change.settings)
        return True
    if change.place.endswith("command line") and change.commands:
        (ev / "cmdline.txt").write_text(change.commands[0] + "\n")
        return True
    return False


def config_only(finding) -> bool:
    return all(any(s in e.source for s in CONFIG_SOURCES) for e in finding.evidence)


@pytest.mark.parametrize("directory", DIRS, ids=[d.name for d in DIRS])
def test_following_what_to_change_creates_no_new_warning(directory, specs, tmp_path):
    before = diagnose(directory, specs)
    if not before.changes:
        pytest.skip("no change to follow")
    ev = tmp_path / "ev"
    shutil.copytree(directory, ev)
    if not any([apply(c, ev) for c in before.changes]):
        pytest.skip("the change cannot be applied to a copy of the evidence")
    after = diagnose(ev, specs)
    had = {f.check for f in before.findings}
    new = [f for f in after.findings if f.check not in had and f.check != NOT_YET_RELOADED
           and f.severity.rank >= Severity.WARNING.rank]
    assert not new, [(f.check, f.title) for f in new]
    merged = {c for change in before.changes for c in change.checks}
    stays = [f.check for f in after.findings if f.check in merged and config_only(f)
             and any(b.check == f.check and config_only(b) for b in before.findings)]
    assert not stays, stays
