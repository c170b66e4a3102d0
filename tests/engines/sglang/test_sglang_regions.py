"""The SGLang scanner's region path (feed_region: only candidate lines decoded and fed, the rest
counted in bulk) gives exactly the result of feeding every line: on every SGLang fixture and real
case, on random mixes of their lines with garbage and cut-off lines, at any region size, and on
generated logs at each density of batch lines (bench/sglang_log_gen.py)."""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from llmdoctor.hosts.logs import FileSource
from llmdoctor.knowledge.pasted import FRAGMENT
from llmdoctor.knowledge.sglang.log import scan_sglang_lines, scan_sglang_regions

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures"
LOGS = sorted(p for p in (FIX / "sglang").iterdir() if p.suffix in (".log", ".txt")) + sorted(
    FIX.glob("realcases*/*sglang*/*.log"))
GARBAGE = ("", ":", "#", "=", "(", "x" * 300, "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
           "token usage:", "  0.5, #queue-req: 3", "cuda graph:", "   True", " from: 0.9 to:", "Truncated",
           FRAGMENT, "[12:00:00 TP0] Decode batch, #running-req: 3, #token: 9, token usage:", "\t0.97, #queue-req: 2")


def regions(data: bytes, size: int) -> list[tuple[bytearray, int, int]]:
    """Whole-line regions of about `size` bytes as FileSource.raw_regions yields them (the last
    newline of each left out), each in a buffer of its own with stale bytes around it."""
    out, start = [], 0
    while start < len(data):
        cut = data.rfind(b"\n", start, start + size)
        if cut <= start:
            cut = data.find(b"\n", start + size)
        if cut == -1:
            cut = len(data)
        out.append((bytearray(b"#=(\n") + data[start:cut] + b"\n:#", 4, 4 + cut - start))
        start = cut + 1
    return out


def both(data: bytes, size: int):
    parts = regions(data, size)
    lines = [line for buf, b, e in parts for line in bytes(buf[b:e]).decode("utf-8", "replace").split("\n")]
    return scan_sglang_regions(parts, "sglang.log"), scan_sglang_lines(lines, "sglang.log")


@pytest.mark.parametrize("log", LOGS, ids=lambda p: str(p.relative_to(FIX)))
def test_fixtures_and_real_cases_scan_alike(log):
    data = log.read_bytes()
    for size in (64, 1000, 1 << 20):
        by_region, by_line = both(data, size)
        assert by_region == by_line and by_region.lines == by_line.lines, size


@pytest.mark.parametrize("seed", range(40))
def test_random_mixes_scan_alike(seed):
    rnd = random.Random(seed)
    pool = [line for p in LOGS for line in p.read_text(errors="replace").split("\n")] + list(GARBAGE)
    lines = [rnd.choice(pool) for _ in range(rnd.choice((5, 50, 400)))]
    for _ in range(rnd.randint(0, 5)):  # lines cut anywhere
        k = rnd.randrange(len(lines))
        lines[k] = lines[k][: rnd.randint(0, len(lines[k]))]
    data = ("\n".join(lines) + rnd.choice(("", "\n"))).encode()
    for size in (1, 200, 4096):
        by_region, by_line = both(data, size)
        assert by_region == by_line and by_region.lines == by_line.lines, (seed, size)


def test_generated_logs_at_each_density_scan_alike_through_a_file(tmp_path):
    spec = importlib.util.spec_from_file_location("sglang_log_gen", ROOT / "bench" / "sglang_log_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for density in (0.005, 0.05, 0.2):
        path = tmp_path / "sglang.log"
        made = gen.generate(path, 2 * 2**20, density=density, seed=3)
        src = FileSource(path, since_seconds=None)
        by_region = scan_sglang_regions(src.raw_regions(), "sglang.log")
        by_line = scan_sglang_lines(src.lines(), "sglang.log")
        assert by_region == by_line and by_region.lines == by_line.lines == made["lines"]
        assert by_region.batch_lines == made["stats_lines"] and by_region.retractions == made["retractions"]


def test_the_plain_decode_line_reads_as_parse_batch_line_reads_it():
    from llmdoctor.knowledge.sglang.log import PLAIN_DECODE, _plain_decode, parse_batch_line

    seen = 0
    for log in LOGS:
        for line in log.read_text(errors="replace").split("\n"):
            m = PLAIN_DECODE.fullmatch(line.encode())
            if m is not None:
                seen += 1
                assert _plain_decode(m, line) == parse_batch_line(line), line
    assert seen > 20
    for bad in (b"[12:00:00 TP0] Decode batch, #running-req: 1, #token: 2, token usage: 0.5, gen throughput (token/s): "
                b"1.0, #queue-req: 0, #queue-req: 5", b"[12:00:00] Decode batch, #running-req: x"):
        assert PLAIN_DECODE.fullmatch(bad) is None


def test_a_wrapped_record_joins_across_lines_without_marks():
    lines = ["[12:00:00 TP0] Decode batch, #running-req: 3, #token: 9, token usage:", "  0.5, cuda graph:",
             "   True, gen throughput (token/s): 1.0, #queue-req: 7,", "x", "token usage:", "\t0.97, #queue-req: 2",
             "ends with a colon:", "  no value", "y"]
    data = "\n".join(lines).encode()
    for size in (1, 30, 4096):
        by_region, by_line = both(data, size)
        assert by_region == by_line and by_line.batch_lines == 1 and by_line.max_queue == 7
