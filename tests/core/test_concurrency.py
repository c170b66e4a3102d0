"""knowledge/concurrency.py (requests in flight rebuilt from access-log spans) and the
back-to-back queue check, on real Ollama access logs from the corpora and on garbage.

Real evidence: tests/fixtures/realcases_extra/x204 (ollama#9054, three /api/chat lines
served back to back, no sign in the log that they were sent together),
tests/fixtures/realcases/case109 (ollama#8387, one agent's requests back to back, one 500
at its 30m0s deadline: a runaway generation, OTHER), case121 (ollama#4124, a burst of
instant 500s), tests/fixtures/evidence/ollama-serialized and ollama-healthy.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from llmdoctor.judge import thresholds as T
from llmdoctor.judge.deadlines import deadline, sent_together
from llmdoctor.knowledge.concurrency import (Chain, Span, chains, deadline_of, in_flight, is_round, peak, span_from_end,
                                             waits_one_slot)
from llmdoctor.knowledge.ollama.log import OllamaLogScanner

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def spans_of(rel: str) -> tuple[Span, ...]:
    path = next(FIX.glob(rel)) / "journal.log"
    return OllamaLogScanner().feed_all(path.read_text().splitlines(), "journal.log").summary().requests.spans


def test_span_from_an_end_and_a_duration():
    s = span_from_end(100.0, 6.5, 200)
    assert (s.start, s.end, s.seconds, s.status) == (93.5, 100.0, 6.5, 200)
    assert span_from_end(5.0, -3.0).seconds == 0.0  # a negative duration is no duration


def test_in_flight_counts_overlap_beyond_the_resolution_only():
    touching = [Span(0, 10), Span(10.5, 20)]  # meet within a second: not overlapping
    assert peak(in_flight(touching)) == 1
    together = [Span(0, 10), Span(0, 20), Span(0, 30)]
    series = in_flight(together)
    assert peak(series) == 3 and series[-1] == (30, 0)
    assert in_flight([]) == [] and peak([]) == 0


def test_one_slot_waits_are_the_previous_end_minus_the_start():
    assert waits_one_slot([Span(0, 10), Span(0, 20), Span(0, 30)]) == [0.0, 10.0, 20.0]


def test_round_durations_are_client_deadlines():
    assert is_round(10.007) and is_round(1800.0) and not is_round(10.3)  # case132: 500 after 10.007 s
    assert is_round(1799.0) and not is_round(72.0)  # gin truncates from a minute on: 29m59s is 30m; 1m12s is none
    assert not is_round(3.0) and not is_round(0.01) and not is_round(0.0)  # no round number of seconds


def test_a_chain_with_one_deadline_is_a_queue_with_its_wait():
    s = [Span(0, 10, 500), Span(10.3, 20.3, 500), Span(20.5, 30.5, 500), Span(30.6, 34, 200)]
    (c,) = chains(s)
    assert c.failed_at == ((10.0, 3),) and c.waited_s == 30.6  # the parser reports what it read
    assert sent_together(c) and deadline(c) == (10.0, 3)  # judge/deadlines.py decides


def test_the_judge_names_deadlines_from_its_thresholds_only():
    """A round duration under MIN_DEADLINE_S is no client deadline, one hit is a runaway
    generation: the cut-offs are judge/thresholds.py's, the parser's figures stay as read."""
    def chain(*failed_at):
        return Chain((), (), tuple(failed_at), 0.0)

    assert deadline(chain((T.MIN_DEADLINE_S, T.DEADLINE_HITS))) == (T.MIN_DEADLINE_S, T.DEADLINE_HITS)
    assert deadline(chain((T.MIN_DEADLINE_S / 2, 9))) is None  # (a reading a finer step could give)
    assert deadline(chain((30.0, T.DEADLINE_HITS - 1))) is None
    assert deadline(chain((30.0, 2), (10.0, 2))) == (30.0, 2)  # a tie: the longer
    assert deadline(chain((30.0, 2), (10.0, 3))) == (10.0, 3)  # the most hits
    assert deadline(chain()) is None
    assert deadline_of(4.98) == 5.0 and deadline_of(-3.0) is None


def test_a_pause_breaks_a_chain():
    assert chains([Span(0, 10), Span(10.2, 20), Span(25, 30)]) == []


def test_x204_back_to_back_without_a_sign_of_sending_together():
    (c,) = chains(spans_of("realcases_extra/x204_*"))
    assert len(c.spans) == 3 and not sent_together(c) and round(c.waited_s) == 13


def test_case109_one_runaway_at_its_deadline_is_not_a_queue():
    found = chains(spans_of("realcases/case109_*"))
    assert found and not any(sent_together(c) for c in found)
    assert any(n == 1 for c in found for _, n in c.failed_at)  # its one 500 at 30m0s, read and reported


def test_instant_failures_make_no_chain():
    assert chains(spans_of("realcases/case121_*")) == []


def test_serialized_fixture_shows_requests_in_flight_together():
    spans = spans_of("evidence/ollama-serialized")
    assert peak(in_flight(spans)) == 5 and max(waits_one_slot(spans)) > 40


@pytest.mark.parametrize("seed", range(5))
def test_garbage_spans_never_raise(seed):
    rnd = random.Random(seed)
    vals = [0.0, -1.0, 1e12, math.inf, 3.2, 10.0, 10.04]
    spans = [Span(rnd.choice(vals), rnd.choice(vals), rnd.choice([0, 200, 500, 499])) for _ in range(30)]
    chains(spans)
    peak(in_flight(spans))
    waits_one_slot(spans)


def test_the_check_speaks_on_a_deadline_chain_only():
    from llmdoctor.checks.ollama_back_to_back import back_to_back_queue
    from llmdoctor.knowledge.ollama.log import OllamaLogSummary, RequestTiming

    def run(spans):
        return list(back_to_back_queue(OllamaLogSummary(requests=RequestTiming(len(spans), spans=tuple(spans)))))

    assert run(spans_of("realcases_extra/x204_*")) == []
    assert run(spans_of("realcases/case109_*")) == []
    (f,) = run([Span(0, 10, 500), Span(10.3, 20.3, 500), Span(20.5, 30.5, 200)])
    assert f.cause.value == "QUEUEING" and "waited about 20 s" in f.title and "10 s" in f.title


def test_a_real_burst_rebuilt_from_growing_durations():
    """ollama#9192: thirteen /api/chat requests sent within two seconds finish about a second
    apart with durations growing 2.5 -> 21.7 s: thirteen in flight, the last waited ~21 s."""
    log = FIX / "ollama" / "gin_growing_9192.log"
    spans = OllamaLogScanner().feed_all(log.read_text().splitlines(), "j").summary().requests.spans
    assert len(spans) == 14 and peak(in_flight(spans)) == 13
    waits = waits_one_slot(spans)
    assert 20 < max(waits) < 22 and chains(spans) == []  # overlapping, so no back-to-back chain
