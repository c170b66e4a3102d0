"""`llmdoctor history`: what changed, from the exporter's history (app/exporter/history.py)."""
from __future__ import annotations

import os
from typing import Optional

import typer

from llmdoctor.cli import fail
from llmdoctor.cli.complete import choices

EXAMPLES = """\b
Examples:
  llmdoctor history                                  the last 7 days, every target
  llmdoctor history --since 1d --target gpu1
  llmdoctor history --state-dir /var/lib/llmdoctor -f json"""

# where the exporter keeps its state: its systemd unit's StateDirectory=llmdoctor, else --once's default
SYSTEM_STATE = "/var/lib/llmdoctor"


def state_dirs(given: Optional[str]) -> list[str]:
    if given:
        return [given]
    env = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return [d for d in (env, SYSTEM_STATE, os.path.join(base, "llmdoctor", "exporter")) if d]


def register(app: typer.Typer) -> None:
    @app.command("history", epilog=EXAMPLES)
    def history(
        since: str = typer.Option("7d", "--since", help="How far back (30m, 12h, 7d)."),
        target: Optional[str] = typer.Option(None, "--target", "-t", help="Only this target (as the exporter labels it)."),
        state_dir: Optional[str] = typer.Option(None, "--state-dir", help="The exporter's --state-dir (default: $STATE_DIRECTORY, /var/lib/llmdoctor, ~/.local/state/llmdoctor/exporter)."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json")), help="text or json."),
    ) -> None:
        """What changed: settings of each target and findings appearing and clearing, as the exporter saw them; a finding that appeared soon after a settings change is told with it."""
        import json
        import time

        from llmdoctor.app.exporter.history import HISTORY_FILE, History, describe, transition_json, transitions
        from llmdoctor.app.exporter.service import parse_duration

        if fmt not in ("text", "json"):
            fail(f"--format {fmt}: one of text, json")
        try:
            window = parse_duration(since)
        except ValueError as e:
            fail(f"--since: {e}")
        found = [d for d in state_dirs(state_dir) if os.path.isfile(os.path.join(d, HISTORY_FILE))]
        if not found:
            fail(f"no exporter history in {', '.join(state_dirs(state_dir))} (the exporter keeps one in its --state-dir)")
        try:  # the exporter's unit keeps it 0600 under its own user: say so, not "no change"
            with open(os.path.join(found[0], HISTORY_FILE), "rb"):
                pass
        except OSError as e:
            fail(f"cannot read {os.path.join(found[0], HISTORY_FILE)}: {e.strerror or e}"
                 + (" (the exporter's user owns it: run with sudo)" if isinstance(e, PermissionError) else ""))
        h = History.load(found[0])
        rows = transitions(h.events, since=time.time() - window, target=target)
        if fmt == "json":
            typer.echo(json.dumps({"state_dir": found[0], "since_seconds": window,
                                   "transitions": [transition_json(r) for r in rows]}, indent=2))
            return
        if not rows:
            typer.echo(f"No change in the last {since} ({found[0]}).")
            return
        for r in rows:
            typer.echo(describe(r))
