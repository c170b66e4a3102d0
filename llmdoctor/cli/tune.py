"""`llmdoctor tune ollama`: a bounded, verified, reversible Ollama configuration.

Dry run by default (the drop-in, a unified diff, the exact commands); `--apply` needs
root and a confirmation (or `--yes`); `--rollback` restores the state before the last
tune. Exit codes: 0 done / dry run / nothing to change, 2 apply failed (and was rolled
back), 3 bad input (nothing written).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from llmdoctor.cli.complete import choices

from llmdoctor.model import ExitCode
from llmdoctor.cli.plan import BadInput, parse_memory, workload_from_flags


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def register(app: typer.Typer) -> None:
    tune_app = typer.Typer(help="Apply a tuned, bounded configuration to an engine's service (dry run by default).",
                           no_args_is_help=True, epilog="""\b
Examples:
  llmdoctor tune ollama --users 10                 # dry run: the drop-in it would write
  sudo llmdoctor tune ollama --users 10 --apply    # write, restart, verify; restore on failure
""")
    app.add_typer(tune_app, name="tune")

    @tune_app.command("ollama", epilog="""\b
Examples:
  llmdoctor tune ollama --users 10                 # dry run: show the drop-in it would write
  sudo llmdoctor tune ollama --users 10 --apply    # write, restart, verify; restore on failure
  sudo llmdoctor tune ollama --rollback            # back to the state before the last tune
  llmdoctor tune ollama -e evidence/ --users 10    # propose from an evidence directory
