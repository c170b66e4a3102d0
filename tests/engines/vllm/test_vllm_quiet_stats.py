"""The pieces of the quiet-line pattern: numbers up to a bound, the KV-full mark."""
from __future__ import annotations

import re

import pytest

from llmdoctor.knowledge.vllm.quiet_stats import at_most, kv_full_mark, quiet_pattern


@pytest.mark.parametrize("n", [0, 1, 9, 10, 19, 64, 99, 100, 101, 255, 999, 1000, 1234])
def test_at_most_matches_exactly_the_numbers_up_to_n(n):
    rx = re.compile(at_most(n))
    for k in range(0, 1500):
        assert bool(rx.fullmatch(str(k))) == (k <= n), (n, k)
    assert not rx.fullmatch("01") and not rx.fullmatch("")


def test_kv_full_mark_is_a_whole_percentage_or_none():
    assert kv_full_mark(95.0) == 95 and kv_full_mark(100) == 100
    assert kv_full_mark(99.5) is None and kv_full_mark(0) is None


def test_the_quiet_pattern_takes_a_healthy_record_and_nothing_more():
    line = ("Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 7 reqs, "
            "Waiting: 0 reqs, GPU KV cache usage: 94.9%, Prefix cache hit rate: 3.0%")
    after = len("Avg prompt throughput: ")  # the scanner matches after the words it found

    def quiet(text: str, pattern=quiet_pattern(7, 95)):
        return pattern.match(text.encode(), after)

    assert quiet(line + "\n") and quiet(line) and quiet(line + " (tail)\n")
    assert not quiet(line, quiet_pattern(6, 95))  # a new highest Running
    assert not quiet(line.replace("Waiting: 0", "Waiting: 1"))
    assert not quiet(line.replace("94.9%", "95.0%"))
    assert quiet(line.replace("Waiting: 0 reqs, ", "Waiting: 0 reqs, Preemptions: 0, "))
    assert not quiet(line.replace("Waiting: 0 reqs, ", "Waiting: 0 reqs, Preemptions: 1, "))
    assert not quiet(line + " " * 60)  # the scanner would look for a second record
    assert not quiet(line + " KV cache usage")
