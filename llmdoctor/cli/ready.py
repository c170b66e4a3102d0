"""`llmdoctor ready`: the engine proves it serves within a deadline (app/ready.py)."""
from __future__ import annotations

from typing import Optional

import typer

from llmdoctor.cli.complete import choices

from llmdoctor.cli import fail

EXAMPLES = """\b
Examples:
  llmdoctor ready http://127.0.0.1:8080            exit 0 serving, 2 not serving, 3 could not tell
  llmdoctor ready http://127.0.0.1:11434 --model llama3.1:8b
  llmdoctor ready http://127.0.0.1:8000 --deadline 10 -f nagios
  HEALTHCHECK CMD ["llmdoctor", "ready", "http://127.0.0.1:8000"]"""


def register(app: typer.Typer) -> None:
    @app.command("ready", epilog=EXAMPLES)
    def ready(
        url: str = typer.Argument("http://127.0.0.1:11434", help="The engine's base URL (default: Ollama on this host)."),
        deadline: float = typer.Option(5.0, "--deadline", min=0.5, max=600, help="Seconds for the whole check (default 5)."),
        model: Optional[str] = typer.Option(None, "--model", "-m", help="The model to ask (Ollama: only one already in memory; never loaded)."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json", "nagios")), help="text, json or nagios."),
        no_request: bool = typer.Option(False, "--no-request", help="Never send a request: decide from health and counters only (exit 3 when nothing is in flight)."),
    ) -> None:
        """Does the engine serve? Proves progress (tokens advancing, or a 1-token request answered) within a deadline: for load balancers, HEALTHCHECK, Kubernetes probes and monitors."""
        import json

        from llmdoctor.app.ready import check_progress, progress_json

        if fmt not in ("text", "json", "nagios"):
            fail(f"--format {fmt}: one of text, json, nagios")
        p = check_progress(url, model=model, deadline=deadline, send_request=not no_request)
        if fmt == "json":
            typer.echo(json.dumps(progress_json(url, p), indent=2))
        elif fmt == "nagios":
            word = {0: "OK", 2: "CRITICAL"}.get(p.exit_code, "UNKNOWN")
            typer.echo(f"LLMDOCTOR READY {word} - {p.state}: {p.reason} | 'seconds'={p.seconds:.3f}s;;;0")
        else:
            typer.echo(f"{p.state}: {p.reason}")
            for line in p.evidence:
                typer.echo(f"  {line}")
        raise typer.Exit(p.exit_code)
