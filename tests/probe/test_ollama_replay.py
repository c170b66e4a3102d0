"""The Ollama NDJSON path, against a REPLAY of recorded Ollama streams
(tests/support/ollama_replay.py) paced like one slot or several. Not a real Ollama:
the binary cannot run here; the chunk shapes and final metrics are Ollama's own."""
import threading
import time

import pytest

from llmdoctor.facts.live_probe import ProbeError, run_probe
from llmdoctor.hosts.stream_client import Interrupt
from llmdoctor.facts.live_probe.detect import detect
from llmdoctor.knowledge.probe.result import INTERRUPTED, STALLED, STREAM_ERROR, TIMEOUT
from llmdoctor.facts.live_probe.scenarios import ProbeRunner
from llmdoctor.judge.probe.verdicts import HEALTHY, PROBLEM, batching, model_unload, prefill, queue_full, queueing
from tests.support.ollama_replay import QUEUE_FULL_BODY, ollama_replay

pytestmark = pytest.mark.timeout(60)


def probe(srv, **kw):
    return ProbeRunner(detect(srv.url), **kw).light()


def test_replay_one_slot_serialises_the_pair():
    with ollama_replay(slots=1) as srv:
        r = probe(srv)
        for _ in range(2):
            if queueing(r).kind == PROBLEM:
                break
            r = probe(srv)
    assert r.engine == "ollama" and r.model == "gemma2:9b-instruct-q4_0" and r.version == "0.12.3"
    assert queueing(r).kind == PROBLEM
    # requests are the probe's: marked prompts, bounded output, nothing that reloads the model
    body = srv.requests[0]
    assert body["prompt"].startswith("[llmdoctor probe ") and body["options"] == {"num_predict": 8}
    assert all(b["options"]["num_predict"] <= 64 for b in srv.requests)
    assert len({b["prompt"] for b in srv.requests}) == len(srv.requests)  # unique: no prompt cache


def until(check, cfg, tries=3):
    """Probe the replay until `check` holds (a busy 2-core machine blurs a burst
    now and then: at most two retries), and return the last result."""
    for _ in range(tries):
        with ollama_replay(**cfg) as srv:
            r = probe(srv)
        if check(r):
            break
    return r


def test_replay_four_slots_batch_or_share():
    r = until(lambda r: batching(r) is not None and batching(r).kind == HEALTHY, dict(slots=4, share=0.0, itl_s=0.01))
    assert queueing(r).kind == HEALTHY
    assert batching(r).kind == HEALTHY
    r = until(lambda r: batching(r) is not None and batching(r).kind == PROBLEM, dict(slots=4, share=1.0, itl_s=0.01))
    assert queueing(r).kind == HEALTHY
    shared = batching(r)
    assert shared.kind == PROBLEM and 0.3 < shared.figures["share"] < 0.7


def test_replay_model_load_and_slow_prefill():
    with ollama_replay(slots=2, load_s=1.0, prefill_s_per_token=0.003) as srv:
        r = probe(srv)
    v = model_unload(r)
    assert v.kind == PROBLEM and v.figures["load_duration_s"] == pytest.approx(1.0, abs=0.05)
    assert prefill(r).kind == PROBLEM
    assert r.scenario("long")[0].prefill_tps < 400  # from prompt_eval_count / prompt_eval_duration


def test_replay_queue_full_503_stops_the_probe():
    with ollama_replay(busy=True) as srv:
        r = probe(srv)
    assert r.requests_sent == 1  # nothing more is sent after the refusal
    (s,) = r.samples
    assert s.http_status == 503 and "maximum pending requests exceeded" in s.error
    assert QUEUE_FULL_BODY.split('"')[3] in s.error  # the exact body, two spaces included
    assert queue_full(r).kind == PROBLEM


def test_replay_mid_stream_error_line():
    with ollama_replay(error_after=3) as srv:
        r = probe(srv)
    (s,) = r.samples
    assert s.status == STREAM_ERROR and "unexpected EOF" in s.error
    assert r.errors and "error inside the stream" in r.errors[0]


def test_replay_stall_mid_stream_hits_the_read_timeout():
    with ollama_replay(stall_after=4) as srv:
        start = time.monotonic()
        r = probe(srv, read_timeout_s=0.5)
        took = time.monotonic() - start
    (s,) = r.samples
    assert s.status == STALLED and len(s.chunk_s) == 4
    assert took < 10


def test_replay_no_answer_is_a_timeout_not_a_hang():
    with ollama_replay(hang_headers=True) as srv:
        start = time.monotonic()
        runner = ProbeRunner(detect(srv.url), read_timeout_s=0.5, warmup_timeout_s=1.0)
        runner.request_timeout_s = 1.0
        r = runner.light()
        took = time.monotonic() - start
    assert r.samples[0].status == TIMEOUT
    assert took < 10


def test_overall_deadline_stops_requests_in_flight():
    with ollama_replay(slots=4, itl_s=0.05) as srv:
        start = time.monotonic()
        r = ProbeRunner(detect(srv.url), deadline_s=2.5).light()
        took = time.monotonic() - start
    assert took < 8  # 2.5 s deadline; slack for a busy machine
    assert any("deadline" in n for n in r.notes)


def test_interrupt_stops_cleanly_and_keeps_what_was_measured():
    stop = Interrupt()
    with ollama_replay(slots=1, itl_s=0.05) as srv:
        def press_ctrl_c_once_the_single_stream_runs():
            end = time.monotonic() + 20
            while len(srv.requests) < 2 and time.monotonic() < end:
                time.sleep(0.02)
            time.sleep(0.3)
            stop.set()

        threading.Thread(target=press_ctrl_c_once_the_single_stream_runs, daemon=True).start()
        start = time.monotonic()
        r = ProbeRunner(detect(srv.url), stop=stop).light()
        took = time.monotonic() - start
    assert took < 8  # uninterrupted: > 10 s at 50 ms a token
    assert r.interrupted
    assert any(s.status == INTERRUPTED for s in r.samples)
    assert r.scenario("warmup")[0].ok


def test_chat_route_is_parsed_too():
    from llmdoctor.hosts.stream_client import StreamRequest, stream

    with ollama_replay(slots=1) as srv:
        req = StreamRequest("c", "single", srv.url, "/api/chat",
                            {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True,
                             "options": {"num_predict": 5}}, wire="ollama")
        s = stream(req, time.monotonic(), Interrupt())
    assert s.ok and len(s.chunk_s) == 5 and s.completion_tokens == 5


def test_nothing_listening_is_a_clear_error():
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(ProbeError, match="nothing answers"):
        run_probe(f"http://127.0.0.1:{port}")


def test_no_model_loaded_asks_for_one():
    with ollama_replay(loaded=False) as srv:
        with pytest.raises(ProbeError, match="no model loaded; pass --model"):
            detect(srv.url)
        t = detect(srv.url, model="llama3.2:3b")
    assert t.model == "llama3.2:3b" and t.context is None
