from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "tests/fixtures/tune"


@pytest.fixture(scope="session")
def cli():
    """Invoke `llmdoctor plan|tune ...` in-process; returns (exit code, stdout, stderr)."""
    from llmdoctor.cli import plan
    from llmdoctor.cli import tune
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        pass

    plan.register(app)
    tune.register(app)
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        r = runner.invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "200"}, input=input)
        if r.exception and not isinstance(r.exception, SystemExit):
            raise r.exception
        try:
            err = r.stderr
        except ValueError:  # older click mixes stderr into output
            err = ""
        return r.exit_code, r.stdout, err

    return invoke


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def fake_ollama():
    """The recorded-shape Ollama stand-in on a free loopback port: (port, stop)."""
    port = _free_port()
    env = dict(os.environ, OLLAMA_HOST=f"127.0.0.1:{port}")
    for k in list(env):
        if k.startswith("OLLAMA_") and k != "OLLAMA_HOST":
            env.pop(k)
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests/support/fake_ollama.py"), "--show", str(FIX / "api_show_llama3.json"),
         "--model", "llama3:8b", "--weights", "4661224676"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    from llmdoctor.hosts.local import LocalHost

    host = LocalHost()
    while True:
        try:
            if host.http("GET", port, "/api/version", None, 1.0).status == 200:
                break
        except Exception:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("fake Ollama did not start")
        time.sleep(0.1)
    yield port
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


def load_json(name: str):
    return json.loads((FIX / name).read_text())
