"""Shared bits of the systemd tests."""
from __future__ import annotations

from functools import lru_cache

from llmdoctor.plugins import load_checks, run_check

IDS = ("systemd-reload-pending", "systemd-restart-pending", "systemd-env-outside-unit",
       "systemd-dropin-ignored", "systemd-env-conflict", "systemd-env-in-unit-file")


@lru_cache(maxsize=1)
def config_checks():
    """The built-in CONFIG_NOT_APPLIED checks of llmdoctor.knowledge.systemd, loaded the way the tool loads them."""
    specs, errors = load_checks(site_dir=None, entry_points=False)
    mine = tuple(s for s in specs if s.id in IDS)
    assert len(mine) == len(IDS), (errors, [s.id for s in specs])
    return mine


def findings_by_check(store) -> dict[str, list]:
    """Run the CONFIG_NOT_APPLIED checks on a FactStore; findings by check id (a crash fails the test)."""
    found: dict[str, list] = {}
    for spec in config_checks():
        outcome = run_check(spec, store)
        assert not outcome.crash, outcome.crash
        for f in outcome.findings:
            found.setdefault(f.check, []).append(f)
    return found
