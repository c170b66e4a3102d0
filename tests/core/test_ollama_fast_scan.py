"""The Ollama scanner's block path (feed_region: only the lines holding a word of the scan are
read) against the line path (feed: every line), on every Ollama-looking fixture and real case,
every catalogue example, generated journals (bench/ollama_log_gen.py) and garbage: the same
summary, to the last example line. Every word matcher is compared: the `re` one always, the
compiled ones (hyperscan, ahocorasick-rs) where they are installed; and the block path both with its gin
lines read as columns (gin_columns, request_batch: forced on for every block, in small parts
and runs of any length) and without."""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from llmdoctor.hosts.logs.files import FileSource
from llmdoctor.knowledge import wordscan
from llmdoctor.knowledge.ollama import gin_columns, log
from llmdoctor.knowledge.llamacpp.catalogue import MESSAGES as CPP_MESSAGES
from llmdoctor.knowledge.ollama.catalogue import MESSAGES
from llmdoctor.knowledge.pasted import FRAGMENT

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
MATCHERS = [wordscan.RE, *wordscan.installed()]
COLUMNS = ["lines"] + (["columns"] if gin_columns.available() else [])


@pytest.fixture(autouse=True, params=COLUMNS)
def gin_path(request, monkeypatch):
    """The block path's gin lines read one by one, or as columns for every block however small."""
    if request.param == "lines":
        monkeypatch.setattr(log, "COLUMNS_MIN", None)
    else:
        monkeypatch.setattr(log, "COLUMNS_MIN", 1)
        monkeypatch.setattr(log, "COLUMNS_FROM", 0)
        monkeypatch.setattr(log, "COLUMNS_PART", 4096)
        monkeypatch.setattr(log, "COLUMNS_RUN", 1)
    return request.param


def _ollama_logs() -> list[Path]:
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.suffix in (".log", ".txt") and p.stat().st_size < 4_000_000:
            head = p.read_bytes()[:200_000]
            if b"GIN]" in head or b"ollama" in head.lower():
                out.append(p)
    return out


LOGS = _ollama_logs()


def _regions(data: bytes, cuts: list[int]):
    """data (whole lines) cut at line ends, as FileSource.raw_regions gives it: the newline at a
    cut is in no region."""
    start = 0
    for cut in sorted(set(cuts)):
        nl = data.find(b"\n", cut)
        if nl < 0 or nl < start:
            continue
        yield data, start, nl
        start = nl + 1
    yield data, start, len(data)


def _both(regions: list[tuple], matcher: str):
    a = log.OllamaLogScanner()
    a.words = log._word_scan(matcher)
    a.feed_regions(regions, "x")
    b = log.OllamaLogScanner().feed_all((line for buf, s, e in regions
                                         for line in bytes(buf[s:e]).decode("utf-8", "replace").split("\n")), "x")
    return a.summary(), b.summary()


def test_fixtures_found():
    assert len(LOGS) >= 100


@pytest.mark.parametrize("matcher", MATCHERS)
def test_every_fixture_log_same_summary(matcher):
    rnd = random.Random(3)
    differ = []
    for p in LOGS:
        data = p.read_bytes()
        cuts = [rnd.randrange(len(data) + 1) for _ in range(rnd.randint(0, 4))]
        a, b = _both(list(_regions(data, cuts)), matcher)
        if a != b:
            differ.append(str(p.relative_to(ROOT)))
    assert not differ


@pytest.mark.parametrize("matcher", MATCHERS)
def test_file_source_regions(matcher, tmp_path):
    """Through FileSource itself, as facts/ollama.py reads a log."""
    for p in LOGS[:60]:
        src = FileSource(p, engine="ollama", since_seconds=None)
        scanner = log.OllamaLogScanner()
        scanner.words = log._word_scan(matcher)
        assert scanner.feed_regions(src.raw_regions(), p.name).summary() == \
            log.OllamaLogScanner().feed_all(src.lines(), p.name).summary(), p


