"""knowledge/promql.py: the step bound, the selector, and Prometheus API answers (real
captures, tests/fixtures/prometheus/SOURCES.md) and garbage."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from llmdoctor.knowledge.promql import MAX_POINTS, choose_step, matching, parse_names, parse_range, parse_selector
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "prometheus"


@pytest.mark.parametrize("seconds", [1, 59, 60, 300, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400, 365 * 86400])
def test_step_keeps_every_series_within_the_point_bound(seconds):
    step = choose_step(seconds)
    assert step >= 1 and step == int(step)
    assert seconds // step + 1 <= MAX_POINTS < 11000  # Prometheus refuses more than 11,000


def test_step_of_nonsense_is_the_smallest():
    assert choose_step(0) == choose_step(-5) == choose_step(float("nan")) == 1.0


def test_selector_matchers_and_shape():
    assert parse_selector("") == ""
    assert parse_selector(' {job="vllm", namespace=~"ai-.*"} ') == 'job="vllm", namespace=~"ai-.*"'
    assert matching("vllm:num_requests_waiting", 'job="vllm"') == 'vllm:num_requests_waiting{job="vllm"}'
    assert matching("x", "") == "x"
    for bad in ('job="vllm"', '{job="vllm}', "{a}\n{b}", "{", 'x{job="a"}'):
        with pytest.raises(ParseError):
            parse_selector(bad)


def test_real_matrix_answer():
    (s,) = parse_range((FIX / "range_waiting_vllm032.json").read_bytes())
    assert s.label("job") == "vllm" and s.label("model_name") == "tiny" and s.label("pod") == ""
    values = [v for _, v in s.points]
    assert max(values) == 7 and values[0] == 0
    assert all(b[0] - a[0] == 1 for a, b in zip(s.points, s.points[1:]))


def test_real_vector_answer_and_names():
    (s,) = parse_range((FIX / "instant_vector.json").read_bytes())
    assert len(s.points) == 1
    names = parse_names((FIX / "names_vllm032.json").read_bytes())
    assert "vllm:num_requests_waiting" in names and "vllm:time_to_first_token_seconds_bucket" in names


def test_histogram_quantile_answer_drops_nan_points():
    series = parse_range((FIX / "range_ttft_p95_vllm032.json").read_bytes())
    assert all(v == v for s in series for _, v in s.points)


@pytest.mark.parametrize("name, words", [("error_bad_query.json", "parse error"),
                                         ("error_too_many_points.json", "11,000 points")])
def test_prometheus_errors_are_one_line_with_its_own_words(name, words):
    with pytest.raises(ParseError) as e:
        parse_range((FIX / name).read_bytes())
    assert words in str(e.value) and "\n" not in str(e.value)


GARBAGE = [b"", b"   ", b"<html><body>502 Bad Gateway</body></html>", b"null", b"[]", b'"success"', b"{}",
           b'{"status":"success"}', b'{"status":"success","data":{"resultType":"matrix","result":{}}}',
           b'{"status":"success","data":{"resultType":"matrix","result":[1]}}',
           b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1]]}]}}',
           b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["x","y"]]}]}}',
           b'{"status":"success","data":{"resultType":"scalar","result":[]}}',
           b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":[],"values":[]}]}}',
           b"\xff\xfe\x00garbage", b"[" * 100000]


@pytest.mark.parametrize("body", GARBAGE)
def test_garbage_is_a_parse_error_never_a_traceback(body):
    with pytest.raises(ParseError):
        parse_range(body)
    with pytest.raises(ParseError):
        parse_names(body)


def test_cut_and_mutated_real_answers_never_raise_anything_else():
    rng = random.Random(31)
    for name in ("range_waiting_vllm032.json", "names_vllm032.json", "range_ttft_p95_vllm032.json"):
        data = (FIX / name).read_bytes()
        for _ in range(200):
            cut = bytearray(data[: rng.randrange(len(data))])
            if cut and rng.random() < 0.5:
                cut[rng.randrange(len(cut))] = rng.randrange(256)
            for parse in (parse_range, parse_names):
                try:
                    parse(bytes(cut))
                except ParseError:
                    pass
