"""Reading a window of series from a Prometheus server (`diagnose --prometheus URL`).

Bounded three ways: each query has its own deadline (connect + headers + whole body, held
against a server that trickles, hosts/deadline.py; also sent as the API's `timeout=` so
Prometheus stops working on it), the whole read has one, and the step is chosen so no
series returns more than knowledge.promql.MAX_POINTS points. Credentials come from a file
or the environment, never from the command line, and never appear in a message: the
URL's user part is refused (and never echoed), errors name the server without it.
"""
from __future__ import annotations

import base64
import http.client
import os
import socket
import time
from urllib.parse import urlencode, urlsplit

from llmdoctor.hosts.deadline import Deadline

QUERY_TIMEOUT_S = 15.0  # one query: a range query over six hours of a few replicas takes well under a second
READ_DEADLINE_S = 60.0  # the whole read (about 20 queries)
MAX_BODY = 32 * 1024 * 1024  # an answer above this is refused, not read to the end
ENV_TOKEN, ENV_USER, ENV_PASSWORD = "LLMDOCTOR_PROMETHEUS_TOKEN", "LLMDOCTOR_PROMETHEUS_USER", "LLMDOCTOR_PROMETHEUS_PASSWORD"


class PrometheusError(Exception):
    """The server could not be read: one line, without credentials."""


def auth_headers(path: str | None = None, env: dict | None = None) -> dict[str, str]:
    """The Authorization header, from --prometheus-auth-file (a bearer token alone on its
    first line, or `token=`, `user=`, `password=` lines) or else the environment."""
    env = os.environ if env is None else env
    token = user = password = None
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(64 * 1024)
        except (OSError, UnicodeDecodeError) as e:
            raise PrometheusError(f"--prometheus-auth-file {path}: {getattr(e, 'strerror', None) or type(e).__name__}") from None
        lines = [l.strip() for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
        fields = dict(l.split("=", 1) for l in lines if "=" in l)
        token, user, password = fields.get("token"), fields.get("user"), fields.get("password")
        if not fields and len(lines) == 1:
            token = lines[0]
        if not (token or user):
            raise PrometheusError(f"--prometheus-auth-file {path}: expected a token, or user= and password= lines")
    else:
        token, user, password = env.get(ENV_TOKEN), env.get(ENV_USER), env.get(ENV_PASSWORD)
    if token:
        return {"Authorization": f"Bearer {token.strip()}"}
    if user:
        pair = f"{user.strip()}:{(password or '').strip()}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode()}
    return {}


def server_name(url: str) -> str:
    """`https://prom.example:9090/prom`: the URL as messages name it (no user part, no query)."""
    try:
        p = urlsplit(url.strip())
        host = p.hostname or ""
        port = f":{p.port}" if p.port else ""
    except ValueError:
        return "the Prometheus URL"
    return f"{p.scheme}://{host}{port}{p.path.rstrip('/')}"


def check_url(url: str) -> None:
    """PrometheusError for a URL llmdoctor will not use; never quoting its user part."""
    try:
        p = urlsplit(url.strip())
        p.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        raise PrometheusError(f"--prometheus {server_name(url)}: not a URL (expected http(s)://HOST:PORT)") from None
    if p.scheme not in ("http", "https") or not p.hostname:
        raise PrometheusError(f"--prometheus {server_name(url)}: expected http(s)://HOST:PORT")
    if p.username is not None or p.password is not None:
        raise PrometheusError(f"--prometheus {server_name(url)}: credentials in the URL are not used; put them in "
                              f"--prometheus-auth-file or {ENV_TOKEN} / {ENV_USER} and {ENV_PASSWORD}")


class PrometheusClient:
    """GETs against one server's HTTP API, each within its deadline and the read's."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, query_timeout: float = QUERY_TIMEOUT_S,
                 deadline: float = READ_DEADLINE_S) -> None:
        check_url(url)
        p = urlsplit(url.strip())
        self.scheme, self.hostname, self.port = p.scheme, p.hostname or "", p.port
        self.prefix = p.path.rstrip("/")
        self.name = server_name(url)
        self.headers = {"User-Agent": "llmdoctor", "Accept": "application/json", **(headers or {})}
        self.query_timeout = query_timeout
        self.until = time.monotonic() + deadline
        self.read_deadline = deadline
        self.queries = 0

    def get(self, path: str, params: list[tuple[str, str]]) -> bytes:
        """The body of a 200 answer (or of a 4xx/5xx one that is the API's JSON error, for
        its message); PrometheusError for anything else, in one line."""
        left = self.until - time.monotonic()
        if left <= 0:
            raise PrometheusError(f"{self.name}: the read ran past its {self.read_deadline:g} s deadline "
                                  f"after {self.queries} queries")
        timeout = min(self.query_timeout, left)
        self.queries += 1
        target = f"{self.prefix}{path}?{urlencode(params)}"
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        deadline = Deadline(timeout)
        too_slow = f"{self.name}: no complete answer to {path} within {timeout:g} s"
        conn = cls(self.hostname, self.port, timeout=timeout)
        try:
            conn.connect()
            deadline.watch(conn.sock)
            conn.request("GET", target, headers=self.headers)
            resp = conn.getresponse()
            data = resp.read(MAX_BODY + 1)
            if deadline.expired:
                raise PrometheusError(too_slow)
        except ConnectionRefusedError:
            raise PrometheusError(f"{self.name}: connection refused (is Prometheus running there?)") from None
        except (socket.timeout, TimeoutError):
            raise PrometheusError(too_slow) from None
        except socket.gaierror as e:
            raise PrometheusError(f"{self.name}: cannot resolve {self.hostname} ({e.strerror})") from None
        except (OSError, http.client.HTTPException) as e:
            if deadline.expired:
                raise PrometheusError(too_slow) from None
            raise PrometheusError(f"{self.name}: {type(e).__name__} {str(e)[:120]}".rstrip()) from None
        finally:
            deadline.cancel()
            conn.close()
        if len(data) > MAX_BODY:
            raise PrometheusError(f"{self.name}: an answer over {MAX_BODY // (1024 * 1024)} MiB to {path} "
                                  f"(narrow --selector or --since)")
        if resp.status in (401, 403):
            raise PrometheusError(f"{self.name}: HTTP {resp.status}: the credentials were refused "
                                  f"(--prometheus-auth-file, {ENV_TOKEN}, {ENV_USER})")
        if resp.status != 200 and not data.lstrip().startswith(b"{"):
            raise PrometheusError(f"{self.name}: HTTP {resp.status} to {path}")
        return data
