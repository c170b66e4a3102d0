"""`diagnose --prometheus` against loopback servers: a Prometheus API that answers (canned
answers shaped like the real captures), one that is down, slow, or answers garbage (one line,
exit 3, within the deadlines), and credentials that never show."""
from __future__ import annotations

import json
import time
import urllib.parse

import pytest

from tests.support.exposition import answering
from tests.support.inprocess import cli

T_END = None


def _matrix(series):
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": series}}).encode()


def fake_prometheus(seen: list | None = None):
    """A Prometheus API holding one llama-server whose requests were deferred for 5 points."""

    def handler(path: str, headers: dict):
        if seen is not None:
            seen.append((path, headers))
        parts = urllib.parse.urlsplit(path)
        q = dict(urllib.parse.parse_qsl(parts.query))
        if parts.path == "/api/v1/label/__name__/values":
            return 200, json.dumps({"status": "success", "data": ["llamacpp:requests_deferred",
                                                                  "llamacpp:requests_processing"]}).encode(), 0
        if parts.path == "/api/v1/query_range":
            start, step = float(q["start"]), float(q["step"])
            values = [0, 0, 3, 5, 4, 2, 1, 0] if "deferred" in q["query"] else [1, 1, 1, 1, 1, 1, 1, 0]
            pts = [[start + i * step, str(v)] for i, v in enumerate(values)]
            return 200, _matrix([{"metric": {"instance": "gpu1:8080", "job": "llama"}, "values": pts}]), 0
        return 404, b"404 page not found", 0

    return handler


def test_a_window_is_diagnosed_with_its_time(monkeypatch):
    monkeypatch.delenv("LLMDOCTOR_PROMETHEUS_TOKEN", raising=False)
    seen: list = []
    with answering(fake_prometheus(seen)) as url:
        code, out = cli("diagnose", "--prometheus", url, "--since", "6h", "--selector", '{job="llama"}', "-f", "json")
    assert code == 1, out
    doc = json.loads(out)
    (target,) = doc["targets"]
    assert target["target"] == "gpu1:8080" and target["engine"] == "llamacpp"
    (f,) = [f for f in target["findings"] if f["check"] == "prom-queueing"]
    assert "llamacpp:requests_deferred > 0 for " in f["evidence"][0]["text"] and "peak 5" in f["evidence"][0]["text"]
    queries = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(p).query)) for p, _ in seen]
    ranges = [q for q in queries if "step" in q]
    assert ranges and all('{job="llama"}' in q["query"] for q in ranges)
    assert all((float(q["end"]) - float(q["start"])) / float(q["step"]) + 1 <= 2000 for q in ranges)
    assert all(q["timeout"] == "15s" for q in ranges)


def test_token_from_the_environment_is_sent_and_never_shown(monkeypatch):
    monkeypatch.setenv("LLMDOCTOR_PROMETHEUS_TOKEN", "s3cr3t-token-value")
    seen: list = []
    with answering(fake_prometheus(seen)) as url:
        code, out = cli("diagnose", "--prometheus", url, "--since", "1h")
    assert code == 1 and "s3cr3t" not in out
    assert all(h.get("Authorization") == "Bearer s3cr3t-token-value" for _, h in seen)


def test_basic_auth_from_a_file_and_refused_credentials_say_so_without_them(tmp_path, monkeypatch):
    monkeypatch.delenv("LLMDOCTOR_PROMETHEUS_TOKEN", raising=False)
    auth = tmp_path / "prom.auth"
    auth.write_text("user=ops\npassword=hunter2-very-secret\n")
    seen: list = []

    def refuse(path, headers):
        seen.append(headers)
        return 401, b"Unauthorized\n", 0

    with answering(refuse) as url:
        code, out = cli("diagnose", "--prometheus", url, "--prometheus-auth-file", str(auth))
    assert code == 3 and "HTTP 401" in out and "hunter2" not in out and len(out.strip().splitlines()) == 1
    assert seen[0]["Authorization"].startswith("Basic ") and "hunter2" not in seen[0]["Authorization"]


def test_credentials_in_the_url_are_refused_and_never_echoed():
    code, out = cli("diagnose", "--prometheus", "http://admin:pa55w0rd-xyz@127.0.0.1:9/")
    assert code == 3 and "pa55w0rd" not in out and "admin" not in out and "--prometheus-auth-file" in out


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_prometheus_that_is_down_is_one_line_and_exit_3():
    started = time.monotonic()
    code, out = cli("diagnose", "--prometheus", f"http://127.0.0.1:{_free_port()}")
    assert code == 3 and "connection refused" in out and len(out.strip().splitlines()) == 1
    assert time.monotonic() - started < 5


def test_a_slow_prometheus_is_cut_at_the_query_deadline():
    with answering(lambda path, headers: (200, b'{"status":"success","data":[]}', 5.0)) as url:
        started = time.monotonic()
        code, out = cli("diagnose", "--prometheus", url, "--prometheus-timeout", "1")
        took = time.monotonic() - started
    assert code == 3 and "no complete answer" in out and "within 1 s" in out and len(out.strip().splitlines()) == 1
    assert took < 4


@pytest.mark.parametrize("status, body", [(200, b"<html><body>Grafana</body></html>"), (200, b'{"status":"success","data":'),
                                          (502, b"<html>Bad Gateway</html>"), (200, b"\x00\xff" * 100),
                                          (400, b'{"status":"error","errorType":"bad_data","error":"parse error"}')])
def test_garbage_answers_are_one_line_and_exit_3(status, body):
    with answering(lambda path, headers: (status, body, 0)) as url:
        code, out = cli("diagnose", "--prometheus", url)
    assert code == 3 and len(out.strip().splitlines()) == 1 and "Traceback" not in out


def test_no_engine_series_is_one_line_and_exit_3():
    answer = json.dumps({"status": "success", "data": []}).encode()
    with answering(lambda path, headers: (200, answer, 0)) as url:
        code, out = cli("diagnose", "--prometheus", url, "--selector", '{job="nope"}')
    assert code == 3 and "no series of vLLM" in out and '{job="nope"}' in out


def test_options_that_do_not_go_together():
    assert cli("diagnose", "--prometheus", "http://127.0.0.1:9", "-e", "/nonexistent")[0] == 3
    assert cli("diagnose", "--selector", '{job="x"}', "-e", "/nonexistent")[0] == 3
    code, out = cli("diagnose", "--prometheus", "http://127.0.0.1:9", "--selector", "job=x")
    assert code == 3 and "--selector" in out


def test_a_store_that_refuses_the_names_query_is_asked_for_every_quantity(monkeypatch):
    monkeypatch.delenv("LLMDOCTOR_PROMETHEUS_TOKEN", raising=False)
    inner = fake_prometheus()

    def handler(path, headers):
        if path.startswith("/api/v1/label/"):
            return 400, b'{"status":"error","errorType":"bad_data","error":"match[] not supported"}', 0
        if "llamacpp" not in path:
            return 200, _matrix([]), 0
        return inner(path, headers)

    with answering(handler) as url:
        code, out = cli("diagnose", "--prometheus", url, "-f", "json")
    assert code == 1 and "prom-queueing" in out
