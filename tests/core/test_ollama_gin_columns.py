"""Gin lines read as columns (knowledge/ollama/gin_columns.py, request_batch.py) against the same
blocks read line by line: the same summary to the last example, on lines in gin's real layout
(gin/logger.go: `[GIN] %v |%s %3d %s| %13v |%s %15s |%s %-7s %s %#v`) with every variation the
column reader must either read exactly or leave to the line reader, dense overlapping requests
(groups past MAX_CLUSTER, a grid past MAX_SERIAL_CELLS), local times across daylight-saving
changes, and random damage."""
from __future__ import annotations

import os
import random
import time

import pytest

from llmdoctor.knowledge.ollama import gin_columns, log

pytestmark = pytest.mark.skipif(not gin_columns.available(), reason="numpy is not installed")

PATHS = ["/api/chat", "/api/generate", "/v1/chat/completions", "/api/embed", "/api/tags", "/api/ps", "/",
         "/api/chat?stream=false", "/v1/completions", "/api/embeddings", "/v1/embeddings", "/v1/messages",
         "/v1/responses", "/api/show", "/api/chatty", '/api/chat\\"x', "/api/gen", "/v1/chat/completionsX"]
METHODS = ["POST", "GET", "HEAD", "DELETE", "OPTIONS", "PUT", "PROPFIND", "post"]
CLIENTS = ["127.0.0.1", "10.0.3.201", "::1", "192.168.100.200", "2001:db8:85a3::8a2e:370:7334", "", "hôte"]


def _duration(rnd: random.Random) -> str:
    kind = rnd.random()
    if kind < 0.35:
        return f"{rnd.uniform(0, 59.999):.9f}s"
    if kind < 0.6:
        return f"{rnd.uniform(0, 999.999):.6f}ms"
    if kind < 0.7:
        return f"{rnd.uniform(0, 999.999):.3f}" + rnd.choice(["µs", "μs", "us"])
    if kind < 0.75:
        return f"{rnd.randint(0, 999)}ns"
    if kind < 0.85:
        return f"{rnd.randint(1, 9)}m{rnd.randint(0, 59)}s"
    return rnd.choice(["1s", "0s", "5.s", ".5s", "1.5", "12.345678901234s", "9999999999999s", "1h2m3s", "3.0000000001ms",
                       "59.999999999s", "0.000000001s", "1.5msx"])


def gin_line(rnd: random.Random, at: float, prefix: str = "") -> str:
    stamp = time.strftime("%Y/%m/%d - %H:%M:%S", time.gmtime(at))
    if rnd.random() < 0.02:
        stamp = rnd.choice(["2025/02/30 - 10:00:00", "2025/05/01 - 24:00:00", "0001/01/01 - 00:00:00",
                            "2024/02/29 - 23:59:59", "2025/13/01 - 10:00:00", "9999/12/31 - 23:59:59"])
    status = rnd.choice([200] * 12 + [500, 503, 499, 404, 400, 204])
    client = rnd.choice(CLIENTS)
    line = (f"[GIN] {stamp} | {status:3d} | {_duration(rnd):>13} | {client:>15} | "
            f"{rnd.choice(METHODS[:4] * 6 + METHODS):<7}  \"{rnd.choice(PATHS[:3] * 8 + PATHS)}\"")
    if rnd.random() < 0.03:
        line += rnd.choice([" Error #01: x", "\r", "\x1b[0m", " \"", " tail"])
    if rnd.random() < 0.03:  # damage one byte
        i = rnd.randrange(len(line))
        line = line[:i] + rnd.choice(["|", " ", "\t", "\"", "?", "x", "9", "\x00", "é", "GIN"]) + line[i + 1:]
    return prefix + line


def journal(rnd: random.Random, n: int, start: float = 1746093600.0) -> bytes:
    prefix = rnd.choice(["", "2025-05-01T10:00:00+0000 gpu01 ollama[1234]: ", "May 01 10:00:00 gpu01 ollama[1234]: "])
    at, lines = start, []
    for _ in range(n):
        at += rnd.choice([0, 0, 0, 0.5, 1, 1, 2, 7, 30, 400]) * rnd.random()
        r = rnd.random()
        if r < 0.03:
            lines.append(prefix + f'time=2025-05-01T10:00:00.000Z level=INFO source=sched.go:1 msg="loading first model" '
                                  f'model=/m/blobs/sha256-{rnd.randrange(9)}')
        elif r < 0.035:
            lines.append(log.FRAGMENT)
        elif r < 0.04:
            lines.append(prefix + 'time=2025-05-01T10:00:00.000Z level=INFO msg="server config" env="map[OLLAMA_NUM_PARALLEL:2')
        else:
            lines.append(gin_line(rnd, at, prefix))
    return "\n".join(lines).encode()


