"""Engine variables set in ~/.bashrc, ~/.profile or /etc/environment, which a service never reads."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Severity
from llmdoctor.plugins import check

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.systemd.environ import ShellSetting
    from llmdoctor.knowledge.systemd.units import UnitState


@check(id="systemd-env-outside-unit", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="engine variables set in ~/.bashrc, ~/.profile or /etc/environment, which a service never reads")
def env_outside_unit(systemd_units: tuple[UnitState, ...], shell_exports: tuple[ShellSetting, ...]):
    from llmdoctor.judge.fixes import remedy_fix
    from llmdoctor.judge.systemd import (MAX_EVIDENCE, client_only, unit_remedy, engines_for, pair, service_env,
                                         setting_evidence, show_source)

    for u in systemd_units:
        env = service_env(u)
        missing: dict[str, str] = {}
        evidence: list[Evidence] = []
        paths: list[str] = []
        for s in shell_exports:
            engines = engines_for(s.name)
            if engines is not None and u.engine not in engines:
                continue
            if client_only(s.name, s.value) or env.get(s.name) == s.value:
                continue
            missing[s.name] = s.value
            evidence.append(setting_evidence(s))
            paths.append(s.path)
        if not missing:
            continue
        where = "running process" if u.process_env is not None else "unit"
        for name in list(missing)[:MAX_EVIDENCE]:
            source = f"/proc/{u.main_pid}/environ" if u.process_env is not None else show_source(u)
            evidence.append(Evidence(source, f"{where} has {pair(name, env.get(name))}"))
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
            title=f"{u.unit}: {', '.join(list(missing)[:4])} set only in {', '.join(list(dict.fromkeys(paths))[:3])}, "
                  "which a systemd service never reads",
            evidence=evidence[: 2 * MAX_EVIDENCE],
            fix=remedy_fix(f"Put the variables in a drop-in of their own for {u.unit}, then reload and restart.",
                           unit_remedy(u.unit, missing)),
        )
