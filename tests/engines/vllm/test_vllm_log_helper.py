"""A large vLLM log scanned by two processes (facts/vllm.py, knowledge/vllm/stats_frames.py,
hosts/forked.py) gives exactly the result of one scanner reading it all: on every vLLM fixture
and real case, on random mixes and on generated logs, through frames made in this process and
through a real forked helper; and when the helper dies or cannot be forked, the reader does its
share itself."""
from __future__ import annotations

import importlib.util
import os
import random
import sys
import threading
import time
from pathlib import Path

import pytest

import llmdoctor.facts.vllm as fv
import llmdoctor.hosts.logs.files as files
import llmdoctor.knowledge.vllm.log as vlog
from llmdoctor.hosts.forked import PENDING, Forked, can_fork
from llmdoctor.hosts.logs import FileSource
from llmdoctor.knowledge.vllm.log import VllmLogScanner
from llmdoctor.knowledge.vllm.stats_frames import frame_items

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ref = _load("test_vllm_log_reference_module", HERE / "test_vllm_log_reference.py")
gen = ref.gen


@pytest.fixture
def small_head(monkeypatch):
    """An exact head of 5 lines, so that small logs have a part past it to hand over."""
    monkeypatch.setattr(vlog, "EXACT_LINES", 5)


def regions(data: bytes, size: int) -> list[tuple[bytearray, int, int]]:
    """Whole-line regions as FileSource.raw_regions yields them, each in a buffer of its own
    with stale bytes around it."""
    return [(bytearray(b"\xff" * 3) + piece + b"\n\xff", 3, 3 + len(piece)) for piece in ref.pieces(data, size)]


def serial_and_split(data: bytes, size: int, handed: int, **kw):
    """(one scanner's result, the result of a reader that scans the first `handed` regions and
    reads the rest through a twin's frames, how many regions it read so)."""
    parts = regions(data, size)
    alone = VllmLogScanner(**kw)
    for buf, b, e in parts:
        alone.feed_region(buf, b, e)
    twin, reader = VllmLogScanner(**kw), VllmLogScanner(**kw)
    frames = [twin.stats_frame(buf, b, e) for buf, b, e in parts[handed:]]
    for buf, b, e in parts[:handed]:
        reader.feed_region(buf, b, e)
    for (buf, b, e), frame in zip(parts[handed:], frames):
        reader.feed_region(buf, b, e, frame)
    return alone.result(), reader.result(), reader.framed


@pytest.mark.parametrize("log", ref.LOGS, ids=lambda p: str(p.relative_to(ref.FIX)))
def test_fixtures_and_real_cases_read_through_frames_as_alone(log, small_head):
    data = log.read_bytes()
    for size, keep in ((4096, 360), (300, 2)):
        alone, split, framed = serial_and_split(data, size, 1, keep_stats=keep)
        assert split == alone, (size, keep)
        if data.count(b"\n") > 20 and len(data) > 2 * size:
            assert framed > 0


@pytest.mark.parametrize("seed", range(40))
def test_random_mixes_read_through_frames_as_alone(seed, small_head):
    rnd = random.Random(seed)
    data = ref.random_log(rnd, rnd.choice((60, 400, 3000)))
    kw = dict(keep_stats=rnd.choice((0, 1, 5, 360)), kv_full_pct=rnd.choice((95.0, 90.0)))
    alone, split, framed = serial_and_split(data, rnd.choice((700, 4096, 30000)), rnd.choice((0, 1, 3)), **kw)
    assert split == alone, (seed, kw)


def test_generated_logs_read_through_frames_as_alone(tmp_path, small_head):
    for density in (0.005, 0.05, 0.2):
        path = tmp_path / "vllm.log"
        gen.generate(path, 2 * 2**20, density=density, seed=7)
        alone, split, framed = serial_and_split(path.read_bytes(), 64 * 1024, 5)
        assert split == alone and alone.stats_lines > 0 and framed > 20, density


def test_a_frame_for_other_bounds_or_garbage_is_not_read(small_head):
    data = ref.random_log(random.Random(3), 400)
    buf, b, e = regions(data, 1 << 20)[0]
    twin, reader = VllmLogScanner(), VllmLogScanner()
    frame = twin.stats_frame(buf, b, e)
    reader.lines = 10
    for wrong in ((b + 1,) + frame[1:], frame[:4], "garbage", None, [frame]):
        assert not reader.frame_fits(wrong, b, e)
    assert VllmLogScanner(client_errors=True).can_use_frames() is False
    assert VllmLogScanner(kv_full_pct=99.5).can_use_frames() is False  # no quiet lines: nothing to hand over


def test_frame_items_count_quiet_lines_and_keep_the_last_as_spans():
    # two parsed lines among seven quiet ones; keep 4: the last four entries are laid out
    spans = [i for q in range(7) for i in (10 * q, 10 * q + 5)]
    a, b = (100, 105, 101, ["records of a"]), (200, 205, 201, ["records of b"])
    trace = [(2,) + a, (5,) + b, spans]
    items = frame_items(trace, 4)
    assert items == [2, a, 2, spans[8:10], b, spans[10:14]]
    assert frame_items(trace, 0) == [2, a, 3, b, 2]
    assert frame_items(trace, 100) == [spans[:4], a, spans[4:10], b, spans[10:]]
    assert frame_items([[]], 5) == []


# -- the real helper process -------------------------------------------------------------
@pytest.fixture
def small_split(monkeypatch):
    """Split files from 256 KiB on, read in 64 KiB chunks, past an exact head of 50 lines; the
    reader waits for each frame (it would scan a region itself rather than wait)."""
    monkeypatch.setattr(fv, "HELPER_ABOVE", 256 * 1024)
    monkeypatch.setattr(fv, "FRAME_WAIT", 10.0)
    monkeypatch.setattr(files, "CHUNK", 64 * 1024)
    monkeypatch.setattr(files, "MAX_LINE", 64 * 1024)
    monkeypatch.setattr(vlog, "EXACT_LINES", 50)