def _summaries(data: bytes, part: int, run: int, cut: int | None = None):
    def scan(columns: bool):
        scanner = log.OllamaLogScanner()
        regions = [(data, 0, len(data))]
        if cut is not None:
            nl = data.find(b"\n", cut)
            if nl > 0:
                regions = [(data, 0, nl), (data, nl + 1, len(data))]
        saved = log.COLUMNS_MIN, log.COLUMNS_FROM, log.COLUMNS_PART, log.COLUMNS_RUN
        try:
            if columns:
                log.COLUMNS_MIN, log.COLUMNS_FROM, log.COLUMNS_PART, log.COLUMNS_RUN = 1, 0, part, run
            else:
                log.COLUMNS_MIN = None
            return scanner.feed_regions(regions, "j").summary()
        finally:
            log.COLUMNS_MIN, log.COLUMNS_FROM, log.COLUMNS_PART, log.COLUMNS_RUN = saved

    return scan(True), scan(False)


@pytest.mark.parametrize("seed", range(12))
def test_gin_layout_variations(seed):
    rnd = random.Random(seed)
    data = journal(rnd, rnd.choice([50, 400, 3000]))
    a, b = _summaries(data, rnd.choice([512, 4096, 1 << 20]), rnd.choice([1, 2, 32]),
                      rnd.randrange(len(data)) if seed % 2 else None)
    assert a == b


def test_columns_read_most_real_layout_lines():
    """The column reader takes gin's own layout (else it would be a slow path, not a fast one)."""
    rnd = random.Random(1)
    lines = [f"[GIN] 2025/05/01 - 10:00:{i % 60:02d} | 200 | {d:>13} | {'10.0.0.1':>15} | {'POST':<7}  \"/api/chat\""
             for i, d in enumerate([f"{rnd.uniform(0, 59):.9f}s", f"{rnd.uniform(0, 999):.6f}ms", "971.777µs",
                                    "12.3μs", "500ns", "3.5us"] * 20)]
    lines.append(log.FRAGMENT + lines[0])
    data = "\n".join(lines).encode()
    cols = gin_columns.columns(data, log._INFERENCE_B, log._FRAGMENT_B)
    assert cols.ok[:-1].all() and not cols.ok[-1]  # (a fragment mark goes to the line reader)
    assert cols.inference.all() and cols.lines == len(lines) - 1


def test_dense_overlaps_past_the_caps(monkeypatch):
    """Requests many at once (groups past MAX_CLUSTER) and a grid past MAX_SERIAL_CELLS (the
    coarse cells), both paths under the same caps."""
    monkeypatch.setattr(log, "MAX_CLUSTER", 5)
    monkeypatch.setattr(log, "MAX_SERIAL_CELLS", 6)
    rnd = random.Random(4)
    at, lines = 1746093600.0, []
    for _ in range(6000):
        at += rnd.choice([0, 0, 0.3, 1, 2, 5, 40]) * rnd.random()
        secs = rnd.choice([0.2, 1.5, 3, 8, 20]) * rnd.random() * 3
        stamp = time.strftime("%Y/%m/%d - %H:%M:%S", time.gmtime(at))
        lines.append(f"[GIN] {stamp} | {rnd.choice([200, 200, 200, 500])} | {f'{secs:.9f}s':>13} | "
                     f"{'10.0.0.1':>15} | POST     \"/api/chat\"")
    data = "\n".join(lines).encode()
    for part, run in ((1 << 20, 1), (2048, 1), (8192, 32)):
        a, b = _summaries(data, part, run)
        assert a == b
    assert a.requests.concurrent_groups > 500 and len(a.requests.groups) > 6


# local times across the changes of 2025 (text as the journal's local clock shows it)
CHANGES = ["2025/03/09 - 00:30:00", "2025/11/02 - 00:00:00", "2025/04/06 - 00:30:00", "2025/10/05 - 00:30:00",
           "2025/03/30 - 00:00:00", "2025/10/26 - 00:00:00"]


