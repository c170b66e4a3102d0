"""Several fragments pasted days apart are several fragments: repair puts FRAGMENT where the
paste marked a cut (`...`, `[...]`, `<snip>`), and no scanner takes an idle gap, an interval
or a run of stats lines across it. Lines: real ones (sources named), the second fragment's
times moved days on."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from llmdoctor.judge.llamacpp import queued_launches
from llmdoctor.judge.ollama import cold_starts
from llmdoctor.knowledge.llamacpp.log import scan_llama_lines
from llmdoctor.knowledge.ollama.log import scan
from llmdoctor.knowledge.pasted import FRAGMENT, repair_log
from llmdoctor.knowledge.sglang.log import scan_sglang_lines
from llmdoctor.knowledge.vllm.log import scan_vllm_lines, scan_vllm_stream

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def repaired(*fragments: str, cut: str = "...") -> list[str]:
    return repair_log(f"\n{cut}\n".join(f.strip("\n") for f in fragments) + "\n").text.split("\n")


@pytest.mark.parametrize("cut", ["...", "…", "[...]", "[ ... ]", "(...)", "<snip>", "[snip]", "-- snip --",
                                 "[truncated]", "[200 lines omitted]", "  ...  ", "# ..."])
def test_a_cut_becomes_one_fragment_line(cut):
    r = repair_log(f"time=2026-01-01T00:00:00Z level=INFO msg=a\n{cut}\n\ntime=2026-01-03T00:00:00Z level=INFO msg=b\n")
    assert r.fragments == 1 and r.changed
    assert r.text.split("\n")[:3] == ["time=2026-01-01T00:00:00Z level=INFO msg=a", FRAGMENT, ""]


def test_cuts_at_either_end_or_twice_in_a_row_mark_nothing_more():
    r = repair_log("...\nline a\n...\n...\nline b\n...\n\n")
    assert r.text == f"line a\n{FRAGMENT}\nline b\n\n" and r.fragments == 1
    assert repair_log("...\n").fragments == 0


def test_what_is_not_a_cut_stays():
    dots = "." * 98  # llama.cpp's load progress
    for text in (dots + "\n", "Loading...\n", "... 3 more\n", "msg=...\n", "[GIN] ...x\n"):
        assert FRAGMENT not in repair_log("a\n" + text + "b\n").text, text


GIN = '[GIN] {} | 200 | {:>12} |       127.0.0.1 | POST     "/api/chat"'  # ollama 0.5 access line (#8903)


def test_ollama_request_after_a_cut_is_no_cold_start():
    warm = [GIN.format("2025/02/07 - 09:16:0" + str(i), "1.0s") for i in range(0, 10, 3)]
    later = [GIN.format("2025/02/10 - 14:00:00", "30.0s")]
    together = scan(warm + later, "j").requests
    cold = cold_starts(together)
    assert cold and cold[0].idle_s > 3 * 86400  # read as one log: days idle, a cold start
    apart = scan(repaired("\n".join(warm), "\n".join(later)), "j").requests
    assert not cold_starts(apart) and apart.requests == 5


def test_ollama_load_after_a_cut_has_no_idle_time():
    # ollama#8903: a request, then the scheduler loading a model (real lines, 0.5.x)
    req = GIN.format("2025/02/07 - 09:16:24", "7.5808349s").replace("127.0.0.1", "192.168.6.29")
    load = (r'time=2025-02-09T09:17:02.238+08:00 level=INFO source=sched.go:714 msg="new model will fit in available '
            r'VRAM in single GPU, loading" model=C:\Users\U\.ollama\models\blobs\sha256-6150cb382311b69f09cc0f9a1b69fc0'
            r'29cbd742b66bb8ec531aa5ecf5c613e93 gpu=GPU-4e6d parallel=4')
    assert scan([req, load], "j").loads[0].idle_before_s > 86400
    assert scan(repaired(req, load), "j").loads[0].idle_before_s is None


# llama-server (b5xxx lines, shapes of tests/fixtures/realcases case115 and llama.cpp tools/server/server.cpp)
N_SLOTS = "0.00.105.001 I srv          init: initializing slots, n_slots = 1"
RELEASE = "{} I slot      release: id  0 | task 12 | stop processing: n_tokens = 812, truncated = 0"
LAUNCH = "{} I slot launch_slot_: id  0 | task 13 | processing task"


def test_llama_server_slot_taken_back_to_back_only_within_a_fragment():
    first = [N_SLOTS, RELEASE.format("0.10.000.000")]
    second = [LAUNCH.format("0.10.000.010")]  # a restarted server's clock: the same minute, days later
    assert queued_launches(scan_llama_lines(first + second))[0] == 1
    assert queued_launches(scan_llama_lines(repaired("\n".join(first), "\n".join(second))))[0] == 0


def test_sglang_queue_run_ends_at_a_cut():
    lines = (FIXTURES / "sglang" / "decode_kv_full_queue_14972.log").read_text().strip().split("\n")
    assert scan_sglang_lines(lines, "s").longest_queue_run.length == 5
    apart = scan_sglang_lines(repaired("\n".join(lines[:2]), "\n".join(lines[2:])), "s")
    assert apart.longest_queue_run.length == 3 and apart.batch_lines == 5


def test_vllm_waiting_run_ends_at_a_cut_line_by_line_and_streamed():
    lines = (FIXTURES / "vllm" / "preempt_v0_truncated_546.log").read_text().strip().split("\n")
    stats = [l for l in lines if "Pending:" in l]
    assert scan_vllm_lines(lines).longest_waiting_run.length == 2
    apart = repaired(stats[0], "\n".join(lines[lines.index(stats[0]) + 1:]))
    assert scan_vllm_lines(apart).longest_waiting_run.length == 1
    streamed = scan_vllm_stream(io.BytesIO("\n".join(apart).encode()))
    assert streamed.longest_waiting_run.length == 1 and streamed.waiting_lines == 2
    assert scan_vllm_stream(io.BytesIO("\n".join(lines).encode())).longest_waiting_run.length == 2


def test_repasted_fragments_of_real_logs_read_as_the_log():
    """A cut between two whole records changes no count: only what spans it."""
    lines = (FIXTURES / "vllm" / "preempt_v0_truncated_546.log").read_text().strip().split("\n")
    one, two = scan_vllm_lines(lines), scan_vllm_lines(repaired("\n".join(lines[:1]), "\n".join(lines[1:])))
    assert (one.preemption_warnings, one.waiting_lines) == (two.preemption_warnings, two.waiting_lines)
