"""The scanner with its quiet-line fast path (issue 15) gives exactly the result of the scanner it
replaced (reference_vllm_log.py, a copy of it): on every vLLM fixture, every real case whose
evidence holds a vLLM log, and generated logs with random mixes of lines, fed the way
llmdoctor feeds them (file regions, chunks, blocks, lines)."""
from __future__ import annotations

import importlib.util
import io
import random
import shutil
import sys
from pathlib import Path

import pytest

from llmdoctor.hosts.logs import FileSource
from llmdoctor.knowledge.vllm.log import VllmLogScanner
from llmdoctor.scratch import scratch_dir

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


reference = _load("reference_vllm_log", Path(__file__).with_name("reference_vllm_log.py"))
gen = _load("vllm_log_gen", ROOT / "bench" / "vllm_log_gen.py")


def vllm_logs() -> list[Path]:
    """Fixture logs, and the logs of real cases and evidence fixtures that hold vLLM lines."""
    found = sorted((FIX / "vllm").glob("*.log"))
    for root in sorted(FIX.glob("realcases*")) + [FIX / "evidence"]:
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.suffix in (".log", ".txt") and p.stat().st_size < 8 * 2**20:
                data = p.read_bytes()
                if b"KV cache" in data or b"preempted" in data or b"Running: " in data:
                    found.append(p)
    return found


LOGS = vllm_logs()


def both(data: bytes, feed, **kw):
    new, old = VllmLogScanner(**kw), reference.VllmLogScanner(**kw)
    feed(new, data)
    feed(old, data)
    result = new.result()
    result.output_too_long = 0  # a figure the reference predates (tested in test_vllm_log.py)
    lines = (b.decode("utf-8", "replace") for b in data.split(b"\n"))
    assert result.release == reference.release_in(lines)  # read on the scan's way, not by a pass of its own
    result.release = None
    return result, old.result()


def pieces(data: bytes, size: int):
    """The regions FileSource.raw_regions would yield: whole lines of at most `size` bytes (or
    one longer line), the last newline left out."""
    pos = 0
    while pos < len(data):
        cut = data.rfind(b"\n", pos, pos + size)
        if cut < pos:
            cut = data.find(b"\n", pos)
            cut = len(data) if cut == -1 else cut
        yield data[pos:cut]
        pos = cut + 1


def by_regions(size: int, stale: bytes = b"\xff"):
    """As FileSource.raw_regions feeds: whole lines in a reused buffer, last newline left out;
    `stale` fills the buffer around the region (newlines there must not be counted)."""
    def feed(sc, data: bytes) -> None:
        buf = bytearray(size + 4096)
        for piece in pieces(data, size):
            buf[:] = (stale * len(buf))[:len(buf)]  # stale bytes around the region, as in a reused buffer
            buf[7:7 + len(piece)] = piece
            sc.feed_region(buf, 7, 7 + len(piece))
    return feed


def by_chunks(size: int):
    def feed(sc, data: bytes) -> None:
        for i in range(0, len(data), size):
            sc.feed_bytes(data[i:i + size])
        sc.feed_bytes(b"", final=True)
    return feed


def by_stream(sc, data: bytes) -> None:
    sc.scan_stream(io.BytesIO(data), chunk_size=64 * 1024)


def by_raw_blocks(sc, data: bytes) -> None:
    lines = data.split(b"\n")
    for i in range(0, len(lines), 7):
        sc.feed_raw_block(b"\n".join(lines[i:i + 7]))


def by_file_source(sc, data: bytes) -> None:
    """Through the real reader (FileSource.raw_regions, whole-buffer reads), as diagnose reads a file."""
    where = scratch_dir("llmdoctor-test-")
    try:
        path = Path(where) / "vllm.log"
        path.write_bytes(data)
        for buf, begin, end in FileSource(path, since_seconds=None).raw_regions():
            sc.feed_region(buf, begin, end)
    finally:
        shutil.rmtree(where, ignore_errors=True)