def alone_and_helped(path: Path):
    alone = VllmLogScanner("vllm.log")
    for buf, b, e in FileSource(path, since_seconds=None).raw_regions():
        alone.feed_region(buf, b, e)
    helped = VllmLogScanner("vllm.log")
    used = fv._scan_with_helper(FileSource(path, since_seconds=None), helped)
    return alone.result(), helped, used


def test_a_forked_helper_scans_the_rest_with_the_same_result(tmp_path, small_split):
    path = tmp_path / "vllm.log"
    gen.generate(path, 1 * 2**20, density=0.05, seed=11)
    alone, helped, used = alone_and_helped(path)
    assert used and helped.framed > 5
    assert helped.result() == alone and alone.stats_lines > 100
    assert fv.scan_source(FileSource(path, since_seconds=None)) == alone


def test_when_the_helper_dies_the_reader_scans_the_rest_itself(tmp_path, small_split, monkeypatch):
    path = tmp_path / "vllm.log"
    gen.generate(path, 1 * 2**20, density=0.05, seed=12)
    made = {"n": 0}
    real = VllmLogScanner.stats_frame

    def two_then_die(self, buf, begin, end):
        made["n"] += 1
        if made["n"] > 2:
            os._exit(3)
        return real(self, buf, begin, end)

    monkeypatch.setattr(VllmLogScanner, "stats_frame", two_then_die)
    alone, helped, used = alone_and_helped(path)
    assert used and helped.framed == 2
    assert helped.result() == alone


def test_the_reader_does_not_wait_for_a_slow_helper(tmp_path, small_split, monkeypatch):
    path = tmp_path / "vllm.log"
    gen.generate(path, 1 * 2**20, density=0.05, seed=14)
    real = VllmLogScanner.stats_frame

    def slow(self, buf, begin, end):
        time.sleep(0.5)
        return real(self, buf, begin, end)

    monkeypatch.setattr(VllmLogScanner, "stats_frame", slow)
    monkeypatch.setattr(fv, "FRAME_WAIT", 0.0)
    t = time.monotonic()
    alone, helped, used = alone_and_helped(path)
    assert used and helped.result() == alone
    assert helped.framed <= 2 and time.monotonic() - t < 5


def test_small_files_threads_and_resumed_reads_are_scanned_alone(tmp_path, small_split):
    path = tmp_path / "vllm.log"
    gen.generate(path, 1 * 2**20, density=0.05, seed=13)
    whole = path.read_bytes()
    path.write_bytes(whole[:whole.rfind(b"\n", 0, 128 * 1024) + 1])
    assert alone_and_helped(path)[2] is False  # below HELPER_ABOVE
    path.write_bytes(whole)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
        alone, helped, used = alone_and_helped(path)
        assert used is False and helped.framed == 0
    finally:
        stop.set()
        other.join()
    from llmdoctor.hosts.logs.state import ResumeState
    assert FileSource(path, since_seconds=None, state=ResumeState(tmp_path / "state.json")).split_span(0.35, 0) is None


def test_a_split_only_where_the_time_window_is_surely_open(tmp_path):
    path = tmp_path / "app.log"
    lines = [f"2026-11-30T{h:02d}:{m:02d}:00Z INFO line {h}-{m}" for h in range(24) for m in range(60)]
    path.write_text("\n".join(lines) + "\n")
    end = 1796083200.0  # 2026-12-01T00:00:00Z: the whole file inside the last day
    whole = FileSource(path, since_seconds=86400, now=end).split_span(0.5, 0)
    assert whole is not None and whole[0][2] is True and whole[1][2] is False
    assert whole[0][1] == whole[1][0] and path.read_bytes()[whole[1][0] - 1:whole[1][0]] == b"\n"
    late = FileSource(path, since_seconds=3600, now=end).split_span(0.5, 0)  # the window opens in the last hour
    assert late is None


def test_the_cut_comes_after_the_lines_asked_for(tmp_path):
    path = tmp_path / "vllm.log"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(100000)))
    for lines in (0, 1, 7, 50000, 99999):
        (start, mid, _), (mid2, stop, _) = FileSource(path, since_seconds=None).split_span(0.1, 0, lines)
        assert mid == mid2 and path.read_bytes()[:mid].count(b"\n") >= max(lines, 1)
        assert mid <= max(path.read_bytes().find(b"line %d\n" % lines), int(stop * 0.1)) + 20
    assert FileSource(path, since_seconds=None).split_span(0.1, 0, 100000) is None


def test_forked_frames_arrive_in_order_and_a_silent_helper_times_out():
    with Forked(lambda send, told: [send((i, [i] * 3, b"x")) for i in range(50)]) as helper:
        assert list(helper.frames()) == [(i, [i] * 3, b"x") for i in range(50)]
        assert helper.ended == "done"
    with Forked(lambda send, told: (send(1), time.sleep(30)), wait=0.5) as helper:
        assert list(helper.frames()) == [1]
        assert helper.ended.startswith("no frame within")
    with Forked(lambda send, told: (send(1), 1 / 0)) as helper:
        assert list(helper.frames()) == [1]
        assert helper.ended == "the helper process stopped early"


def test_the_helper_hears_how_far_the_reader_got():
    def produce(send, told):
        while told() < 7:
            time.sleep(0.01)
        send(told())

    with Forked(produce, wait=10) as helper:
        assert helper.poll() is PENDING
        helper.tell(7)
        assert helper.poll(10) == 7 and helper.poll(10) is None and helper.ended == "done"
