"""Issue 26 moved the serial-service rule out of the Ollama log scanner: the scanner counts each
group of requests in flight together under its figures on a grid (knowledge.ollama.log.GroupCell,
bounded), judge.ollama.serial_service applies judge/thresholds.py's OLLAMA_SERIAL_*. This holds the
new path to the old rule (reference_ollama_serial.py, the scanner's _close as it was): the same
requests fed to both, on every fixture log (line by line and read in bulk), on generated journals
(bench/ollama_log_gen.py, 20 % gin lines, several seeds), with the fine grid full (every group on
the coarse one), and under site overrides on the grid and off it (the next grid point above)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from llmdoctor.judge import thresholds
from llmdoctor.judge.ollama import serial_service
from llmdoctor.knowledge.ollama import log
from tests.engines.ollama.reference_ollama_serial import OldRequests

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
NAMES = ("OLLAMA_SERIAL_MIN_REQUESTS", "OLLAMA_SERIAL_MIN_PEAK", "OLLAMA_SERIAL_MIN_GAP_S",
         "OLLAMA_SERIAL_GAP_SHARE", "OLLAMA_PARALLEL_MIN_TYPICAL_S")


def _logs() -> list[Path]:
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.suffix in (".log", ".txt") and p.stat().st_size < 4_000_000 and b"GIN]" in p.read_bytes():
            out.append(p)
    return out


LOGS = _logs()


class _Tee(log._Requests):
    """The scanner's request reader, feeding the old rule the same requests."""

    rule: tuple = ()
    last: "_Tee | None" = None

    def __init__(self) -> None:
        super().__init__()
        self.ref = OldRequests(*type(self).rule)
        type(self).last = self

    def add(self, end, seconds, status, ex) -> None:
        super().add(end, seconds, status, ex)
        self.ref.add(end, seconds, ex)

    def fragment(self) -> None:
        super().fragment()
        self.ref.fragment()


def _compare(summary, tee: _Tee) -> tuple:
    """(old, new): bursts, parallel pairs, figures and example lines of the best burst, groups."""
    serial, pairs, examples, figures = tee.ref.decision()
    new = serial_service(summary.requests)
    old = (serial, pairs, figures, tuple(log._example(e) for e in examples), tee.ref.groups)
    return old, (new.bursts, new.parallel_pairs, new.figures, new.examples, summary.requests.concurrent_groups)


@pytest.fixture
def tee(monkeypatch):
    # the reference sees each group as _close files it: the gin lines one at a time (the columns
    # path files groups in bulk; tests/core/test_ollama_gin_columns.py compares it with this one)
    monkeypatch.setattr(log, "COLUMNS_MIN", None)
    monkeypatch.setattr(log, "_Requests", _Tee)
    monkeypatch.setattr(_Tee, "rule", ())
    return _Tee


def _scan_lines(data: bytes):
    s = log.OllamaLogScanner().feed_all(data.decode("utf-8", "replace").splitlines(), "x").summary()
    return s, _Tee.last


def _scan_bulk(data: bytes):
    scanner = log.OllamaLogScanner()
    s = scanner.feed_regions([(data, 0, len(data))], "x").summary()
    return s, _Tee.last


def test_fixtures_found():
    assert len(LOGS) >= 30


def test_every_fixture_same_decision(tee):
    differ, bursts = [], 0
    for p in LOGS:
        data = p.read_bytes()
        for how in (_scan_lines, _scan_bulk):
            old, new = _compare(*how(data))
            if old != new:
                differ.append(f"{p.relative_to(FIXTURES)} ({how.__name__}): {old[:3]} != {new[:3]}")
            bursts += old[0]
    assert not differ, "\n".join(differ)
    assert bursts  # (the fixtures hold serial bursts: the comparison saw the rule fire)


def _generated(tmp_path_factory, seed: int, mib: float) -> bytes:
    spec = importlib.util.spec_from_file_location("ollama_log_gen", ROOT / "bench" / "ollama_log_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    path = tmp_path_factory.mktemp("gen") / f"journal-{seed}.log"
    gen.generate(path, size=int(mib * 2**20), density=0.2, seed=seed)
    return path.read_bytes()


def test_generated_journal_same_decision(tee, tmp_path_factory):
    data = _generated(tmp_path_factory, 7, 1)
    old, new = _compare(*_scan_bulk(data))
    assert old == new and old[4] > 100


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_generated_journals_same_decision(tee, tmp_path_factory, seed):
    data = _generated(tmp_path_factory, seed, 3)
    old, new = _compare(*_scan_bulk(data))
    assert old == new and old[4] > 100


def test_coarse_grid_is_exact_at_the_shipped_thresholds(tee, monkeypatch, tmp_path_factory):
    """With the fine grid full from the start every group lands on the coarse one: the shipped
    thresholds lie on it too, so nothing changes."""
    monkeypatch.setattr(log, "MAX_SERIAL_CELLS", 0)
    for p in LOGS:
        old, new = _compare(*_scan_lines(p.read_bytes()))
        assert old == new, p
    old, new = _compare(*_scan_bulk(_generated(tmp_path_factory, 7, 1)))
    assert old == new


@pytest.mark.parametrize("site, reference", [
    ((2, 2, 1.0, 0.5, 5.0), (2, 2, 1.0, 0.5, 5.0)),  # on the grid: exact
    ((4, 3, 2.5, 0.1, 1.0), (4, 3, 2.5, 0.1, 1.0)),
    ((3, 3, 1.53, 0.26, 2.95), (3, 3, 1.6, 0.3, 3.0)),  # off it: the next grid point above
])
def test_site_overrides(tee, monkeypatch, tmp_path_factory, site, reference):
    for name, value in zip(NAMES, site):
        monkeypatch.setattr(thresholds, name, value)
    monkeypatch.setattr(_Tee, "rule", reference)
    for p in LOGS:
        old, new = _compare(*_scan_lines(p.read_bytes()))
        assert old == new, p
    old, new = _compare(*_scan_bulk(_generated(tmp_path_factory, 4, 1)))
    assert old == new


def test_cells_stay_bounded(tee):
    """However many groups, the table holds at most the fine cap plus the coarse grid."""
    r = log._Requests()
    t = 0.0
    for i in range(20_000):  # groups of 2-9 overlapping requests with ever new gaps
        n = 2 + i % 8
        for k in range(n):
            r.add(t + 1 + k * (0.05 + (i % 997) * 0.013), 3.0 + k * (0.05 + (i % 997) * 0.013), 200, None)
        t += 1000.0
    r.fragment()
    coarse = 7 * 8 * 21 * 9
    assert r.groups == 20_000 and len(r.cells) <= log.MAX_SERIAL_CELLS + coarse
    assert sum(c[0] for c in r.cells.values()) == r.groups


def test_site_file_sets_the_rule(tmp_path):
    """Through llmdoctor.config, as a site's file sets it: five requests, five at once, 10 s apart
    are a burst at the shipped thresholds and not when 6 must be in flight at once."""
    from llmdoctor import config

    burst = [f"[GIN] 2025/03/06 - 11:00:{10 * k:02d} | 200 | {10 * k - 0.3:.3f}s |  127.0.0.1 | POST     \"/api/chat\""
             for k in range(1, 6)]
    r = log.scan(burst, "j").requests
    assert serial_service(r).bursts == 1
    site = tmp_path / "config.toml"
    site.write_text("[thresholds]\nOLLAMA_SERIAL_MIN_PEAK = 6\n")
    try:
        config.apply(str(site))
        assert serial_service(r).bursts == 0
    finally:
        config.reset()
    assert serial_service(r).bursts == 1
