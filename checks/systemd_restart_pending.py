"""systemd has the new environment but the engine process started before it: restart forgotten."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llmdoctor.model import Cause, Confidence, Evidence, Finding, Fix, Severity
from llmdoctor.plugins import check
from llmdoctor.judge.fixes import restart

if TYPE_CHECKING:  # annotations only: the checks are imported on every run (start-up time)
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary
    from llmdoctor.knowledge.systemd.units import UnitState


@check(id="systemd-restart-pending", cause=Cause.CONFIG_NOT_APPLIED,
       purpose="systemd has the new environment but the running engine was started before it (restart forgotten)")
def restart_pending(systemd_units: tuple[UnitState, ...], ollama_log: OllamaLogSummary | None = None):
    from llmdoctor.judge.systemd import (MAX_EVIDENCE, loaded_vs_logged, loaded_vs_process, logged_before_start, pair,
                                         show_source)

    for u in systemd_units:
        diffs = loaded_vs_process(u)
        if not diffs and u.process_env is None and ollama_log is not None \
                and not logged_before_start(getattr(ollama_log, "server_config_at", None), u.active_since):
            logged = loaded_vs_logged(u, getattr(ollama_log, "server_config", None))
            if logged:
                yield _restart_from_log(u, logged, getattr(ollama_log, "server_config_example", None))
            continue
        if not diffs:
            continue
        src, proc = show_source(u), f"/proc/{u.main_pid}/environ"
        evidence: list[Evidence] = []
        for name, want, have in diffs[:MAX_EVIDENCE]:
            origin = u.environment_file_origin.get(name)
            if want is None:
                evidence.append(Evidence(src, f"Environment= has no {name}"))
            elif origin and name in u.environment_file_env:
                evidence.append(Evidence(origin, pair(name, want)))
            else:
                evidence.append(Evidence(src, f"Environment= has {pair(name, want)}"))
            evidence.append(Evidence(proc, f"running process (PID {u.main_pid}) has {pair(name, have)}"))
        if u.active_since:
            evidence.append(Evidence(src, f"ActiveEnterTimestamp={u.active_since}"))
        names = ", ".join(n for n, _, _ in diffs[:4]) + (" ..." if diffs[4:] else "")
        yield Finding(
            cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING,
            title=f"{u.unit}: the running process has an old environment ({names}); it was not restarted",
            evidence=evidence,
            fix=Fix(f"Restart {u.unit} so the process starts with the environment systemd has now.",
                    commands=(restart(u.unit),)),
        )


def _restart_from_log(u, diffs, example) -> Finding:
    from llmdoctor.judge.systemd import pair, show_source

    src = show_source(u)
    log_source = getattr(example, "source", None) or "ollama log"
    evidence: list[Evidence] = []
    for name, want, have in diffs:
        evidence.append(Evidence(src, f"Environment= has {pair(name, want)}"))
        evidence.append(Evidence(log_source, f'last start-up logged server config env="map[... {name}:{have} ...]"'))
    if u.active_since:
        evidence.append(Evidence(src, f"ActiveEnterTimestamp={u.active_since}"))
    names = ", ".join(n for n, _, _ in diffs[:4])
    return Finding(
        cause=Cause.CONFIG_NOT_APPLIED, severity=Severity.WARNING, confidence=Confidence.MEDIUM,
        title=f"{u.unit}: Ollama last started with other settings than systemd has now ({names}); not restarted",
        evidence=evidence,
        fix=Fix(f"Restart {u.unit} so Ollama starts with the environment systemd has now.",
                commands=(restart(u.unit),)),
    )