@pytest.mark.parametrize("zone", ["America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "UTC"])
def test_local_time_across_daylight_saving(zone, monkeypatch):
    """A stamp is local time (datetime.timestamp()): the column reader takes the offset once an
    hour and converts alone each stamp of an hour that changes it (Lord Howe moves by 30
    minutes at 02:00: the hour from 02:00 has two offsets)."""
    if not os.path.exists(f"/usr/share/zoneinfo/{zone}"):
        pytest.skip(f"no zoneinfo for {zone}")
    from datetime import datetime, timedelta

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        rnd = random.Random(9)
        for change in CHANGES:
            at, lines = datetime.strptime(change, "%Y/%m/%d - %H:%M:%S"), []
            for _ in range(2500):
                at += timedelta(seconds=rnd.random() * 7)
                lines.append(f"[GIN] {at:%Y/%m/%d - %H:%M:%S} | 200 | {f'{rnd.random() * 4:.9f}s':>13} | "
                             f"{'10.0.0.1':>15} | POST     \"/api/generate\"")
            a, b = _summaries("\n".join(lines).encode(), 1 << 20, 1)
            assert a == b
    finally:
        monkeypatch.undo()
        time.tzset()


def test_group_bounds_against_one_at_a_time():
    """request_batch._bounds (a fixed point, cuts every cap, a check) against the rule applied
    one request at a time, on trains of overlapping requests, gaps and ties."""
    import numpy as np

    from llmdoctor.knowledge.ollama import request_batch

    def one_at_a_time(s, e, cap):
        out, end, size = [True], e[0], 1
        for i in range(1, len(s)):
            if s[i] < end - 1.0 and size < cap:
                out.append(False)
                size, end = size + 1, max(end, e[i])
            else:
                out.append(True)
                end, size = e[i], 1
        return out

    rnd = random.Random(31)
    fallback = 0
    for _ in range(400):
        n, at, s, e = rnd.randint(1, 300), 0.0, [], []
        train = rnd.random()
        for _ in range(n):
            at += rnd.choice([0.0, 0.1, 0.5, 1.0, 3.0]) * (rnd.random() if rnd.random() < train else 4)
            secs = rnd.choice([0.0, 0.5, 1.0, 2.0, 5.0, 30.0]) * rnd.random() * 2
            s.append(round(at, 1))
            e.append(round(at + secs, 1))
        cap = rnd.choice([2, 3, 5, 64])
        got = request_batch._bounds(np.array(s), np.array(e), cap).tolist()
        assert got == one_at_a_time(s, e, cap), (s, e, cap)
def test_garbage_blocks():
    rnd = random.Random(23)
    pieces = [b"[GIN] ", b"GIN]", b" | ", b"200", b"2025/05/01 - 10:00:00", b"1.5s", b"\xc2\xb5s", b"\xce", b'"/api/chat"',
              b"\n", b" ", b"POST", b"\x1b", b"\r", b"\xff", b"9", b"m", b"?", b'"']
    for _ in range(200):
        data = b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 300)))
        data += b"\n" + journal(rnd, 20)
        a, b = _summaries(data, rnd.choice([64, 512, 1 << 20]), 1)
        assert a == b, data


@pytest.mark.parametrize("density", [0.2, 1.0])
def test_generated_journal(density, tmp_path):
    """bench/ollama_log_gen.py's journal (restarts, loads, DEBUG lines, gin lines), 1 MiB."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("gen", Path(__file__).resolve().parents[2] / "bench" / "ollama_log_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    p = tmp_path / "journal.log"
    gen.generate(p, size=1 << 20, density=density, seed=5)
    data = p.read_bytes()
    for part in (1 << 20, 1 << 16):
        a, b = _summaries(data, part, 32, len(data) // 2)
        assert a == b
    assert a.requests.concurrent_groups > 100


def test_parts_held_stay_bounded(monkeypatch):
    """Health checks (`GET /api/tags` every second, as a web UI polls) with an inference request now
    and then: each part read as columns defers its few examples, and a deferred maker holds its
    whole part. At most MAX_HELD are held at once (a 200 MB journal of this held 400 MB), and the
    summary is the line reader's."""
    rnd = random.Random(31)
    at, lines = 1746093600.0, []
    for i in range(6000):
        at += 0.1
        stamp = time.strftime("%Y/%m/%d - %H:%M:%S", time.gmtime(at))
        path, method, took = ("/api/chat", "POST", f"{rnd.uniform(1, 9):.9f}s") if i % 97 == 0 else \
            ("/api/tags", "GET", f"{rnd.uniform(1, 900):.3f}µs")
        lines.append(f"[GIN] {stamp} | 200 | {took:>13} | {'127.0.0.1':>15} | {method:<7}  \"{path}\"")
    data = "\n".join(lines).encode()
    held = []
    defer = log._Requests.defer

    def counted(self, which, count, make):
        defer(self, which, count, make)
        held.append(0 if self.deferred is None else sum(callable(x) for x in self.deferred[0] + self.deferred[1]))

    monkeypatch.setattr(log._Requests, "defer", counted)
    a, b = _summaries(data, 4096, 1)
    assert a == b
    assert len(held) > 100 and max(held) <= log.MAX_HELD
    assert a.requests.requests == len(range(0, 6000, 97))
