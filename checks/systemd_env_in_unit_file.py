"""Ollama settings edited into the unit file that install.sh rewrites on every upgrade."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Confidence, Evidence, Finding, Severity
from llmdoctor.plugins import check
from llmdoctor.knowledge.systemd.names import is_engine_var

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.systemd.units import UnitState


INSTALL_SH_UNIT = "/etc/systemd/system/ollama.service"


@check(id="systemd-env-in-unit-file", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="Ollama settings edited into the unit file that install.sh rewrites on every upgrade")
def env_in_unit_file(systemd_units: tuple[UnitState, ...]):
    from llmdoctor.judge.fixes import remedy_fix
    from llmdoctor.judge.systemd import MAX_EVIDENCE, setting_evidence, unit_remedy

    for u in systemd_units:
        if u.engine != "ollama" or u.fragment_path != INSTALL_SH_UNIT:
            continue
        mine = {name: s[-1] for name, s in u.file_env_settings.items()
                if is_engine_var(name) and s and s[-1].path == INSTALL_SH_UNIT and u.file_env.get(name) == s[-1].value}
        if not mine:
            continue
        evidence = [setting_evidence(s) for s in list(mine.values())[:MAX_EVIDENCE]]
        evidence.append(Evidence(INSTALL_SH_UNIT, "Ollama's install.sh writes this file anew on every install "
                                                  "or upgrade; drop-ins in ollama.service.d/ are kept"))
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.INFO, confidence=Confidence.MEDIUM,
            title=f"{u.unit}: {', '.join(list(mine)[:4])} set in the unit file itself; the next Ollama upgrade "
                  "overwrites it",
            evidence=evidence,
            fix=remedy_fix(f"Move the settings to a drop-in (it survives upgrades) and delete them from {INSTALL_SH_UNIT}.",
                           unit_remedy(u.unit, {k: s.value for k, s in mine.items()})),
        )
