"""A real llama.cpp server (the one embedded in the `xllamacpp` wheel) for tests.

`running_llama_server(model, n_parallel, n_ctx)` starts it in a child process (so
SIGTERM stops it, 1-4 s), on 127.0.0.1 with a port the kernel picks, waits until
`/health` answers `{"status":"ok"}` and yields the base URL. The yielded value is a
`str` (the URL) that also carries `.pid`, `.log_path` and `.log_text()` for tests
that want the server's own log lines. Without xllamacpp the test is skipped with
the reason. Start it once per module: it is cheap (~0.3 s) but a 100 MB model and
2 shared cores are not.

The child exits by itself when its parent dies, so an interrupted test run does
not leave servers behind.
"""
from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

READY_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0


def skip_reason() -> str | None:
    """Why a real llama-server cannot run here, or None when it can."""
    try:
        import importlib.util

        if importlib.util.find_spec("xllamacpp") is None:
            return "xllamacpp is not installed (pip install xllamacpp): no real llama-server to test against"
    except (ImportError, ValueError) as e:
        return f"xllamacpp cannot be found: {e}"
    return None


class LlamaServer(str):
    """The base URL of a running server, with its process id and log file."""

    pid: int
    log_path: Path

    def __new__(cls, url: str, pid: int, log_path: Path) -> "LlamaServer":
        obj = super().__new__(cls, url)
        obj.pid = pid
        obj.log_path = log_path
        return obj

    @property
    def port(self) -> int:
        return int(self.rsplit(":", 1)[1])

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


def _skip(reason: str) -> None:
    try:
        import pytest
    except ImportError:  # used outside pytest (bench/): a plain error
        raise RuntimeError(reason) from None
    pytest.skip(reason)


def _wait_healthy(url: str, proc: subprocess.Popen, deadline: float) -> None:
    last = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama-server exited with {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                body = r.read().decode("utf-8", "replace")
                if r.status == 200 and '"ok"' in body:
                    return
                last = body
        except Exception as e:  # 503 "Loading model" or not listening yet
            last = str(e)
        time.sleep(0.05)
    raise RuntimeError(f"llama-server not healthy after {READY_TIMEOUT:.0f} s: {last}")


@contextlib.contextmanager
def running_llama_server(model_path: str | os.PathLike, n_parallel: int = 1, n_ctx: int = 2048,
                         metrics: bool = True, n_threads: int = 2,
                         extra: dict[str, Any] | None = None) -> Iterator[LlamaServer]:
    """Run llama.cpp's server on `model_path`; yield its base URL (a LlamaServer).

    `n_ctx` is the whole context (split across `n_parallel` slots, as with an
    explicit `-np`). `extra` sets further `xllamacpp.CommonParams` attributes by
    name (e.g. {"kv_unified": True, "cache_ram_mib": 0}).
    """
    reason = skip_reason()
    if reason:
        _skip(reason)
    config = {"model": str(model_path), "n_parallel": n_parallel, "n_ctx": n_ctx,
              "metrics": metrics, "n_threads": n_threads, "extra": extra or {},
              "parent": os.getpid()}
    log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)
    log_path = Path(log.name)
    proc = subprocess.Popen([sys.executable, __file__, json.dumps(config)], stdout=subprocess.PIPE,
                            stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        url = ""
        assert proc.stdout is not None
        while not url and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.2)
            if ready:
                line = proc.stdout.readline().decode("utf-8", "replace").strip()
                if not line:
                    break  # EOF: the child died
                if line.startswith("LISTENING "):
                    url = line.split(" ", 1)[1].rstrip("/")
            elif proc.poll() is not None:
                break
        if not url:
            proc.poll()
            raise RuntimeError(f"llama-server did not start (exit {proc.returncode}); "
                               f"log tail: {log_path.read_text(errors='replace')[-800:]}")
        _wait_healthy(url, proc, deadline)
        yield LlamaServer(url, proc.pid, log_path)
    finally:
        from tests.support.process import stop_process  # here: this file also runs as the child's script

        stop_process(proc, STOP_TIMEOUT)
        if proc.stdout:
            proc.stdout.close()
        with contextlib.suppress(OSError):
            if not os.environ.get("LLMDOCTOR_KEEP_SERVER_LOGS"):
                log_path.unlink()


def _child(config: dict[str, Any]) -> None:
    """Runs in the child process: start the server, report its URL, serve until killed."""
    import threading

    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = config["model"]
    p.hostnames = ["127.0.0.1"]
    p.port = 0  # the kernel picks a free port; the server reports it
    p.n_parallel = int(config["n_parallel"])
    p.n_ctx = int(config["n_ctx"])
    p.cpuparams.n_threads = int(config["n_threads"])
    p.cpuparams_batch.n_threads = int(config["n_threads"])
    p.endpoint_metrics = bool(config["metrics"])
    p.endpoint_slots = True
    p.endpoint_props = True
    p.warmup = False
    for name, value in config["extra"].items():
        setattr(p, name, value)
    server = xllamacpp.Server(p)
    sys.stdout.write(f"LISTENING {server.listening_address}\n")
    sys.stdout.flush()
    parent = int(config["parent"])

    def watch_parent() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=watch_parent, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))


def generate(url: str, n: int, salt: int) -> None:
    """One completion of n tokens (a background load); the server may be stopped under it."""
    body = json.dumps({"prompt": f"{salt} the quick brown fox", "n_predict": n, "cache_prompt": False}).encode()
    req = urllib.request.Request(url + "/completion", body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()
    except OSError:
        pass
