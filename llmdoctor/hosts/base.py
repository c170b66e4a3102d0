"""The one thing that touches the outside world.

Collectors are written once against `Host` and work on the local machine, over SSH
and on an evidence directory. Every call carries a timeout; failures are raised as
`HostError` subclasses so a collector can turn them into an `Unavailable` line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Protocol, runtime_checkable

DEFAULT_TIMEOUT = 10.0
DEFAULT_READ_LIMIT = 4 * 1024 * 1024


class HostError(Exception):
    """Base for every failure a host reports; str() is a one-line reason."""


class CommandNotFound(HostError):
    pass


class CommandTimeout(HostError):
    pass


class HostUnreachable(HostError):
    pass


class NotInEvidence(HostError):
    """An evidence directory does not hold the answer to this question."""


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        import json

        return json.loads(self.body)


@runtime_checkable
class Host(Protocol):
    name: str
    kind: str  # "local" | "ssh" | "evidence"

    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        """Run argv (never a shell string). Raises CommandNotFound, CommandTimeout."""

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        """Read at most `limit` bytes. Raises FileNotFoundError, PermissionError."""

    def listdir(self, path: str) -> list[str]:
        """Names in a directory. Raises FileNotFoundError, PermissionError."""

    def http(
        self,
        method: str,
        port: int,
        path: str,
        body: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        headers: dict[str, str] | None = None,
    ) -> HttpResponse:
        """HTTP request to 127.0.0.1:port on that host. Raises HostError on failure."""

    def base_url(self, port: int) -> str:
        """A URL reachable from here that leads to 127.0.0.1:port on that host
        (a tunnel for SSH); used by the streaming probe."""

    def close(self) -> None:
        ...


def iter_lines(data: bytes) -> Iterator[str]:
    for line in data.decode("utf-8", "replace").splitlines():
        yield line