FEEDS = {"regions-1M": by_regions(1 << 20), "regions-4k": by_regions(4096), "chunks-777": by_chunks(777),
         "stream": by_stream, "raw-blocks": by_raw_blocks, "regions-1M-stale-newlines": by_regions(1 << 20, b"a\n"),
         "file-source": by_file_source}


def test_the_corpus_holds_vllm_logs():
    assert len(LOGS) >= 20
    assert any("realcases" in str(p) for p in LOGS)


@pytest.mark.parametrize("feed", list(FEEDS))
@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name[:12]}/{p.name[:30]}" for p in LOGS])
def test_fixtures_and_real_cases_scan_as_before(log, feed):
    new, old = both(log.read_bytes(), FEEDS[feed])
    assert new == old
    assert new.lines == old.lines


# A generated log's lines, and lines made to sit on the edge of what is quiet.
EDGE = [
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=3, w=0, mid="", kv=94.9, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=3, w=0, mid="", kv=95.0, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=300, w=0, mid="Preemptions: 0, ", kv=9.0, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=0, w=0, mid="Preemptions: 2, ", kv=9.0, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=7, w=1, mid="", kv=9.0, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=7, w=0, mid="Deferred: 0 reqs, ", kv=9.0, ph=1.0),
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=7, w=0, mid="", kv=9.0, ph=1.0) + " " * 59,
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=7, w=0, mid="", kv=9.0, ph=1.0) + " " * 60,
    gen.STATS.format(pid=1, ts="04-28 00:00:01", pt=1.0, gt=2.0, r=7, w=0, mid="", kv=9.0, ph=1.0)[:-30],  # cut off
    "INFO 10-28 11:16:34 metrics.py:349] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 7220.5 "
    "tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 73.8%, CPU KV cache usage: 0.0%.",
    "INFO 10-28 11:16:35 metrics.py:367] Prefix cache hit rate: GPU: 12.50%, CPU: 0.00%",
    "INFO 07-28 06:40:59 [loggers.py:118] Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.2%",  # no throughput
    "(APIServer pid=9) INFO 03-17 15:38:10 [loggers.py:259] 2 Engines Aggregated: Avg prompt throughput: 1.0 tokens/s, "
    "Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, "
    "Prefix cache hit rate: 0.0%",
    "Avg prompt throughput: 5.0 tokens/s, Avg gen",  # a fragment without its figure
    "INFO 05-09 00:49:30 [gpu_worker.py:298] Available KV cache memory: 6.51 GiB",
    "INFO 05-09 00:49:30 [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens",
    "INFO 05-09 00:49:30 [kv_cache_utils.py:868] Maximum concurrency for 32,768 tokens per request: 1.30x",
    "INFO 05-09 00:49:30 executor_base.py:110] # GPU blocks: 2048, # CPU blocks: 512",
    "ERROR 05-09 00:49:31 serving.py:1] QueueOverflowError: the queue is full",
    "ERROR 05-09 00:49:31 serving.py:1] Input prompt (9000 tokens) is too long and exceeds limit of 4096",
    "KV cache usage: 50.0%, Prefix cache hit rate: 1.0%",
    "INFO 05-09 00:49:29 [utils.py:326] non-default args: {'model': 'm', 'max_model_len': 4096, 'max_num_seqs': 8}",
    "INFO 05-09 00:49:29 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='m', "
    "max_seq_len=8192, tensor_parallel_size=1, enable_prefix_caching=False",
    "ERROR 05-09 00:49:32 serving.py:1] This model's maximum context length is 4096 tokens. However, you requested "
    "5000 tokens (4000 in the messages, 1000 in the completion).",
    "ERROR 05-09 00:49:32 serving.py:1] max_tokens=9000 cannot be greater than max_model_len=4096",
    "ERROR 05-09 00:49:32 serving.py:1] The prompt (length 9000) is longer than the maximum model length of 4096",
    "INFO: prompt {x} and max_tokens, Prefix (v engine",
    "INFO 06-01 12:00:00 api_server.py:177] vLLM API server version 0.4.3",
    "(APIServer pid=9) INFO 05-09 00:49:29 [api_server.py:1043] vLLM API server version 0.8.6.dev0+g4e8c9f5e9.d202505",
    "INFO 02-20 18:36:00 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='m', "
    "max_seq_len=2048",
    "(EngineCore pid=2) INFO 12-01 08:07:40 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='m'",
    # the message catalogue's additions (rare lines found by the exact search's 'x' and literal finds)
    "INFO 05-09 00:49:29 [scheduler.py:307] Chunked prefill is enabled with max_num_batched_tokens=2048.",
    "INFO 05-09 00:49:29 [model.py:2152] Using max model len 8192",
    "INFO 05-09 00:49:29 worker.py:267] the current vLLM instance can use total_gpu_memory (79.19GiB) x "
    "gpu_memory_utilization (0.90) = 71.27GiB",
    "ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len (None=8192 in "
    "model's config.json).",
    "ERROR 05-09 00:49:31 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine.",
    "No available memory for the cache blocks.",
    "WARNING 05-09 00:49:31 scheduler.py:965] Input prompt (40000 tokens) + lookahead slots (0) is too long and "
    "exceeds the capacity of block_manager",
    "ValueError: The prompt (total length 9000) is too long to fit into the model (context length 8192).",
    "ValueError: This model's maximum context length is 8192 tokens. However, your request has 9500 input tokens.",
    "Maximum concurrency for 2048 tokens per request: 10.79x",
    "ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.",
    "max_completion_tokens=40000 cannot be greater than max_model_len=32768.",
    "(EngineCore_0 pid=1810465) ERROR 09-03 11:03:37 [core.py:712] ValueError: Free memory on device (7.34/139.72 GiB) "
    "on startup is less than desired GPU memory utilization (0.9, 125.75 GiB). Decrease GPU memory utilization or "
    "reduce GPU memory used by other processes.",
    "INFO 05-09 00:49:30 [gpu_worker.py:372] Free memory on device (78.5/79.2 GiB) on startup. Desired GPU memory "
    "utilization is (0.85, 67.3 GiB). Actual usage is 14.9 GiB for weight",
    "INFO 12-02 10:00:00 worker.py:233] Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
    "peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB "
    "gpu_memory_utilization=0.90",
    "(APIServer pid=7) INFO 05-02 10:00:10 [loggers.py:341] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
    "generation throughput: 120.0 tokens/s, Running: 8 reqs, Waiting: 20 reqs, KV fetch: 4 waiting to start, 2 in "
    "progress, 1 completed waiting, Preemptions: 3, GPU KV cache usage: 88.0%, Prefix cache hit rate: 40.0%",
    "",
]


