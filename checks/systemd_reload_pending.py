"""A unit file changed on disk but systemd still runs the old version: daemon-reload forgotten."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check
from llmdoctor.judge.fixes import reload_and_restart
from llmdoctor.knowledge.systemd.names import canonical_path, in_search_paths

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.systemd.units import UnitState


@check(id="systemd-reload-pending", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="unit files changed on disk but systemd still runs the old version (daemon-reload forgotten)")
def reload_pending(systemd_units: tuple[UnitState, ...]):
    from llmdoctor.judge.systemd import MAX_EVIDENCE, file_vs_loaded, pair, setting_evidence, show_source

    for u in systemd_units:
        evidence: list[Evidence] = []
        src = show_source(u)
        if u.need_daemon_reload:
            evidence.append(Evidence(src, "NeedDaemonReload=yes"))
        diffs = file_vs_loaded(u)
        for name, want, have in diffs[:MAX_EVIDENCE]:
            settings = u.file_env_settings.get(name, ())
            if want is not None and settings:
                evidence.append(setting_evidence(settings[-1]))
            elif want is None:
                evidence.append(Evidence(u.fragment_path or u.unit, f"no {name} in the unit files on disk"))
            evidence.append(Evidence(src, f"Environment= has {pair(name, have)}" if have is not None
                                     else f"Environment= has no {name}"))
        if u.loaded_dropin_paths is not None and u.fragment_path is not None and not u.loaded_env_plain:
            # generator and portable-service dirs are not read from disk here: leave them out
            on_disk = {canonical_path(p) for p in u.dropin_paths}
            loaded = {canonical_path(p) for p in u.loaded_dropin_paths if in_search_paths(p)}
            for p in sorted(on_disk - loaded):
                evidence.append(Evidence(p, f"drop-in on disk that systemd has not loaded (DropInPaths={' '.join(u.loaded_dropin_paths) or '(none)'})"))
            for p in sorted(loaded - on_disk):
                evidence.append(Evidence(src, f"DropInPaths still lists {p}, which is gone from disk"))
        if u.loaded_fragment_path and u.fragment_path and in_search_paths(u.loaded_fragment_path) \
                and canonical_path(u.loaded_fragment_path) != canonical_path(u.fragment_path):
            evidence.append(Evidence(src, f"FragmentPath={u.loaded_fragment_path}, but {u.fragment_path} now takes precedence"))
        if not evidence:
            continue
        names = ", ".join(n for n, _, _ in diffs[:4]) + (" ..." if diffs[4:] else "")
        title = f"{u.unit}: unit files changed on disk but systemd has not reloaded them"
        if names:
            title += f" ({names} not in effect)"
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING, title=title, evidence=evidence,
            fix=Fix(f"Make systemd re-read {u.unit}, then restart it so the engine gets the new settings.",
                    commands=(reload_and_restart(u.unit),)),
        )
