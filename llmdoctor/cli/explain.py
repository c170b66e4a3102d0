"""`llmdoctor explain CHECK_ID`: what a check finds and why, from the check itself (app/explain.py)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from llmdoctor.cli import fail
from llmdoctor.cli.complete import check_ids, choices

EXAMPLES = """\b
Examples:
  llmdoctor explain ollama-one-slot
  llmdoctor explain vllm-preemption -f json
  llmdoctor explain --thresholds                     every threshold, its value and why
  llmdoctor --config site.toml explain llamacpp-prefill   with the site's overrides"""


def register(app: typer.Typer) -> None:
    @app.command("explain", epilog=EXAMPLES)
    def explain_check(
        check_id: Optional[str] = typer.Argument(None, autocompletion=check_ids, help="A check id (`llmdoctor checks` lists them)."),
        fmt: str = typer.Option("text", "--format", "-f", autocompletion=choices(("text", "json", "markdown")), help="text, json or markdown."),
        thresholds: bool = typer.Option(False, "--thresholds", help="List every threshold instead (value, default, why)."),
        checks_dir: List[Path] = typer.Option([], "--checks-dir", help="Extra directory of site checks (repeatable)."),
    ) -> None:
        """What a check finds, why it slows users, the evidence lines it reads (engine versions), the fix and when it is unsafe, known false positives and its thresholds (with this site's overrides)."""
        import json

        from llmdoctor.app import explain as E

        if fmt not in ("text", "json", "markdown"):
            fail(f"--format {fmt}: one of text, json, markdown")
        if thresholds:
            from llmdoctor.config import threshold_names

            rows = E.threshold_rows(tuple(threshold_names()))
            if fmt == "json":
                typer.echo(json.dumps([{"name": t.name, "value": t.value, "default": t.default, "why": t.comment,
                                        "overridden_by": t.source or None} for t in rows], indent=2))
            else:
                for t in rows:
                    typer.echo(f"{t.name} = {E._value(t)}")
            return
        if not check_id:
            fail("name a check (`llmdoctor checks` lists them), or --thresholds")
        spec, near = E.find(check_id, checks_dir)
        if spec is None:
            fail(f"no check {check_id!r}" + (f"; did you mean {', '.join(near)}?" if near else " (`llmdoctor checks` lists them)"))
        e = E.explain(spec)
        if fmt == "json":
            typer.echo(json.dumps(E.to_json(e), indent=2))
        elif fmt == "markdown":
            typer.echo(E.to_markdown(e), nl=False)
        else:
            import shutil

            typer.echo(E.to_text(e, width=max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))))
