"""The exporter's use cases: serve over HTTP, or write node_exporter textfiles.

The CLI turns options into these calls; everything that can be decided without
I/O (durations, listen addresses, target names) is a pure function here.
"""
from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from llmdoctor.model import ExitCode
from llmdoctor.redact import redact_text
from llmdoctor.app.exporter.collector import dedicated_registry, exposition
from llmdoctor.app.exporter.scheduler import DiagnoseFn, Scheduler
from llmdoctor.app.exporter.state import load_state, restore_state, save_state
from llmdoctor.atomic import write_atomic

log = logging.getLogger(__name__)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def parse_duration(text: str) -> float:
    """'60s', '10m', '1h', '1.5m' or plain seconds -> seconds (> 0)."""
    m = _DURATION.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a duration (examples: 60s, 10m, 1h)")
    seconds = float(m.group(1)) * _SECONDS[m.group(2)]
    if seconds <= 0:
        raise ValueError(f"{text!r}: a duration must be positive")
    return seconds


def parse_listen(text: str) -> tuple[str, int]:
    """'127.0.0.1:9877', '[::1]:9877', ':9877' (all interfaces, on purpose) or '9877' (loopback)."""
    text = str(text).strip()
    if re.fullmatch(r"\d+", text):
        host, port = "127.0.0.1", text
    else:
        m = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\]:(\d+)|([^:\[\]]*):(\d+)", text)
        if not m:
            raise ValueError(f"{text!r} is not an address to listen on (example: 127.0.0.1:9877)")
        host = m.group(1) if m.group(1) is not None else (m.group(3) or "0.0.0.0")
        port = m.group(2) or m.group(4)
    port_n = int(port)
    if not 0 < port_n < 65536:
        raise ValueError(f"{text!r}: port must be 1-65535")
    return host, port_n


LOCAL_SPECS = ("", "local", "localhost")
SWITCH_INTERVAL = 0.0005  # seconds; see serve_http


@dataclass(frozen=True)
class SSHOptions:
    """How remote targets are reached (the same choices `llmdoctor diagnose` offers)."""

    sudo: bool = False
    accept_new_host_keys: bool = False
    ssh_config: str | None = None
    connect_timeout: float = 10.0


def target_names(hosts: Sequence[str], evidence: Sequence[str]) -> list[tuple[str, str, str]]:
    """(label, kind, spec) per target, with unique labels; a bad target raises ValueError
    (or OSError for a missing evidence directory) before anything runs. Evidence
    directories are named by their meta.json host or directory name, this machine by
    its host name, like the diagnosis names them."""
    out: list[tuple[str, str, str]] = []
    seen: dict[str, int] = {}
    for kind, specs in (("evidence", evidence), ("host", hosts)):
        for spec in specs:
            if kind == "evidence":
                from llmdoctor.hosts.evidence import EvidenceHost

                label = EvidenceHost(spec).name
            elif spec in LOCAL_SPECS:
                import socket

                label = socket.gethostname() or "local"
            else:
                from llmdoctor.knowledge.inventory import is_container_target, parse_container_target, parse_target

                try:
                    (parse_container_target if is_container_target(spec) else parse_target)(spec)
                except ValueError as e:
                    raise ValueError(f"invalid host {spec!r}: {e}") from None
                label = re.sub(r"^ssh://", "", spec)
            label = redact_text(label)  # meta.json's host or the spec may be `https://admin:pw@gpu1`
            n = seen.get(label, 0)
            seen[label] = n + 1
            out.append((label if n == 0 else f"{label}#{n + 1}", kind, spec))
    return out


def open_host(kind: str, spec: str, ssh: SSHOptions | None = None) -> Any:
    if kind == "evidence":
        from llmdoctor.hosts.evidence import EvidenceHost

        return EvidenceHost(spec)
    if spec in LOCAL_SPECS:
        from llmdoctor.hosts.local import LocalHost

        return LocalHost()
    from llmdoctor.hosts.ssh import SSHHost

    ssh = ssh or SSHOptions()
    from llmdoctor.knowledge.inventory import is_container_target, parse_container_target

    if is_container_target(spec):
        from llmdoctor.hosts.container import ContainerHost

        t = parse_container_target(spec)
        if t.runtime == "k8s":
            from llmdoctor.hosts.kube import KubeHost

            return KubeHost(t)
        return ContainerHost(t, via=open_host("host", str(t.via), ssh) if t.via else None)
    return SSHHost(spec, sudo=ssh.sudo, accept_new_host_keys=ssh.accept_new_host_keys,
                   connect_timeout=ssh.connect_timeout, ssh_config=ssh.ssh_config)


def state_dir_for(root: str | None, label: str) -> str | None:
    """Per-target directory for resumable log positions (None: no resume)."""
    if not root:
        return None
    return os.path.join(root, re.sub(r"[^A-Za-z0-9._-]", "_", label) or "target")