""")
    def tune_ollama(
        users: Optional[int] = typer.Option(None, "--users", min=1, help="People or agents using the model."),
        turn_seconds: Optional[float] = typer.Option(None, "--turn-seconds", help="Seconds one answer takes to generate."),
        think_seconds: Optional[float] = typer.Option(None, "--think-seconds", help="Seconds a user reads/types before the next request (0 for agents)."),
        between: Optional[float] = typer.Option(None, "--seconds-between-turns", help="Seconds from one turn's start to the same user's next."),
        concurrent: Optional[int] = typer.Option(None, "--concurrent", min=1, help="Requests in flight at once (instead of --users)."),
        model: Optional[str] = typer.Option(None, "--model", "-m", help="Model to size (default: the loaded one)."),
        context: Optional[int] = typer.Option(None, "--context", min=1, help="Context per request, tokens (default: keep the current one)."),
        max_parallel: int = typer.Option(16, "--max-parallel", min=1, help="Upper bound for OLLAMA_NUM_PARALLEL."),
        gpu_memory: Optional[str] = typer.Option(None, "--gpu-memory", help="GPU memory (24GB, 24GiB); default: NVML / Ollama's log."),
        weights: Optional[str] = typer.Option(None, "--weights", help="Memory the weights take; default: from /api/ps."),
        headroom: Optional[str] = typer.Option(None, "--headroom", help="Memory kept free besides weights and KV (default 1.5GiB)."),
        unit: str = typer.Option("ollama.service", "--unit", "-u", help="The Ollama systemd unit."),
        port: Optional[int] = typer.Option(None, "--port", help="Ollama's port (default: discovered, else 11434)."),
        root: Path = typer.Option(Path("/"), "--root", help="System root to write under (packaging, tests); not / = files only, no restart."),
        do_apply: bool = typer.Option(False, "--apply", help="Write the drop-in, restart, verify; restore on any failure."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
        rollback: bool = typer.Option(False, "--rollback", help="Restore the state before the last tune."),
        evidence: Optional[Path] = typer.Option(None, "--evidence", "-e", help="Propose from an evidence directory (dry run only)."),
        ready_timeout: float = typer.Option(30.0, "--ready-timeout", min=1.0, max=600.0, help="Seconds to wait for Ollama after the restart."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json."),
        width: Optional[int] = typer.Option(None, "--width", min=0, max=1000, help="Wrap text at this many columns (default: the terminal's, $COLUMNS, else 80; 0: never)."),
    ) -> None:
        """Size OLLAMA_NUM_PARALLEL, CONTEXT_LENGTH, MAX_QUEUE (and KV cache type, KEEP_ALIVE when needed) from memory and workload."""
        from llmdoctor.hosts.local import LocalHost
        from llmdoctor.app.tune import session
        from llmdoctor.app.tune.apply import ApplyError, ApplyInterrupted
        from llmdoctor.judge.sizing import DEFAULT_HEADROOM
        from llmdoctor.judge.proposal import ProposalError
        from llmdoctor.render import render
        from llmdoctor.render.tune import TuneView

        def fail(msg: str, code: int = ExitCode.UNKNOWN) -> None:
            typer.echo(f"llmdoctor: {msg}", err=True)
            raise typer.Exit(code)

        if fmt not in ("text", "json"):
            fail(f"unknown --format {fmt!r}; choose text or json")
        from llmdoctor.knowledge.systemd.names import BadUnitName, check_unit

        try:
            unit = check_unit(unit)
        except BadUnitName as e:
            fail(f"--unit: {e}")
        live = Path(root).resolve() == Path("/")
        host = LocalHost()
        try:
            if evidence is not None:
                host, root = session.from_evidence(evidence, applying=do_apply or rollback)
            if rollback:
                session.needs_root(live, os.geteuid(), "--rollback needs root (it restarts the service)")
                outcome = session.rollback(host, session.TuneOptions(unit=unit, root=root, port=port,
                                                                     ready_timeout=ready_timeout), live)
                _emit(fmt, outcome.to_dict(), render(outcome))
                raise typer.Exit(ExitCode.OK if outcome.ok else ExitCode.CRITICAL)
            workload = workload_from_flags(users, turn_seconds, think_seconds, between, concurrent)
            opts = session.TuneOptions(
                unit=unit, root=root, port=port, model=model, workload=workload, context=context,
                max_parallel=max_parallel, weights=parse_memory(weights, "--weights"),
                gpu_memory=parse_memory(gpu_memory, "--gpu-memory"),
                headroom=parse_memory(headroom, "--headroom") or DEFAULT_HEADROOM, ready_timeout=ready_timeout)
            store = session._store(host, opts)
            if not workload.given and _interactive() and fmt == "text":
                from llmdoctor.cli.guided import ask_workload

                log = store.optional("ollama_log")
                typical = getattr(getattr(log, "requests", None), "typical_service_s", None)
                opts.workload = ask_workload(lambda q, d: typer.prompt(q, default=d), typer.echo, typical)
            prepared = session.prepare(host, opts, store)
            if not do_apply:
                _emit(fmt, _dry_dict(prepared), render(TuneView(prepared, unit, applying=False, width=width)))
                raise typer.Exit(ExitCode.OK)
            session.needs_root(live, os.geteuid(), "--apply needs root (it writes /etc/systemd/system and restarts "
                                                   "the service); run it with sudo, or without --apply for a dry run")
            if prepared.conflicts:
                raise session.Refused("another file would override llmdoctor's values: " + "; ".join(prepared.conflicts))
            if fmt == "text":
                sys.stdout.write(render(TuneView(prepared, unit, applying=True, width=width)))
            if prepared.nothing_to_change and not live:
                _emit_json_only(fmt, {**_dry_dict(prepared), "outcome": {"ok": True, "changed": False,
                                                                          "message": "nothing to change"}})
                raise typer.Exit(ExitCode.OK)
            if not yes and not prepared.nothing_to_change:
                if not _interactive():
                    fail("--apply without a terminal needs --yes")
                if not typer.confirm(f"Write {prepared.path} and restart {unit}?", default=False):
                    fail("not applied")
            outcome = session.apply_live(host, opts, prepared, live)
        except ApplyInterrupted as e:  # Ctrl-C inside --apply: the previous state is back; say each step
            from llmdoctor.steps import cut

            if fmt == "json":
                sys.stdout.write(json.dumps({**_dry_dict(prepared), "outcome": e.outcome.to_dict()}, indent=2) + "\n")
            else:
                sys.stdout.write(render(e.outcome))
            cut(e.outcome.message)
            from llmdoctor.cli import INTERRUPTED

            raise typer.Exit(INTERRUPTED)
        except (session.Refused, BadInput, ProposalError, ApplyError) as e:
            fail(str(e))
        except OSError as e:  # a file the dry run reads (the transaction turns its own faults into ApplyError)
            fail(f"{str(e.filename) + ': ' if e.filename else ''}{e.strerror or e}")
        if fmt == "json":
            sys.stdout.write(json.dumps({**_dry_dict(prepared), "outcome": outcome.to_dict()}, indent=2) + "\n")
        else:
            sys.stdout.write(render(outcome))
        raise typer.Exit(ExitCode.OK if outcome.ok else ExitCode.CRITICAL)

def _dry_dict(prepared) -> dict:
    """tune's JSON (its own shape, llmdoctor/schema/tune.schema.json): `plan` is what it writes,
    where, what is held back and why, next to diagnose's What to change for the unit;
    `proposal` is tune's own sizing (null when it could not size)."""
    prop = prepared.proposal
    return {
        "model": prop.model if prop is not None else None,
        "version": prepared.version,
        "plan": {"path": prepared.path, **prepared.plan.to_dict()} if prepared.plan is not None else None,
        "proposal": prop.to_dict() if prop is not None else None,
        "dropin": {"path": prepared.path, "content": prepared.new, "diff": prepared.diff,
                   "nothing_to_change": prepared.nothing_to_change},
        "wins_over": list(prepared.wins_over),
        "conflicts": list(prepared.conflicts),
        "unavailable": prepared.gaps,
    }


def _emit(fmt: str, data: dict, text: str) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(text)


def _emit_json_only(fmt: str, data: dict) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
