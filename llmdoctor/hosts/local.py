"""The machine llmdoctor runs on."""
from __future__ import annotations

import os
import socket
import subprocess

from llmdoctor.hosts.base import (
    DEFAULT_READ_LIMIT,
    DEFAULT_TIMEOUT,
    CommandNotFound,
    CommandResult,
    CommandTimeout,
    HostError,
    HttpResponse,
)
from llmdoctor.hosts.http import http_request


class LocalHost:
    kind = "local"

    def __init__(self, name: str | None = None) -> None:
        self.name = name or socket.gethostname()

    def run(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        env = dict(os.environ, LC_ALL="C", SYSTEMD_PAGER="", PAGER="cat", SYSTEMD_COLORS="0")
        try:
            p = subprocess.run(
                argv, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL
            )
        except FileNotFoundError as e:
            raise CommandNotFound(f"{argv[0]}: command not found") from e
        except PermissionError as e:
            raise HostError(f"{argv[0]}: permission denied") from e
        except subprocess.TimeoutExpired as e:
            raise CommandTimeout(f"{' '.join(argv)}: no answer within {timeout:g} s") from e
        return CommandResult(
            tuple(argv), p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        )

    def read(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        with open(path, "rb") as f:
            return f.read(limit)

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def http(self, method, port, path, body=None, timeout=DEFAULT_TIMEOUT, headers=None) -> HttpResponse:
        return http_request("127.0.0.1", port, method, path, body, timeout, headers)

    def base_url(self, port: int) -> str:
        return f"http://127.0.0.1:{port}"

    def close(self) -> None:
        pass
