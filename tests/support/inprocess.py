"""The command line run in this process (fast: no interpreter start per example)."""
from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock


def cli(*args: str) -> tuple[int, str]:
    """(exit code, stdout + stderr) of `llmdoctor ARGS`."""
    from llmdoctor.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with mock.patch.object(sys, "argv", ["llmdoctor", *args]), redirect_stdout(out), redirect_stderr(err):
        try:
            main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
    return code, out.getvalue() + err.getvalue()