def random_log(rnd: random.Random, n: int) -> bytes:
    lines = []
    second = 0
    for _ in range(n):
        second += 1
        ts = f"04-28 00:{second // 60 % 60:02d}:{second % 60:02d}"
        k = rnd.random()
        if k < 0.35:
            line = gen.stats_line(rnd, 851, ts, busy=rnd.choice((0.0, 0.1, 0.5)))
        elif k < 0.5:
            line = rnd.choice(EDGE)
        elif k < 0.52:
            line = gen.PREEMPT.format(ts=ts, rid=rnd.getrandbits(64), mode="RECOMPUTE", n=rnd.randint(1, 500))
        else:
            line = gen.ACCESS.format(pid=851, a=1, b=2, c=3, port=rnd.randint(30000, 60000))
        if rnd.random() < 0.02 and lines:  # a lost newline glues two lines
            lines[-1] += line
        else:
            lines.append(line)
    return ("\n".join(lines) + rnd.choice(("", "\n"))).encode()


@pytest.mark.parametrize("seed", range(60))
def test_random_mixes_scan_as_before(seed):
    rnd = random.Random(seed)
    data = random_log(rnd, rnd.choice((50, 400, 3000)))
    keep = rnd.choice((0, 1, 5, 360))
    kv = rnd.choice((95.0, 90.0, 99.5))
    for name in ("regions-4k", "chunks-777", "stream"):
        new, old = both(data, FEEDS[name], keep_stats=keep, kv_floor_pct=kv)
        assert new == old, (seed, name)
        assert new.lines == old.lines


