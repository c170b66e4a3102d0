"""The command line's side of llmdoctor/steps.py: where the steps of a long run are printed.

One dim line each on stderr, only when stderr is a terminal or -v was given (a pipe, a
cron job and a JSON stdout get nothing); LLMDOCTOR_QUIET silences them. Redacted: a URL
may carry user:password.
"""
from __future__ import annotations

import os
import sys
from typing import Callable


def step_printer(prefix: str = "", verbose: bool = False) -> Callable[[str], None] | None:
    """The printer for steps, or None where no one should see them."""
    if os.environ.get("LLMDOCTOR_QUIET") or not (verbose or sys.stderr.isatty()):
        return None
    from rich.console import Console
    from rich.markup import escape

    from llmdoctor.redact import redact_text

    console = Console(stderr=True, highlight=False)
    whole = not sys.stderr.isatty()  # a terminal's lines wrap at its width; a log's stay whole, one a step
    lead = f"[dim]{escape(prefix)}:[/] " if prefix else ""
    return lambda msg: console.print(f"{lead}{escape(redact_text(msg))}", soft_wrap=whole)


class steps_to:
    """`with steps_to(printer):` the steps of the run inside go to `printer` (None: nowhere)."""

    def __init__(self, printer: Callable[[str], None] | None) -> None:
        self.printer = printer
        self.previous = None

    def __enter__(self):
        from llmdoctor.steps import set_sink

        self.previous = set_sink(self.printer)
        return self

    def __exit__(self, *exc):
        from llmdoctor.steps import set_sink

        set_sink(self.previous)
        return False
