"""`llmdoctor probe --sweep`: the concurrency sweep as a command (opt-in, bounded).

States the plan on stderr before the first request, runs the sweep per URL (app/probe.py
sweep), prints the table. Ctrl-C and SIGTERM both stop it cleanly: open streams are shut,
what was measured is printed (marked partial), and the exit is 3 (or 143 after SIGTERM,
once the terminate hooks of hosts/terminate.py have run).
"""
from __future__ import annotations

import signal
import sys
import threading

import typer

FORMATS = ("text", "json", "markdown", "html")
TERMINATED = 128 + signal.SIGTERM  # what hosts/terminate.py exits with, as every program killed by SIGTERM


def sweep_plan(max_concurrency: int | None, token_budget: int, deadline_s: float, ttft_target: str, fmt: str,
               itl_target: str | None = None):
    """The plan from the options, or a usage error (one line, exit 3). Without --max-concurrency
    it is the default plan, cut to the deadline once the first request is timed."""
    from llmdoctor.knowledge.probe.sweep import DEFAULT_MAX_CONCURRENCY, SweepPlan, parse_duration
    from llmdoctor.model import ExitCode

    try:
        target_s = parse_duration(ttft_target)
    except ValueError as e:
        typer.echo(f"llmdoctor: --ttft-target: {e}", err=True)
        raise typer.Exit(ExitCode.UNKNOWN)
    try:
        itl_s = parse_duration(itl_target) if itl_target is not None else None
    except ValueError as e:
        typer.echo(f"llmdoctor: --itl-target: {e}", err=True)
        raise typer.Exit(ExitCode.UNKNOWN)
    if fmt not in FORMATS:
        typer.echo(f"llmdoctor: the sweep prints {', '.join(FORMATS)}, not {fmt!r}", err=True)
        raise typer.Exit(ExitCode.UNKNOWN)
    return SweepPlan(max_concurrency=max_concurrency or DEFAULT_MAX_CONCURRENCY, token_budget=token_budget,
                     deadline_s=deadline_s, ttft_target_s=target_s, itl_target_s=itl_s,
                     fit_to_deadline=max_concurrency is None)


def sweep_command(urls: list[str], model: str | None, plan, fmt: str, progress, save: str | None = None) -> None:
    """Run the sweep on each URL and exit with its code (raises typer.Exit)."""
    from llmdoctor.app.probe import sweep
    from llmdoctor.hosts.terminate import run_hooks
    from llmdoctor.model import ExitCode
    from llmdoctor.redact import redact_text
    from llmdoctor.render import render
    from llmdoctor.render.sweep import SweepView, sweep_json

    cancel = threading.Event()
    terminated = []

    def on_sigterm(signum, frame) -> None:  # only a flag: the waiting loop shuts the sockets
        terminated.append(signum)
        cancel.set()

    from llmdoctor.render.layout import output_width, wrap_text

    def announce(msg: str) -> None:  # the plan, before it is sent: always said, at the terminal's width
        typer.echo(wrap_text(redact_text(f"llmdoctor: {msg}"), output_width(sys.stderr)), err=True)

    previous = signal.signal(signal.SIGTERM, on_sigterm) if threading.current_thread() is threading.main_thread() else None
    try:
        report, verdicts = sweep(urls, model, plan, progress, cancel, announce=announce)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    view = SweepView(report, verdicts)
    from llmdoctor.render.unavailable import HtmlUnavailable

    try:
        page = render(view, fmt)
    except HtmlUnavailable as e:  # --format html without matplotlib: the sweep is still saved below
        typer.echo(f"llmdoctor: {e}", err=True)
        page, fmt = "", "none"
    sys.stdout.write(redact_text(page))
    sys.stdout.flush()
    if save and verdicts:  # for `plan --what-if ... --from`; written even when stopped: it says partial
        try:
            with open(save, "w", encoding="utf-8") as f:
                f.write(redact_text(sweep_json(view)))
        except OSError as e:
            typer.echo(f"llmdoctor: --save {save}: {e.strerror or e}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        typer.echo(f"llmdoctor: sweep saved to {save} (for `llmdoctor plan --what-if SETTING=VALUE --from {save}`)",
                   err=True)
    if terminated:
        run_hooks()
        raise typer.Exit(TERMINATED)
    code = report.exit_code()
    if not verdicts or cancel.is_set():  # nothing measured, or stopped by Ctrl-C
        code = ExitCode.UNKNOWN
    raise typer.Exit(code)