def test_a_generated_dense_log_scans_as_before(tmp_path):
    for density in (0.005, 0.05, 0.2):
        path = tmp_path / "vllm.log"
        gen.generate(path, 3 * 2**20, density=density, seed=5)
        new, old = both(path.read_bytes(), FEEDS["regions-1M"])
        assert new == old and new.stats_lines > 0


def sparse_log(rnd: random.Random, n: int) -> bytes:
    """Stats lines few and far between (a quiet server, or 0.5 % density): the scanner keeps
    its quiet lines one by one, among parsed ones, rather than the region's bytes."""
    lines = []
    for i in range(n):
        if rnd.random() < 0.004:
            lines.append(gen.stats_line(rnd, 851, f"04-28 00:{i // 60 % 60:02d}:{i % 60:02d}",
                                        busy=rnd.choice((0.0, 0.3))))
        elif rnd.random() < 0.001:
            lines.append(rnd.choice(EDGE))
        else:
            lines.append(gen.ACCESS.format(pid=851, a=1, b=2, c=3, port=rnd.randint(30000, 60000)))
    return ("\n".join(lines) + rnd.choice(("", "\n"))).encode()


def test_the_release_is_read_past_the_exact_lines():
    """A restart that upgraded vLLM, long into the log: its start-up lines are found by their
    anchor ('L' of "vLLM API server version" and of "LLM engine"), the last one stated wins."""
    rnd = random.Random(3)
    head = "\n".join(gen.ACCESS.format(pid=851, a=1, b=2, c=3, port=rnd.randint(30000, 60000)) if i % 300
                     else gen.stats_line(rnd, 851, "04-28 00:00:01", busy=0.3) for i in range(70000)).encode()
    for tail, release in (("INFO 06-01 12:00:00 api_server.py:177] vLLM API server version 0.5.4", "0.5.4"),
                          ("INFO 02-20 18:36:00 llm_engine.py:234] Initializing a V0 LLM engine (v0.9.2) with "
                           "config: model='m'", "0.9.2"),
                          ("noise (EngineCore pid=2) INFO 12-01 08:07:40 [core.py:133] Initializing a V1 LLM "
                           "engine (v0.32.0) with config: model='m'", "0.32.0")):
        data = head + b"\nINFO 06-01 api_server.py:1] vLLM API server version 0.4.3\n" + tail.encode() + b"\n"
        for name in ("regions-1M", "chunks-777"):
            new, old = both(data, FEEDS[name])
            assert new == old
        sc = VllmLogScanner()
        by_regions(1 << 20)(sc, data)
        assert sc.result().release == release


@pytest.mark.parametrize("seed", range(6))
def test_sparse_stats_scan_as_before(seed):
    rnd = random.Random(seed)
    data = sparse_log(rnd, rnd.choice((30000, 60000)))
    keep = rnd.choice((1, 5, 360))
    for name in ("regions-1M", "regions-1M-stale-newlines", "file-source"):
        new, old = both(data, FEEDS[name], keep_stats=keep)
        assert new == old, (seed, name)
        assert new.lines == old.lines and new.stats_lines > 0


def test_newlines_counts_as_bytes_count_does():
    from llmdoctor.knowledge.vllm.log import newlines

    rnd = random.Random(3)
    for _ in range(300):
        n = rnd.choice((0, 1, 5, 100, 4096))
        buf = bytes(rnd.choice(b"ab\n\n\xff") for _ in range(n))
        begin = rnd.randint(0, n)
        end = rnd.randint(begin, n)
        for b in (buf, bytearray(buf)):
            assert newlines(b, begin, end) == buf.count(b"\n", begin, end), (n, begin, end)
