"""A queue that grows, bursts that drain, and a single spike get different advice: the
shape comes from the longest waiting run and how many lines waited in all."""
from __future__ import annotations

from types import SimpleNamespace

from llmdoctor.judge.queue_shape import BURSTS, GROWING, SPIKE, STEADY, queue_shape


def run(first, last, peak, length):
    return SimpleNamespace(first=SimpleNamespace(waiting=first), last=SimpleNamespace(waiting=last),
                           peak=peak, length=length)


def test_a_queue_climbing_3_to_105_is_growing():
    assert queue_shape(run(3, 105, 105, 12), 12, 40).kind == GROWING


def test_a_30_0_sawtooth_is_bursts():
    shape = queue_shape(run(30, 28, 30, 3), 9, 20)  # 9 waiting lines, longest run 3: it drained between
    assert shape.kind == BURSTS and "drained to 0" in shape.evidence


def test_one_short_spike_among_quiet_lines():
    assert queue_shape(run(14, 14, 14, 1), 1, 30).kind == SPIKE


def test_an_excerpt_of_the_queue_alone_has_no_shape():
    assert queue_shape(run(14, 14, 14, 1), 1, 1) is None
    assert queue_shape(None, 0, 10) is None


def test_a_queue_that_stands_is_steady():
    assert queue_shape(run(14, 15, 15, 3), 3, 3).kind == STEADY