@pytest.mark.parametrize("matcher", MATCHERS)
def test_catalogue_examples(matcher):
    lines = [ex.line for m in MESSAGES + CPP_MESSAGES for ex in m.examples]
    assert len(lines) > 100
    for line in lines:  # alone, and after a stamped line that a load or config line may read
        for text in (line, "time=2025-01-01T00:00:00.000Z level=INFO msg=x\n" + line):
            a, b = _both([(text.encode(), 0, len(text.encode()))], matcher)
            assert a == b, line
    data = "\n".join(lines).encode()
    a, b = _both(list(_regions(data, list(range(0, len(data), 997)))), matcher)
    assert a == b


def _gen():
    spec = importlib.util.spec_from_file_location("ollama_log_gen", ROOT / "bench" / "ollama_log_gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("matcher", MATCHERS)
@pytest.mark.parametrize("density", [0.005, 0.2, 1.0])
def test_generated_journal(matcher, density, tmp_path, monkeypatch):
    gen = _gen()
    monkeypatch.setattr(gen, "RESTART_EVERY", 700)
    p = tmp_path / "journal.log"
    info = gen.generate(p, lines=3000, density=density, style="short" if density > 0.5 else "short-iso")
    data = p.read_bytes()
    a, b = _both(list(_regions(data, list(range(0, len(data), 65_536)))), matcher)
    assert a == b
    assert a.lines == info["lines"] + 1  # (and the empty line after the last newline)
    assert a.requests.requests > 0 and a.load_count >= 3


WORDS = ("GIN]", "[GIN] 2025/01/01 - 10:00:0", " | 200 | 1.5s | 127.0.0.1 | POST \"/api/chat\"", "time=2025-01-0",
         "1T10:00:00.000Z", "2024/01/01 10:00:00 x.go:1: ", "server config env=\"map[OLLAMA_NUM_PARALLEL:2",
         "msg=offload ", "  layers.offload=3", 'msg="loading first model" model=/a/b', "cmd=", "--ctx-size 8192",
         "starting llama server", "offloaded 3/9 layers to GPU", "started in 2.1 seconds", "\u212a", "\u0130", "\u017f",
         "OUT OF MEMORY", "cuInit err: 999", "evicting a model to make space", "\r", "\x1b[32m", "\xff\xfe", FRAGMENT)


@pytest.mark.parametrize("matcher", MATCHERS)
def test_garbage(matcher):
    rnd = random.Random(11)
    for _ in range(40):
        lines = ["".join(rnd.choice(WORDS + ("x", " ", "\t")) for _ in range(rnd.randint(0, 8)))
                 for _ in range(rnd.randint(1, 60))]
        data = "\n".join(lines).encode("utf-8", "surrogateescape")
        if rnd.random() < 0.5:
            data = bytes(b ^ 0x80 if rnd.random() < 0.01 else b for b in data)
        cuts = [rnd.randrange(len(data) + 1) for _ in range(rnd.randint(0, 5))]
        a, b = _both(list(_regions(data, cuts)), matcher)
        assert a == b, data


def test_gin_seconds_is_parse_go_duration():
    from llmdoctor.knowledge.ollama.env import parse_go_duration

    rnd = random.Random(5)
    cases = ["0", "1.5s", "12.000000001ms", "999.999µs", "42.044125ms", "1m2.5s", "3μs", "7ns", "00012.0100us", "1.s",
             ".5s", "9999999999999999999s", "1h", "9223372036.854775807s", "9223372036.854775808s", "1.5", "s", ""]
    cases += [f"{rnd.randint(0, 10 ** rnd.randint(0, 12))}.{rnd.randint(0, 10 ** 9)}{rnd.choice(['s', 'ms', 'µs', 'ns'])}"
              for _ in range(3000)]
    for text in cases:
        try:
            want = parse_go_duration(text) / 1e9
        except ValueError:
            want = "error"
        try:
            got = log._gin_seconds(text)
        except ValueError:
            got = "error"
        assert got == want, text


GIN_EDGES = [
    '[GIN] 2025/05/01 - 10:00:00 | 200 |  1.645228733s |      10.0.3.201 | POST     "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:00 | 200 |     999.999µs |       127.0.0.1 | GET      "/api/tags"',
    '[GIN] 2025/05/01 - 10:00:01 | 200 |        3μs |       127.0.0.1 | POST      "/api/generate"',
    '[GIN] 2025/05/01 - 10:00:01 | 500 |    12.5ms |  127.0.0.1 | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:01 | 503 |    1.123456789012ms |  127.0.0.1 | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:02 | 200 |    1m2.5s |  127.0.0.1 | POST "/v1/chat/completions?x=1"',
    '[GIN] 2025/05/01 - 10:00:02 | 200 |    9999999999999999999s |  127.0.0.1 | POST "/api/chat"',
    '[GIN] 2025/13/01 - 10:00:02 | 200 |    1s |  127.0.0.1 | POST "/api/chat"',
    '[GIN] 0001/01/01 - 00:00:00 | 200 |    1s |  127.0.0.1 | POST "/api/chat"',
    '[GIN]\t2025/05/01 - 10:00:03\t|\t200\t|\t1.5s\t|\t::1\t|\tPOST\t"/api/embed"',
    '[ GIN] 2025/05/01 - 10:00:03 | 200 | 1.5s | 127.0.0.1 | POST "/api/chat"',
    '[GIN ] 2025/05/01 - 10:00:03 | 200 | 9s | 1.1.1.1 | POST "/api/chat" [GIN] 2025/05/01 - 10:00:04 | 200 | 1s | x | POST "/api/chat"',
    'GIN] [GIN] 2025/05/01 - 10:00:04 | 200 | 1s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:04 | 200 | 1s | hôte | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:04 | 200 | 1s | a\x1cb | POST "/api/chat"',
    '\x1b[32m[GIN]\x1b[0m 2025/05/01 - 10:00:05 | 200 | 1s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:05 | 200 | 1s | x | POST "/api/chat?time=2025-01-01T00:00:00Z" x.go:1: ',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | POST "/api/chat"\r',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | POST "/api/chat"\r\r',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | POST "/api/ch\rat"',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | POST "/api/chat\x1b[0m"',
    '[GIN] 2025/05/01 - 10:00:06 |\x1c200 | 2s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x\x0b | POST "/api/chat"',
    '[ G\x1b[0mIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | POST "/api/chat" [GIN] 2025/05/01 - 10:00:07 | 200 | 9s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:06 | 20 | 2s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:06 | 200 | 2s | x | post "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:07 | 200 | 2.s | x | POST "/api/chat"',
    '[GIN] ２０２５/05/01 - 10:00:07 | 200 | 2s | x | POST "/api/chat"',
    FRAGMENT + '[GIN] 2025/05/01 - 10:00:07 | 200 | 2s | x | POST "/api/chat"',
    '[GIN] 2025/05/01 - 10:00:08 | 200 | 2s | x | POST "/api/chat" [GIN] 2025/05/01 - 10:00:09 | 500 | 2s | x | POST "/api/chat"',
    'time=2025-05-01T10:00:09.000Z level=INFO msg="server config" env="map[OLLAMA_NUM_PARALLEL:2',
    '[GIN] 2025/05/01 - 10:00:09 | 200 | 2s | x | POST "/api/chat"',
    ' OLLAMA_KEEP_ALIVE:5m]"',
]


@pytest.mark.parametrize("matcher", MATCHERS)
def test_gin_read_in_bulk_or_not(matcher):
    """The gin lines feed_region reads from their bytes (_gin_bulk) and those it leaves to _line
    (a tab, µ/μ, a fraction longer than its unit, an overflow, a bad date, a control character,
    ANSI colour, an earlier GIN, a fragment, a wrapped config line around them): the same summary,
    journald-prefixed or not, in one region or cut anywhere."""
    rnd = random.Random(17)
    for prefix in ("", "2025-05-01T10:00:00+0000 gpu01 ollama[1234]: ", "May 01 10:00:00 gpu01 ollama[1234]: "):
        for _ in range(30):
            lines = [prefix + rnd.choice(GIN_EDGES) for _ in range(rnd.randint(1, 40))]
            data = "\n".join(lines).encode()
            cuts = [rnd.randrange(len(data) + 1) for _ in range(rnd.randint(0, 3))]
            a, b = _both(list(_regions(data, cuts)), matcher)
            assert a == b, data
    a, b = _both([(("\n".join(GIN_EDGES)).encode(), 0, len("\n".join(GIN_EDGES).encode()))], matcher)
    assert a == b and a.requests.requests > 5 and a.status_counts[503] == 1
