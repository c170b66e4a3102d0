"""An engine inside a Docker or Podman container, reached with the user's own CLI.

`docker://NAME` and `podman://NAME` use the CLI on this machine; `ssh://host/docker://NAME`
runs the same CLI on that host over SSH (the inner host runs every command, so SSH's
multiplexing, timeouts and quoting apply unchanged). The container name is validated
(knowledge/inventory.py) before it reaches a command line, and every command puts `--`
before the container name, so neither the name nor the command after it can be taken
for an option of the CLI; a file path gets its own `--` inside the container.

- commands: `docker exec -e LC_ALL=C -- NAME argv...`
- files: `docker exec -- NAME head -c LIMIT -- PATH` (`cat`, bounded: a log file may be huge)
- logs: `docker logs --timestamps --since Ns --tail N -- NAME`, stdout and stderr merged in
  time order (Ollama logs to stderr, uvicorn to stdout), the timestamps removed again by
  the same repair that reads pasted `docker logs -t`
- inspect: `docker inspect --type container -- NAME`, once per run
- HTTP: through the port the container publishes on its host (its `PortBindings`, or the
  port itself with `--network host`), because the engines' images do not all carry an HTTP
  client (`ollama/ollama` has no curl: ollama/ollama#9781); `exec curl` is the fallback
  for a container that publishes nothing.
"""
from __future__ import annotations

import json
import re
import shlex

from llmdoctor.knowledge.inventory import ContainerTarget, parse_container_target
from llmdoctor.hosts.base import (
    DEFAULT_READ_LIMIT,
    DEFAULT_TIMEOUT,
    CommandNotFound,
    CommandResult,
    HostError,
    HostUnreachable,
    HttpResponse,
    Unanswerable,
)
from llmdoctor.hosts.live import BaseHost

LOG_TAIL = 200_000  # lines of the container log read per run (bounded memory)
LOG_TIMEOUT = 60.0
INSPECT_TIMEOUT = 15.0
_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})) ")
_NO_EXEC = re.compile(r"executable file not found|no such file or directory|not found in \$PATH", re.I)


def _file_error(stderr: str, path: str) -> OSError:
    if "No such file" in stderr:
        return FileNotFoundError(2, "No such file or directory", path)
    if "Permission denied" in stderr:
        return PermissionError(13, "Permission denied", path)
    return OSError(5, (stderr.strip().splitlines() or ["read failed"])[-1][:200], path)


def merge_by_time(*outputs: str) -> list[str]:
    """Lines of several `docker logs --timestamps` streams in time order (stable within one)."""
    keyed = []
    for stream, text in enumerate(outputs):
        last = ""
        for n, line in enumerate(text.splitlines()):
            m = _STAMP.match(line)
            last = m.group(1) if m else last
            keyed.append((last, stream, n, line))
    return [line for *_, line in sorted(keyed)]


class ExecFiles:
    """Files read through the engine's own `exec` (`head -c`, `ls`): a live container or pod
    has no other way in, and its files are only those of its own filesystem."""

    live_kind = "container"

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        if not path.startswith("/"):
            raise Unanswerable(f"{path}: a recorded evidence file, and this is a live {self.live_kind}")
        res = self.run(["head", "-c", str(int(limit)), "--", path], DEFAULT_TIMEOUT)
        if not res.ok:
            raise _file_error(res.stderr, path)
        return res.stdout.encode("utf-8", "surrogateescape")

    def listdir(self, path: str) -> list[str]:
        res = self.run(["ls", "-1A", "--", path if path.endswith("/") else path + "/"], DEFAULT_TIMEOUT)
        if not res.ok:
            raise _file_error(res.stderr, path)
        return sorted(n for n in res.stdout.split("\n") if n)


