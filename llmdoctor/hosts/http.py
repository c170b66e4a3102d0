"""A tiny HTTP client on the standard library: fast to import, one timeout for everything."""
from __future__ import annotations

import http.client
import socket

from llmdoctor.hosts.base import HostError, HostUnreachable, HttpResponse, DEFAULT_TIMEOUT

MAX_BODY = 16 * 1024 * 1024


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
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read(MAX_BODY)
        return HttpResponse(resp.status, data, {k.lower(): v for k, v in resp.getheaders()})
    except ConnectionRefusedError as e:
        raise HostUnreachable(f"http://{host}:{port}{path}: connection refused") from e
    except (socket.timeout, TimeoutError) as e:
        raise HostError(f"http://{host}:{port}{path}: no answer within {timeout:g} s") from e
    except (OSError, http.client.HTTPException) as e:
        raise HostError(f"http://{host}:{port}{path}: {e}") from e
    finally:
        conn.close()
