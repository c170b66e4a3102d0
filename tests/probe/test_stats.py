import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmdoctor.knowledge.probe.stats import gaps, max_concurrency, overlap, p50, p95, percentile


def test_percentiles_match_linear_interpolation():
    xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert p50(xs) == 5.5
    assert p95(xs) == pytest.approx(9.55)
    assert percentile([3.0], 95) == 3.0
    assert p50([]) is None


def test_gaps_overlap_concurrency():
    assert gaps([0.0, 0.1, 0.3]) == pytest.approx([0.1, 0.2])
    assert overlap((0, 1), (0.5, 2)) == 0.5
    assert overlap((0, 1), (1, 2)) == 0.0
    assert max_concurrency([(0, 1), (1, 2), (2, 3)]) == 1
    assert max_concurrency([(0, 3), (1, 2), (1.5, 4)]) == 3


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9), min_size=1),
       st.floats(min_value=0, max_value=100))
def test_percentile_stays_within_the_samples(xs, q):
    v = percentile(xs, q)
    assert min(xs) <= v <= max(xs) or math.isclose(v, min(xs)) or math.isclose(v, max(xs))
