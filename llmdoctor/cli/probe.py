"""`llmdoctor probe [URL]`: stream a few requests at a server and say why it is slow.

Thin: the arguments, then app/probe.py (detect and run the probe, judged through the
diagnosis pipeline: app/diagnose.py judge_probe, the probe_* checks `diagnose --probe` uses),
then render. Progress goes to stderr (a terminal, or -v); the JSON output carries the raw per-request timings
under "probe".
"""
from __future__ import annotations

import sys
from typing import Optional

import typer

from llmdoctor.cli.complete import choices

FORMATS = ("text", "json", "markdown", "html")


def _progress_printer(verbose: bool):
    """One line per step on stderr where a person watches (a terminal, or -v); else nothing."""
    from llmdoctor.cli.progress import step_printer

    return step_printer("probe", verbose) or (lambda _msg: None)


def register(app: typer.Typer) -> None:
    @app.command("probe", epilog="""\b
Examples:
  llmdoctor probe                                   # the engines on this host
  llmdoctor probe http://127.0.0.1:11434 -m llama3:8b
  llmdoctor probe http://gpu1:8000 --mode load -n 8   # opt-in load: 8 streams + a long prompt
  llmdoctor probe http://gpu1:8080 -f json > probe.json
  llmdoctor probe http://gpu1:8080 --sweep --max-concurrency 16 --ttft-target 2s
  llmdoctor probe http://gpu1:8080 --sweep --ttft-target 2s --itl-target 100ms --save sweep.json
""")
    def probe(
        url: Optional[str] = typer.Argument(None, help="Server URL, e.g. http://127.0.0.1:11434, or a Kubernetes "
                                            "pod k8s://[CONTEXT/]NAMESPACE/POD or .../deploy/NAME (through kubectl "
                                            "port-forward; default: the engines found on this host)."),
        model: Optional[str] = typer.Option(None, "--model", "-m", help="Model to probe (default: the loaded one)."),
        mode: str = typer.Option("light", "--mode", help="light (safe default) or load (opt-in: slots+1 streams "
                                 "and a long prompt)."),
        concurrency: Optional[int] = typer.Option(None, "--concurrency", "-n", min=1, max=32,
                                                  help="Load mode: streams at once (default: slots + 1)."),
        deadline: float = typer.Option(60.0, "--deadline", min=5.0, max=600.0, help="Stop the whole probe after "
                                       "this many seconds."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(FORMATS), help="text, json, markdown or html (one self-contained page)."),
        sweep: bool = typer.Option(False, "--sweep", help="Opt-in: TTFT and ITL at 1, 2, 4, ... concurrent streams "
                                   "up to --max-concurrency; finds the knee and the users within --ttft-target."),
        max_concurrency: Optional[int] = typer.Option(None, "--max-concurrency", min=1, max=32,
                                                      help="Sweep: the most streams at once (default: 8, fewer "
                                                      "where the first request shows 8 would not fit --deadline)."),
        token_budget: int = typer.Option(4096, "--token-budget", min=100, max=1_000_000, help="Sweep: output "
                                         "tokens it may generate in all; it stops before a round would pass it."),
        ttft_target: str = typer.Option("2s", "--ttft-target", help="Sweep: the TTFT (p95) a user should get, "
                                        "e.g. 2s or 500ms."),
        itl_target: Optional[str] = typer.Option(None, "--itl-target", help="Sweep: the inter-token latency (p95) "
                                                 "the headroom must also keep, e.g. 100ms."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Say each step on stderr (which request, "
                                     "how long is left) even when stderr is not a terminal."),
        save: Optional[str] = typer.Option(None, "--save", help="Sweep: also write its JSON to this file (for "
                                           "`llmdoctor plan --what-if ... --from FILE`)."),
    ) -> None:
        """Measure TTFT and inter-token latency live; tell queueing from sharing, prefill and unload.

        URL is the server, e.g. http://127.0.0.1:11434 (default: the engines found on this host).
        The light probe sends 13 requests (3 runs of each scenario), at most 2 at once, <= 20 tokens each; --mode load is opt-in.
        """
        from llmdoctor.app.probe import default_urls, pod_urls, probe as run_probe
        from llmdoctor.model import ExitCode
        from llmdoctor.redact import redact_text
        from llmdoctor.render import render
        from llmdoctor.render.probe import ProbeView

        if fmt not in FORMATS:
            typer.echo(f"llmdoctor: unknown --format {fmt!r}; choose one of {', '.join(FORMATS)}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        if mode not in ("light", "load"):
            typer.echo(f"llmdoctor: unknown --mode {mode!r}; choose light or load", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        if sweep and (mode != "light" or concurrency is not None):
            typer.echo("llmdoctor: --sweep chooses its own concurrency (1, 2, 4, ... --max-concurrency); "
                       "drop --mode and --concurrency", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        progress = _progress_printer(verbose)
        pod = None
        if url and url.startswith(("k8s://", "kube://")):
            from llmdoctor.facts import FactUnavailable
            from llmdoctor.hosts.base import HostError

            try:
                pod, urls = pod_urls(url)
            except (ValueError, HostError, FactUnavailable) as e:
                typer.echo(redact_text(f"llmdoctor: {e}"), err=True)
                raise typer.Exit(ExitCode.UNKNOWN)
        else:
            urls = [url] if url else default_urls()
        if not urls:
            typer.echo("llmdoctor: no engine found on this host; give the server URL", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        if sweep:
            from llmdoctor.cli.sweep import sweep_command, sweep_plan

            sweep_command(urls, model, sweep_plan(max_concurrency, token_budget, deadline, ttft_target, fmt,
                                                  itl_target), fmt, progress, save)
        try:
            report, runs = run_probe(urls, model, mode, concurrency, deadline, progress,
                                     announce=lambda msg: typer.echo(f"llmdoctor: {msg}", err=True))
        finally:
            if pod is not None:
                pod.close()
        from llmdoctor.render.unavailable import HtmlUnavailable

        try:
            page = render(ProbeView(report, runs), fmt)
        except HtmlUnavailable as e:
            typer.echo(f"llmdoctor: {e}", err=True)
            raise typer.Exit(ExitCode.UNKNOWN)
        sys.stdout.write(redact_text(page))  # a URL may carry user:password
        code = report.exit_code()
        if not runs.results or (code == ExitCode.OK and any(r.interrupted for r in runs.results)):
            code = ExitCode.UNKNOWN  # nothing measured, or stopped before it could say "healthy"
        raise typer.Exit(code)