def diagnosis_runner(
    targets: Sequence[tuple[str, str, str]], opts: Any = None, state_root: str | None = None, ssh: SSHOptions | None = None
) -> DiagnoseFn:
    """`diagnose(label, probe)` over the real diagnosis; checks are loaded once.

    Live targets get a state directory under `state_root`, so each run's log scan
    resumes where the previous one stopped (log counts become new events)."""
    from llmdoctor.plugins import load_checks
    from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target, unreachable
    from llmdoctor.hosts.base import HostError

    opts = opts or DiagnoseOptions()
    specs, load_errors = load_checks(opts.checks_dirs)
    by_label = {label: (kind, spec) for label, kind, spec in targets}

    def run(label: str, probe: bool) -> Any:
        kind, spec = by_label[label]
        options = opts.options
        if probe:
            options = replace(options, probe=True)
        state = state_dir_for(state_root, label) if kind != "evidence" else None
        if state:
            options = replace(options, state_dir=state)
        try:
            host = open_host(kind, spec, ssh)
        except (HostError, OSError, ValueError) as e:
            return unreachable(label, str(e) or type(e).__name__)
        try:
            return diagnose_target(host, replace(opts, options=options), specs, load_errors)
        except HostError as e:
            return unreachable(label, str(e) or type(e).__name__)
        finally:
            try:
                host.close()
            except Exception:
                pass

    run.probe_checks = frozenset(s.id for s in specs if "probe" in s.params)  # type: ignore[attr-defined]
    return run


def resumed_targets(targets: Sequence[tuple[str, str, str]], state_root: str | None) -> set[str]:
    return {label for label, kind, _ in targets if kind != "evidence"} if state_root else set()


def stop_on_signals(stop: threading.Event, got: list | None = None) -> None:
    """SIGTERM (systemd stop) and SIGINT end the exporter cleanly; `got` collects which came
    (a Ctrl-C is said and exits 130, a systemd stop is a normal end)."""
    def handler(signum, _frame) -> None:
        if got is not None:
            got.append(signum)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


def _run_until_stopped(scheduler: Scheduler, stop: threading.Event | None) -> None:
    """Cycle in the background until `stop` is set (by a signal handler or the caller)."""
    stop = stop or threading.Event()
    scheduler.start()
    try:
        while not stop.wait(1.0):
            pass
    finally:
        scheduler.stop()


def serve_http(
    labels: Sequence[str],
    diagnose: DiagnoseFn,
    listen: tuple[str, int],
    interval: float,
    probe_interval: float | None = None,
    stop: threading.Event | None = None,
    ready: Callable[[tuple[str, int]], None] | None = None,
    resumed_logs: Sequence[str] = (),
    state_root: str | None = None,
) -> int:
    """Serve the latest snapshot on `listen` until `stop` is set; returns an exit code.
    With `state_root`, the history of settings and findings (history.py) is kept there."""
    from llmdoctor.app.exporter.history import History

    from llmdoctor.app.exporter import http_server

    # A diagnosis holds the GIL for long stretches (a log scan): hand it to the HTTP thread
    # within a millisecond, not Python's default 5 ms per hand-off, so scrapes stay fast.
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    registry, collector = dedicated_registry()
    scheduler = Scheduler(labels, diagnose, collector.publish, interval, probe_interval, resumed_logs=resumed_logs,
                          probe_checks=getattr(diagnose, "probe_checks", ()),
                          history=History.load(state_root) if state_root else None)
    httpd, thread = http_server.start(listen, lambda: exposition(registry))
    try:
        if ready:
            bound = httpd.server_address[:2]
            ready((str(bound[0]), int(bound[1])))
        _run_until_stopped(scheduler, stop)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
    return ExitCode.OK


def write_textfile(
    labels: Sequence[str],
    diagnose: DiagnoseFn,
    path: str,
    interval: float,
    probe_interval: float | None = None,
    once: bool = False,
    stop: threading.Event | None = None,
    resumed_logs: Sequence[str] = (),
    state_root: str | None = None,
) -> int:
    """Write the metrics to `path` after each cycle (one cycle with `once`).

    With `once` each run is a new process (a systemd timer), so what must outlive
    it - counters, when the probe last ran and its figures - is kept in
    `state_root`: counters must not restart at every write, and the probe runs
    only every `probe_interval`, not at every timer tick."""
    from llmdoctor.app.exporter.history import History

    registry, collector = dedicated_registry()

    def publish(families: list) -> None:
        collector.publish(families)
        write_atomic(path, exposition(registry))

    scheduler = Scheduler(labels, diagnose, publish, interval, probe_interval, resumed_logs=resumed_logs,
                          probe_checks=getattr(diagnose, "probe_checks", ()),
                          history=History.load(state_root) if state_root else None)
    if once:
        state = load_state(state_root)
        restore_state(scheduler, state)
        last_probe = state.get("last_probe_unix")
        last_probe = float(last_probe) if isinstance(last_probe, (int, float)) else None
        now = scheduler.clock()
        probe = bool(probe_interval) and (last_probe is None or now - last_probe >= float(probe_interval or 0))
        scheduler.run_cycle(probe=probe)
        save_state(state_root, scheduler, now if probe else last_probe)
        return ExitCode.OK
    _run_until_stopped(scheduler, stop)
    return ExitCode.OK