class ContainerHost(ExecFiles, BaseHost):
    """A container as a host. `via` is the host whose CLI reaches it (this machine by default)."""

    def __init__(self, target: str | ContainerTarget, via=None) -> None:
        self.target = target if isinstance(target, ContainerTarget) else parse_container_target(target)
        self.name = str(self.target)
        self.kind = self.target.runtime
        self.cli = self.target.runtime
        if via is None:
            from llmdoctor.hosts.local import LocalHost

            via = LocalHost()
        self.via = via
        self._inspect: CommandResult | None = None
        self.meta = {}

    # -- the CLI ---------------------------------------------------------------------
    def _cli(self, args: list[str], timeout: float) -> CommandResult:
        try:
            return self.via.run([self.cli, *args], timeout=timeout)
        except CommandNotFound as e:
            raise HostUnreachable(f"{self.name}: the {self.cli} command is not installed ({e})") from None

    def connect(self) -> None:
        """Inspect the container once; HostUnreachable with the CLI's reason when it is not there."""
        self.container_inspect()

    def container_inspect(self) -> CommandResult:
        if self._inspect is None:
            res = self._cli(["inspect", "--type", "container", "--", self.target.name], INSPECT_TIMEOUT)
            if not res.ok:
                why = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[-1][:200]
                raise HostUnreachable(f"{self.name}: {why}")
            self._inspect = CommandResult(res.argv, 0, res.stdout, res.stderr,
                                          source=f"{self.cli} inspect {self.target.name}")
        return self._inspect

    def _inspected(self) -> dict:
        try:
            data = json.loads(self.container_inspect().stdout)
            return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
        except ValueError:
            return {}

    # -- Host protocol ------------------------------------------------------------------
    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if not argv:
            raise ValueError("empty argv")
        res = self._cli(["exec", "-e", "LC_ALL=C", "--", self.target.name, *argv], timeout)
        if res.returncode in (126, 127) and _NO_EXEC.search(res.stderr):
            raise CommandNotFound(f"{argv[0]}: command not found in {self.name}")
        return CommandResult(tuple(argv), res.returncode, res.stdout, res.stderr,
                             source=f"{self.cli} exec {self.target.name} {shlex.join(argv[:2])}")

    def journal(self, unit, engine, since_seconds, state=None, directory=None):
        raise Unanswerable(f"{self.name}: a container has no systemd journal (its log is `{self.cli} logs`)")

    def container_log(self, engine, since_seconds, state=None):
        from llmdoctor.hosts.logs.container import ContainerLogSource

        return ContainerLogSource(self, engine, since_seconds)

    def logs(self, since_seconds: float | None) -> str:
        """The container's log inside the window: stdout and stderr merged by time, as raw
        `--timestamps` lines."""
        args = ["logs", "--timestamps", "--tail", str(LOG_TAIL)]
        if since_seconds:
            args += ["--since", f"{int(since_seconds)}s"]
        res = self._cli([*args, "--", self.target.name], LOG_TIMEOUT)
        if not res.ok:
            raise HostError(f"{self.cli} logs {self.target.name}: "
                            f"{(res.stderr.strip().splitlines() or [f'exit {res.returncode}'])[-1][:200]}")
        return "\n".join(merge_by_time(res.stdout, res.stderr))

    def published_port(self, port: int) -> int | None:
        """The host port that leads to the container's `port` (None when it publishes none)."""
        data = self._inspected()
        host_config = data.get("HostConfig") if isinstance(data.get("HostConfig"), dict) else {}
        if host_config.get("NetworkMode") == "host":
            return port
        bindings = host_config.get("PortBindings") or (data.get("NetworkSettings") or {}).get("Ports") or {}
        for bind in bindings.get(f"{port}/tcp") or []:
            if isinstance(bind, dict) and str(bind.get("HostPort") or "").isdigit() \
                    and bind.get("HostIp") in (None, "", "0.0.0.0", "127.0.0.1", "::"):
                return int(bind["HostPort"])
        return None

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        published = self.published_port(port)
        if published is not None:
            r = self.via.http(method, published, path, body=body, timeout=timeout, headers=headers)
            return HttpResponse(r.status, r.body, r.headers, f"{method.upper()} {self.name}:{port}{path.split('?', 1)[0]}")
        return self._curl(method, port, path, body, timeout, headers)

    def _curl(self, method, port, path, body, timeout, headers) -> HttpResponse:
        argv = ["curl", "-sS", "-m", f"{max(1, int(timeout))}", "-X", method.upper(), "-w", "\n%{http_code}"]
        for k, v in (headers or {}).items():
            argv += ["-H", f"{k}: {v}"]
        if body is not None:
            argv += ["--data-binary", body.decode("utf-8", "replace")]
        try:
            res = self.run([*argv, "--", f"http://127.0.0.1:{int(port)}{path}"], timeout + 5)
        except CommandNotFound:
            raise HostError(f"{self.name}: port {port} is not published and the container has no curl") from None
        if not res.ok:
            raise HostUnreachable(f"{self.name}: nothing answers on port {port} in the container "
                                  f"({res.stderr.strip()[:160]})")
        text, _, code = res.stdout.rpartition("\n")
        return HttpResponse(int(code) if code.isdigit() else 0, text.encode(), {},
                            f"{method.upper()} {self.name}:{port}{path.split('?', 1)[0]}")

    def base_url(self, port: int) -> str:
        published = self.published_port(port)
        if published is None:
            raise Unanswerable(f"{self.name}: port {port} is not published, so it cannot be probed from here")
        return self.via.base_url(published)

    def close(self) -> None:
        self.via.close()
