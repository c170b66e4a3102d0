"""The exposition reader that skips prometheus_client (start-up time) must agree with it.

engines/prom.py reads plain /metrics text itself and hands anything else to
prometheus_client; whenever it answers, the samples must be exactly the ones
prometheus_client's parser gives (names, counter "_total" naming, labels, values, order).
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmdoctor.engines import prom

FIXTURES = sorted((Path(__file__).resolve().parents[1]).rglob("*.prom"))


def reference(text: str):
    try:
        return prom._prometheus_client_samples(text)
    except Exception as e:  # prometheus_client rejects the text: the fast path must not accept it
        return type(e)


def same(a, b) -> bool:
    if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x.name, x.labels) != (y.name, y.labels):
            return False
        if not (x.value == y.value or (math.isnan(x.value) and math.isnan(y.value))):
            return False
        if math.copysign(1, x.value) != math.copysign(1, y.value):
            return False
    return True


def check(text: str) -> bool:
    """Agree with prometheus_client when answering; True when the fast path answered."""
    fast = prom._fast_samples(text)
    if fast is not None:
        assert same(fast, reference(text)), text
    return fast is not None


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_recorded_scrapes(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    check(text if text.endswith("\n") else text + "\n")


def test_real_scrapes_take_the_fast_path():
    root = Path(__file__).resolve().parents[1] / "fixtures" / "evidence"
    for name in ("llamacpp-prefill", "vllm-healthy"):
        assert check((root / name / "metrics.prom").read_text())


CASES = [
    "", "\n", "# just a comment\n", "#\n", "# HELP\n", "# TYPE x\n", "# TYPE x counter extra\n",
    "# TYPE x counter\nx 1\n", "# TYPE x counter\nx_total 1\n", "# TYPE x_total counter\nx_total 1\n",
    "# TYPE _total counter\n_total 1\n", "# TYPE x gauge\nx 1\ny 2\nx 3\n", "# HELP x h\n# TYPE x counter\nx 5\n",
    "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 4.5\nh_count 3\nh 9\n",
    "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 3\n",
    "x{a=\"1\",a=\"2\"} 1\n", "x{__name__=\"y\"} 1\n", "x{} 1\n", "x{a=\"1\",} 1\n", "x{a=\"b c\"} 1\n",
    "x -0\n", "x +5\n", "x 1e3\n", "x 00012\n", "x NaN\n", "x +Inf\n", "x -Inf\n", "x 1_000\n", "x 1 1700000000000\n",
    "x 1 2 3\n", "x\t1\n", "x  1\n", "x{a=\"\\\"\"} 1\n", "x{a=\"1\"} 1 # {t=\"x\"} 1\n", "x:y_z 1\n", "9x 1\n",
    "# TYPE x counter\n# HELP x h\nx 1\n", "# HELP x a\n# HELP y b\ny 1\nx 2\n", "x 1\r\n", "  x 1  \n", "x 1\x1c\n",
    "#foo HELP x\n", "# HELP x \"quoted\n", "# TYPE x unknown\nx 1\n", "# TYPE x info\nx 1\n", "<html>\n", "x{a=\"1\"}\n",
]


@pytest.mark.parametrize("text", CASES)
def test_edge_cases(text):
    check(text)


NAMES = st.sampled_from(["x", "x_total", "x_bucket", "x_sum", "x_count", "vllm:num_requests_running", "_total", "y"])
LABELS = st.lists(st.tuples(st.sampled_from(["a", "le", "model_name", "__x", "quantile"]),
                            st.sampled_from(["1", "+Inf", "b c", "", "m,n", "0.5"])), max_size=3)
VALUES = st.sampled_from(["1", "-0", "0.5", "1e3", "NaN", "+Inf", "-Inf", "007", "1_0", "x"])


@st.composite
def expositions(draw):
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["sample", "sample", "type", "help", "comment", "blank"]))
        name = draw(NAMES)
        if kind == "type":
            lines.append(f"# TYPE {name} {draw(st.sampled_from(['counter', 'gauge', 'histogram', 'summary', 'untyped', 'bogus']))}")
        elif kind == "help":
            lines.append(f"# HELP {name} some help")
        elif kind == "comment":
            lines.append(draw(st.sampled_from(["# note", "#", "# HELP", "# TYPE x"])))
        elif kind == "blank":
            lines.append("")
        else:
            labels = draw(LABELS)
            body = ("{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}") if labels or draw(st.booleans()) else ""
            stamp = " 1700000000000" if draw(st.booleans()) else ""
            lines.append(f"{name}{body} {draw(VALUES)}{stamp}")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expositions())
def test_generated_expositions(text):
    check(text)
