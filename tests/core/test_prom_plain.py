"""knowledge.prom_plain gives exactly prometheus_client's samples on every real /metrics
sample we hold, and declines (None) whatever it cannot vouch for."""
from __future__ import annotations

from pathlib import Path

import pytest

from llmdoctor.knowledge import prom
from llmdoctor.knowledge.prom_plain import parse_plain

ROOT = Path(__file__).resolve().parents[2]
SCRAPES = sorted(ROOT.glob("tests/fixtures/**/*.prom"))


def reference(text: str):
    return [(s.name, s.labels, s.value) for s in prom._families_to_samples(text if text.endswith("\n") else text + "\n")]


def same(a, b) -> bool:
    return len(a) == len(b) and all(x[:2] == y[:2] and (x[2] == y[2] or (x[2] != x[2] and y[2] != y[2]))
                                    for x, y in zip(a, b))


def test_there_are_real_scrapes():
    assert len(SCRAPES) >= 10


@pytest.mark.parametrize("path", SCRAPES, ids=[p.name for p in SCRAPES])
def test_real_scrapes_parse_as_prometheus_client_parses_them(path):
    text = path.read_text(errors="replace")
    mine = parse_plain(text)
    try:
        theirs = reference(text)
    except Exception:
        assert mine is None
        return
    if mine is not None:
        assert same(mine, theirs)


def test_most_real_scrapes_are_plain():
    plain = [p for p in SCRAPES if parse_plain(p.read_text(errors="replace")) is not None]
    assert len(plain) >= len(SCRAPES) * 2 // 3


CASES = [
    "# TYPE foo counter\nfoo 1\n",  # a counter's sample gets _total, as prometheus_client names it
    "# HELP foo_total x\n# TYPE foo_total counter\nfoo_total 3\n",
    "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 4.5\nh_count 3\nother 1\n",
    "# TYPE foo counter\nbar 1\nfoo 2\n",  # a stray sample is its own family
    "foo{a=\"1\",b=\"x,y}z\",} 1 1700000000000\nfoo NaN\nfoo +Inf\nfoo -1e3\n",
    "# TYPE foo gauge\n# HELP foo help with \"quotes\nfoo 1\n# some comment\n#\n",
    "# HELP a x\na 1\n# TYPE a counter\n",
]


@pytest.mark.parametrize("text", CASES)
def test_plain_corner_cases(text):
    assert same(parse_plain(text), reference(text))


@pytest.mark.parametrize("text", [
    'foo{a="b\\"c"} 1\n', 'foo {a="b"} 1\n', 'foo  1\n', 'foo{a="1",a="2"} 1\n', '# TYPE foo\nfoo 1\n',
    'foo 1_000\n', '# TYPE "foo" counter\n', 'foo{a="b"c="d"} 1\n', '<html>\n', 'foo 0x10\n',
])
def test_what_is_not_plain_goes_to_prometheus_client(text):
    assert parse_plain(text) is None


def test_parse_exposition_is_unchanged_for_text_that_is_not_plain():
    text = "# TYPE vllm:num_preemptions_total coun\nvllm:num_preemptions_total 7\n<html>\n"
    e = prom.parse_exposition(text)
    assert [(s.name, s.value) for s in e.samples] == [("vllm:num_preemptions_total", 7.0)] and e.skipped_lines == 1


def test_a_real_vllm_scrape_needs_no_prometheus_client():
    text = (ROOT / "tests/fixtures/vllm/metrics_v1_0.32_cpu_during.prom").read_text()
    mine = parse_plain(text)
    assert mine is not None and len(mine) > 100
    assert same(mine, reference(text))
