"""`llmdoctor exporter`: the diagnosis on a schedule, as Prometheus metrics.

Imports of the exporter (and prometheus_client, and stdlib modules the other commands
do not need) happen inside the command, so registering it costs the CLI's startup nothing.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from llmdoctor.model import ExitCode


def register(app: typer.Typer) -> None:
    @app.command("exporter", epilog="""\b
Examples:
  llmdoctor exporter                                  # this host, /metrics on 127.0.0.1:9877
  llmdoctor exporter -H gpu1 -H gpu2 --listen :9877   # two hosts over SSH, for a Prometheus elsewhere
  llmdoctor exporter --textfile /var/lib/node_exporter/llmdoctor.prom --once   # from a systemd timer
  llmdoctor exporter --probe-interval 10m -v          # also time a live request every 10 minutes
""")
    def exporter(
        listen: str = typer.Option("127.0.0.1:9877", "--listen", help="Address to serve /metrics on (loopback unless told otherwise; ':9877' = all interfaces)."),
        interval: str = typer.Option("60s", "--interval", help="Time between diagnosis runs (60s, 5m, ...)."),
        probe_interval: Optional[str] = typer.Option(None, "--probe-interval", help="Also run the live probe this often (e.g. 10m); off by default."),
        host: List[str] = typer.Option([], "--host", "-H", help="Target: 'local' or [user@]host[:port] over SSH (repeatable). Default: this machine."),
        inventory: Optional[str] = typer.Option(None, "--inventory", "-i", help="File with one host per line (Ansible INI accepted)."),
        evidence: List[str] = typer.Option([], "--evidence", "-e", help="Evidence directory to diagnose instead of a live host (repeatable)."),
        textfile: Optional[str] = typer.Option(None, "--textfile", help="Write metrics to this .prom file for node_exporter instead of serving HTTP."),
        once: bool = typer.Option(False, "--once", help="With --textfile: one run, write, exit (for a systemd timer)."),
        unit: List[str] = typer.Option([], "--unit", "-u", help="systemd unit of the engine, if not ollama/vllm*/llama* (repeatable)."),
        checks_dir: List[str] = typer.Option([], "--checks-dir", help="Extra directory of site checks (repeatable)."),
        log: List[str] = typer.Option([], "--log", help="Extra engine log file to read (repeatable)."),
        since: str = typer.Option("1h", "--since", help="Log window the first run examines; later runs read only new lines."),
        sample_seconds: float = typer.Option(2.0, "--sample-seconds", min=0.0, max=60.0, help="One window, in seconds, over which CPU use, swap traffic and the engines' metrics are sampled together in each run."),
        state_dir: Optional[str] = typer.Option(None, "--state-dir", help="Where log positions (and, with --once, counters) are kept. Default: $STATE_DIRECTORY (systemd), else a private temporary directory (with --once: ~/.local/state/llmdoctor/exporter)."),
        sudo: bool = typer.Option(False, "--sudo", help="Over SSH, run commands with sudo -n (never prompts)."),
        accept_new_host_keys: bool = typer.Option(False, "--accept-new-host-keys", help="Over SSH, accept keys of hosts not yet known (never changed ones)."),
        ssh_config: Optional[str] = typer.Option(None, "--ssh-config", help="ssh_config file to use (default: the user's)."),
        connect_timeout: float = typer.Option(10.0, "--connect-timeout", min=1.0, max=120.0, help="SSH connect timeout, seconds."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each run to stderr."),
    ) -> None:
        """Serve diagnosis results as Prometheus metrics, refreshed every --interval."""
        import logging
        import shutil
        import signal
        import tempfile
        import threading

        from llmdoctor.app.exporter import service
        logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                            format="llmdoctor exporter: %(message)s")
        try:
            every = service.parse_duration(interval)
            probe_every = service.parse_duration(probe_interval) if probe_interval else None
            window = service.parse_duration(since)
            address = service.parse_listen(listen)
            if once and not textfile:
                raise ValueError("--once needs --textfile")
            hosts = list(host)
            if inventory:
                from llmdoctor.knowledge.inventory import parse_inventory

                with open(inventory, encoding="utf-8") as f:
                    hosts += parse_inventory(f.read())
            if evidence and hosts:
                raise ValueError("--evidence cannot be combined with --host/--inventory")
            targets = service.target_names(hosts or ([] if evidence else ["local"]), evidence)
            from llmdoctor.knowledge.systemd.names import check_unit

            unit = [check_unit(u) for u in unit]  # BadUnitName is a ValueError: one line, exit 3
        except (ValueError, OSError) as e:
            typer.echo(f"llmdoctor exporter: {e}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)

        from llmdoctor.app.diagnose import DiagnoseOptions
        from llmdoctor.facts import RunOptions

        temporary = None
        state_root = state_dir or os.environ.get("STATE_DIRECTORY", "").split(":")[0] or None
        if state_root is None and once:
            base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
            state_root = os.path.join(base, "llmdoctor", "exporter")
        if state_root is None:
            temporary = state_root = tempfile.mkdtemp(prefix="llmdoctor-exporter-")
        opts = DiagnoseOptions(units=tuple(unit), since_seconds=window, sample_seconds=sample_seconds,
                               checks_dirs=tuple(checks_dir), options=RunOptions(log_files=tuple(log)))
        ssh = service.SSHOptions(sudo, accept_new_host_keys, ssh_config, connect_timeout)
        diagnose = service.diagnosis_runner(targets, opts, state_root, ssh)
        resumed = sorted(service.resumed_targets(targets, state_root))
        labels = [label for label, _, _ in targets]
        stop = threading.Event()
        got: list[int] = []
        try:
            if textfile:
                if not once:
                    service.stop_on_signals(stop, got)
                code = service.write_textfile(labels, diagnose, textfile, every, probe_every, once=once, stop=stop,
                                              resumed_logs=resumed, state_root=state_root)
            else:
                service.stop_on_signals(stop, got)
                code = service.serve_http(
                    labels, diagnose, address, every, probe_every, stop=stop, resumed_logs=resumed, state_root=state_root,
                    ready=lambda a: typer.echo(f"llmdoctor exporter: serving http://{a[0]}:{a[1]}/metrics", err=True),
                )
        except OSError as e:
            typer.echo(f"llmdoctor exporter: {e}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        except KeyboardInterrupt:  # --once: Ctrl-C inside its one run
            got.append(signal.SIGINT)
            code = ExitCode.UNKNOWN
        finally:
            if temporary:
                shutil.rmtree(temporary, ignore_errors=True)
        if signal.SIGINT in got:  # (a SIGTERM is systemd's stop: a normal end, exit 0)
            kept = (f"{textfile} keeps its last complete run" if textfile and os.path.exists(textfile)
                    else f"no run was written to {textfile}" if textfile else "it no longer serves /metrics")
            typer.echo(f"llmdoctor exporter: interrupted: {kept}", err=True)
            from llmdoctor.cli import INTERRUPTED

            raise typer.Exit(INTERRUPTED)
        raise typer.Exit(code)
