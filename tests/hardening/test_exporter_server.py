"""The exporter's HTTP server: a backlog sized for scrapers, a total deadline to read a
request, a cap on open connections, and slow or silent clients that can never take every
place from a scraper (one event loop; the oldest connection still sending makes room)."""
from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest

from llmdoctor.app.exporter import http_server

BODY = b"# HELP llmdoctor_up x\n# TYPE llmdoctor_up gauge\nllmdoctor_up 1\n"


@pytest.fixture
def server():
    started = []

    def start(**kw):
        httpd, thread = http_server.start(("127.0.0.1", 0), lambda: BODY, **kw)
        started.append((httpd, thread))
        return httpd.server_address[1]

    yield start
    for httpd, thread in started:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def scrape(port: int, timeout: float = 5.0) -> tuple[int, bytes, float]:
    t = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as r:
            return r.status, r.read(), time.monotonic() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read(), time.monotonic() - t


def concurrent_scrapes(port: int, n: int = 50) -> list[float]:
    barrier = threading.Barrier(n)
    out: list[tuple[int, bytes, float]] = []
    lock = threading.Lock()

    def one():
        barrier.wait(5)
        r = scrape(port)
        with lock:
            out.append(r)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(out) == n and all(code == 200 and body == BODY for code, body, _ in out)
    return sorted(d for _, _, d in out)


def test_fifty_scrapers_at_once_are_all_served_quickly(server):
    port = server()
    durations = concurrent_scrapes(port, 50)
    p99 = durations[int(len(durations) * 0.99) - 1]
    assert p99 < 0.9, durations  # a backlog of 5 made some wait for a SYN retry (1 s)


def test_a_half_sent_request_is_dropped_at_the_read_deadline(server):
    port = server(read_timeout=1.0)
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(b"GET /metr")
    t = time.monotonic()
    half.settimeout(5)
    assert half.recv(100) == b""  # closed by the server
    assert time.monotonic() - t < 2.5
    half.close()


def test_a_trickling_request_is_dropped_at_the_read_deadline(server):
    port = server(read_timeout=1.0)
    slow = socket.create_connection(("127.0.0.1", port))
    t = time.monotonic()
    closed = False
    for ch in b"GET /metrics HTTP/1.1\r\nHost: x\r\n":
        try:
            slow.sendall(bytes([ch]))
        except OSError:
            closed = True
            break
        time.sleep(0.2)
        if time.monotonic() - t > 3:
            break
    slow.settimeout(2)
    try:
        data = slow.recv(100)
    except OSError:
        data = b""
    assert closed or data == b""
    assert time.monotonic() - t < 4
    slow.close()


def test_past_the_cap_the_oldest_unfinished_request_makes_room(server):
    port = server(max_connections=2, read_timeout=3.0)
    holders = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
    for h in holders:
        h.sendall(b"GET /")
    time.sleep(0.2)
    code, body, took = scrape(port)
    assert code == 200 and body == BODY and took < 1.0
    holders[0].settimeout(2)
    assert holders[0].recv(100) == b""  # the oldest, still sending its request, was closed
    for h in holders:
        h.close()


def test_slowloris_and_half_open_sockets_leave_scrapes_answered(server):
    """70 clients sending one header byte a second plus 1,000 connected sockets that send
    nothing, against the default cap: at least 99 % of scrapes still get their answer."""
    port = server()
    stop = threading.Event()
    opened: list[socket.socket] = []

    def slowloris():
        socks = []
        for _ in range(70):
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                pass
        opened.extend(socks)
        line = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-a: " + b"b" * 200
        for i in range(len(line)):  # bounded: at most a byte a second for the test's length
            if stop.wait(1.0):
                return
            for s in socks:
                try:
                    s.send(line[i:i + 1])
                except OSError:
                    pass

    loris = threading.Thread(target=slowloris, daemon=True)
    loris.start()
    for _ in range(1000):
        try:
            opened.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            pass
    results = []
    deadline = time.monotonic() + 8
    while len(results) < 200 and time.monotonic() < deadline:
        try:
            results.append(scrape(port, timeout=2)[0])
        except OSError:
            results.append(None)
    stop.set()
    loris.join(5)
    for s in opened:
        s.close()
    answered = sum(1 for r in results if r == 200)
    print(f"scrapes answered: {answered}/{len(results)}")
    assert len(results) >= 100 and answered >= 0.99 * len(results), (answered, len(results))


def test_only_metrics_paths_and_get(server):
    port = server()
    assert scrape(port)[0] == 200
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/nope", timeout=2)
    assert e.value.code == 404
