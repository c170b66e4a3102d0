"""A real Prometheus (Debian's `prometheus` package) and `promtool` for tests.

`running_prometheus(targets)` starts Prometheus on 127.0.0.1 with a port the
kernel picks, scraping `targets` (host:port strings) every second, and yields a
`PrometheusServer` that can query the HTTP API. TESTBED.md: ready in ~0.2 s but
the first scraped sample is queryable only after ~5.4 s (a fixed discovery
delay), so start it once per session and give it the exporter's address up front
(`free_port()` reserves one). Tests skip with the reason when it is missing.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from tests.support.process import stop_process

READY_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


def skip_reason() -> str | None:
    if shutil.which("prometheus") is None:
        return "prometheus is not installed (apt-get install prometheus): no real Prometheus to scrape with"
    return None


def promtool_skip_reason() -> str | None:
    if shutil.which("promtool") is None:
        return "promtool is not installed (apt-get install prometheus)"
    return None


def promtool(*args: str, stdin: bytes | None = None, timeout: float = 30.0) -> subprocess.CompletedProcess:
    return subprocess.run(["promtool", *args], input=stdin, capture_output=True, timeout=timeout)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get_json(url: str, timeout: float = 5.0) -> Any:
    host = urllib.parse.urlsplit(url).hostname or ""
    if not host.startswith("127."):
        raise ValueError(f"tests talk to loopback only, not {host}")
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


class PrometheusServer:
    def __init__(self, url: str, proc: subprocess.Popen, workdir: Path) -> None:
        self.url = url
        self.proc = proc
        self.workdir = workdir

    def query(self, expr: str) -> list[dict[str, Any]]:
        """Instant query; the result vector (`[{"metric": {...}, "value": [t, "v"]}]`)."""
        data = http_get_json(f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        if data.get("status") != "success":
            raise RuntimeError(f"query {expr!r} failed: {data}")
        return data["data"]["result"]

    def wait_for(self, expr: str, timeout: float = 30.0, poll: float = 0.25) -> list[dict[str, Any]]:
        """Poll until the query returns a non-empty result (bounded by `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.query(expr)
            if result or time.monotonic() > deadline:
                return result
            time.sleep(poll)

    def rules(self) -> list[dict[str, Any]]:
        """Every loaded rule with its `health` ("ok", "err", "unknown") and `lastError`."""
        groups = http_get_json(f"{self.url}/api/v1/rules")["data"]["groups"]
        return [rule for g in groups for rule in g["rules"]]

    def targets(self) -> list[dict[str, Any]]:
        return http_get_json(f"{self.url}/api/v1/targets")["data"]["activeTargets"]

    def log_text(self) -> str:
        try:
            return (self.workdir / "prometheus.log").read_text(errors="replace")
        except OSError:
            return ""


def _config(targets: list[str], job: str, scrape_interval: str, rule_files: list[str]) -> str:
    listed = ", ".join(f"'{t}'" for t in targets)
    rules = "".join(f"  - '{r}'\n" for r in rule_files)
    return (
        "global:\n"
        f"  scrape_interval: {scrape_interval}\n"
        f"  scrape_timeout: {scrape_interval}\n"
        "  evaluation_interval: 1s\n"
        + (f"rule_files:\n{rules}" if rules else "")
        + "scrape_configs:\n"
        f"  - job_name: {job}\n"
        f"    static_configs:\n      - targets: [{listed}]\n"
    )


@contextlib.contextmanager
def running_prometheus(targets: list[str], job: str = "llmdoctor", scrape_interval: str = "1s",
                       rule_files: list[str] | tuple[str, ...] = ()) -> Iterator[PrometheusServer]:
    """Prometheus scraping `targets` (loopback only), evaluating `rule_files` every second."""
    for t in targets:
        if not t.startswith("127."):
            raise ValueError(f"scrape loopback targets only, not {t}")
    workdir = Path(tempfile.mkdtemp(prefix="llmdoctor-prom-"))
    config = workdir / "prometheus.yml"
    config.write_text(_config(targets, job, scrape_interval, [str(Path(r).resolve()) for r in rule_files]))
    port = free_port()
    log = open(workdir / "prometheus.log", "wb")
    proc = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--web.enable-lifecycle",
            "--log.level=warn",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = PrometheusServer(f"http://127.0.0.1:{port}", proc, workdir)
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {proc.returncode}: {server.log_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{server.url}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"prometheus not ready within {READY_TIMEOUT:g} s: {server.log_text()[-2000:]}")
            time.sleep(0.1)
        yield server
    finally:
        stop_process(proc, STOP_TIMEOUT, kill_wait=STOP_TIMEOUT)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)
