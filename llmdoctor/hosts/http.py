"""A tiny HTTP client on the standard library: fast to import, one total deadline per
request (connect + headers + the whole body), held even against a server that trickles
one byte a second (hosts/deadline.py)."""
from __future__ import annotations

import http.client
import socket

from llmdoctor.hosts.base import HostError, HostUnreachable, HttpResponse, DEFAULT_TIMEOUT
from llmdoctor.hosts.deadline import Deadline

MAX_BODY = 16 * 1024 * 1024


class HttpTimeout(HostError):
    """No complete answer within the request's deadline."""


SILENT_FOR_S = 30.0  # how long a port that let a deadline pass is not asked again


class SilentPorts:
    """Ports whose last request ran out of its deadline: for a while, later requests to
    them fail at once instead of each waiting out its own deadline (a run asks a
    llama-server four endpoints, an Ollama several): a dripping server costs one deadline
    per run, not one per request."""

    def __init__(self, seconds: float = SILENT_FOR_S) -> None:
        import time

        self._clock = time.monotonic
        self.seconds = seconds
        self._until: dict[object, float] = {}

    def check(self, key: object, where: str) -> None:
        until = self._until.get(key)
        if until is not None and self._clock() < until:
            raise HttpTimeout(f"{where}: not asked - an earlier request to it in this run got no complete "
                              f"answer within its deadline")

    def note(self, key: object) -> None:
        self._until[key] = self._clock() + self.seconds


def http_request(
    host: str,
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    headers: dict[str, str] | None = None,
) -> HttpResponse:
    hdrs = {"User-Agent": "llmdoctor", "Accept": "*/*"}
    if body is not None:
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    deadline = Deadline(timeout)
    where = f"http://{host}:{port}{path.split('?', 1)[0]}"
    too_slow = f"{where}: no complete answer within {timeout:g} s"
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.connect()
        deadline.watch(conn.sock)
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read(MAX_BODY)
        if deadline.expired:
            raise HttpTimeout(too_slow)
        return HttpResponse(resp.status, data, {k.lower(): v for k, v in resp.getheaders()})
    except ConnectionRefusedError as e:
        raise HostUnreachable(f"{where}: connection refused") from e
    except (socket.timeout, TimeoutError) as e:
        raise HttpTimeout(too_slow) from e
    except (OSError, http.client.HTTPException) as e:
        if deadline.expired:
            raise HttpTimeout(too_slow) from e
        raise HostError(f"{where}: {e}") from e
    finally:
        deadline.cancel()
        conn.close()
