"""An unload read from its VRAM-recovery warning (`gpu VRAM usage didn't recover within timeout`,
server/sched.go:655 @ v0.6.8, logged only after a runner unload, `seconds=` since the unload
began) seconds from a runner load: a model swapped out or loaded again between requests
(tests/fixtures/realcases_extra8/x815, RAGFlow 0.18 with Ollama 0.6.8). Silent when the unload
stands alone (a keep-alive expiry with no load after it) or the load is far from it."""
from __future__ import annotations

from checks.ollama_model_evicted import model_evicted
from llmdoctor.judge.ollama import unloads_beside_loads
from llmdoctor.knowledge.ollama.log import scan
from llmdoctor.model import Cause

BLOB = "/root/.ollama/models/blobs/sha256-aabd4debf0c8f08881923f2c25fc0fdeed24435271c2b3e92c4af36704040dbc"
STARTED = ('time=2025-05-14T15:59:01.436Z level=INFO source=server.go:628 msg="llama runner started in 0.75 seconds"')
CHAT = '[GIN] 2025/05/14 - 15:59:02 | 200 |  2.707843313s |      172.17.0.1 | POST     "/api/chat"'


def _warn(at: str, seconds: str) -> str:
    return (f'time=2025-05-14T{at}Z level=WARN source=sched.go:655 msg="gpu VRAM usage didn\'t recover within '
            f'timeout" seconds={seconds} model={BLOB}')


def test_an_unload_a_second_before_a_load_is_a_swap():
    # the wait logs every 250 ms: three lines, one unload (began 15:58:59.65, the load at 15:59:00.69)
    lines = ["llama_context: graph splits = 2", STARTED, CHAT,
             _warn("15:59:04.759", "5.113076142"), _warn("15:59:05.009", "5.363610293"), _warn("15:59:05.259", "5.613038308")]
    s = scan(lines, "journal.log")
    pairs = unloads_beside_loads(s)
    assert [p.gap_s for p in pairs] == [1.0]
    found = list(model_evicted(s))
    assert [f.cause for f in found] == [Cause.MODEL_UNLOAD]
    assert "didn't recover" in found[0].evidence[0].text and "started in" in found[0].evidence[1].text


def test_the_docker_desktop_time_prefix_reads_the_same():
    lines = ["2025-05-14 23:59:01 " + STARTED, "2025-05-14 23:59:04 " + _warn("15:59:04.759", "5.113076142")]
    assert [p.gap_s for p in unloads_beside_loads(scan(lines, "journal.log"))] == [1.0]


def test_an_unload_with_no_load_near_it_is_silent():
    # a keep-alive expiry long after the last load: the next request may reload, but none is seen
    lines = [STARTED, CHAT, _warn("16:04:07.900", "5.25")]
    s = scan(lines, "journal.log")
    assert unloads_beside_loads(s) == () and list(model_evicted(s)) == []


def test_an_unload_without_a_time_or_a_load_is_silent():
    bare = ('level=WARN source=sched.go:646 msg="gpu VRAM usage didn\'t recover within timeout" seconds=5.0 '
            f'model={BLOB}')
    assert list(model_evicted(scan([STARTED, bare], "journal.log"))) == []
    assert list(model_evicted(scan([_warn("15:59:04.759", "5.11")], "journal.log"))) == []


def test_a_healthy_load_and_answer_is_silent():
    assert list(model_evicted(scan([STARTED, CHAT], "journal.log"))) == []
