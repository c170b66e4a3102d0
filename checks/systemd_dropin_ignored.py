"""Drop-ins systemd ignores: no [Service] header, wrong directory, no .conf suffix, bad assignments."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Severity
from llmdoctor.plugins import check
from llmdoctor.redact import redact_text

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.systemd.units import UnitState


@check(id="systemd-dropin-ignored", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="drop-ins systemd ignores: no [Service] header, wrong directory, no .conf suffix, bad assignments")
def dropin_ignored(systemd_units: tuple[UnitState, ...]):
    from llmdoctor.judge.systemd import IGNORED_DROPIN, MAX_EVIDENCE, ignored_dropin_fix

    for u in systemd_units:
        groups: dict[tuple[str, str], list] = {}
        for p in u.problems:
            if p.kind in IGNORED_DROPIN:
                groups.setdefault((p.kind, p.path), []).append(p)
        for (kind, path), probs in groups.items():
            evidence = []
            for p in probs[:MAX_EVIDENCE]:
                where = f"{p.path}:{p.lineno}" if p.lineno else p.path
                evidence.append(Evidence(where, redact_text(p.text.strip()) if p.text else p.detail))
                if kind == "invalid-assignment" and p.text:
                    evidence.append(Evidence(where, redact_text(p.detail)))
            if kind != "invalid-assignment":
                evidence.append(Evidence(path, probs[0].detail))
            lines = [redact_text(p.text.strip()) for p in probs if p.text]
            yield Finding(
                cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
                title=f"{u.unit}: {path} {IGNORED_DROPIN[kind]}",
                evidence=evidence, fix=ignored_dropin_fix(kind, path, u.unit, lines),
            )
