"""Two unit files set the same engine variable differently: which one wins."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check
from llmdoctor.judge.fixes import reload_and_restart
from llmdoctor.knowledge.systemd.names import is_engine_var

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.systemd.units import UnitState


@check(id="systemd-env-conflict", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="two unit files set the same engine variable differently; says which one wins")
def env_conflict(systemd_units: tuple[UnitState, ...]):
    from llmdoctor.judge.systemd import MAX_EVIDENCE, pair, setting_evidence

    for u in systemd_units:
        for name, settings in sorted(u.file_env_settings.items()):
            if not is_engine_var(name) or name not in u.file_env:
                continue
            if len({s.path for s in settings}) <= 1 or len({s.value for s in settings}) <= 1:
                continue
            winner = settings[-1]
            losers = sorted({s.path for s in settings if s.path != winner.path})
            evidence = [setting_evidence(s) for s in settings[:MAX_EVIDENCE]]
            evidence.append(Evidence(winner.path, f"wins: {pair(name, winner.value)} (drop-ins apply in "
                                                  "file-name order; the last assignment wins)"))
            yield Finding(
                cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.INFO,
                title=f"{u.unit}: {name} is set in {len({s.path for s in settings})} files; "
                      f"{winner.path} wins with {pair(name, winner.value)}",
                evidence=evidence,
                fix=Fix(f"Keep {name} in one file; remove it from {', '.join(losers)} so the next edit does what it says.",
                        commands=(reload_and_restart(u.unit),)),
            )
