"""ollama_env: defaults per version, Go durations, and what Ollama does with bad values (FACTS.md §1)."""
import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama import env as e
@pytest.mark.parametrize("version, expected", [
    ("0.1.33", "1"), ("0.2.0", "0"), ("0.5.7", "0"), ("0.9.6", "0"), ("0.10.0", "1"), ("v0.33.0-rc2", "1"), (None, "1"),
])
def test_num_parallel_default_history(version, expected):
    assert e.default("OLLAMA_NUM_PARALLEL", version) == expected


@pytest.mark.parametrize("version, auto", [("0.2.0", 4), ("0.6.6", 4), ("0.6.7", 2), ("0.9.6", 2), ("0.10.0", None), ("0.1.30", None)])
def test_auto_parallel(version, auto):
    assert e.auto_parallel(version) == auto


@pytest.mark.parametrize("version, expected", [("0.5.13", "2048"), ("0.6.6", "2048"), ("0.6.7", "4096"), ("0.15.4", "4096"), ("0.15.5", "0")])
def test_context_length_history(version, expected):
    assert e.default("OLLAMA_CONTEXT_LENGTH", version) == expected


def test_context_length_absent_before_0_5_13():
    assert e.exists("OLLAMA_CONTEXT_LENGTH", "0.5.12") is False
    assert e.exists("OLLAMA_CONTEXT_LENGTH", "0.5.13") is True
    assert e.exists("OLLAMA_NEW_ENGINE", "0.30.0") is False
    assert e.exists("OLLAMA_NUM_PARALLEL", None) is None


@pytest.mark.parametrize("gib, ctx", [(3.9, 4096), (22.9, 4096), (23, 32768), (24, 32768), (47, 262144), (80, 262144)])
def test_vram_tiers(gib, ctx):
    assert e.context_tier(int(gib * 2**30)) == ctx


def test_other_defaults():
    assert e.default("OLLAMA_FLASH_ATTENTION", "0.12.3") == "false"
    assert e.default("OLLAMA_FLASH_ATTENTION", "0.12.4") == "auto"
    assert e.default("OLLAMA_MAX_QUEUE", "0.1.33") == "10"
    assert e.default("OLLAMA_MAX_QUEUE", "0.5.13") == "512"
    assert e.default("OLLAMA_KEEP_ALIVE", "0.5.13") == "5m"
    assert e.default("OLLAMA_HOST", None) == "http://127.0.0.1:11434"


@pytest.mark.parametrize("text, ns", [
    ("1h24m39s", 5079 * 10**9), ("42.044125ms", 42044125), ("444.455595ms", 444455595), ("971.777µs", 971777),
    ("16.52µs", 16520), ("5m0s", 300 * 10**9), ("-1m", -60 * 10**9), ("0", 0), (e.FOREVER_TEXT, e.FOREVER_NS),
])
def test_go_durations(text, ns):
    assert e.parse_go_duration(text) == ns


@pytest.mark.parametrize("bad", ["", "5", "1 day", "m", "1.2.3s", "--1s", "1h 2m"])
def test_go_duration_errors(bad):
    with pytest.raises(ValueError):
        e.parse_go_duration(bad)


@pytest.mark.parametrize("value, seconds", [
    ("10m", 600), ("24h", 86400), ("3600", 3600), ("-1", float("inf")), ("-1m", float("inf")),
    (e.FOREVER_TEXT, float("inf")), ("0", 0), ('"30m"', 1800), ("nonsense", None), ("", None),
])
def test_keep_alive(value, seconds):
    assert e.keep_alive_seconds(value) == seconds


@pytest.mark.parametrize("value, hostport", [
    ("http://0.0.0.0", ("0.0.0.0", 80)), ("https://ollama.com", ("ollama.com", 443)), ("0.0.0.0", ("0.0.0.0", 11434)),
    (":1234", ("0.0.0.0", 1234)), ("0.0.0.0:11434", ("0.0.0.0", 11434)), ('"0.0.0.0"', ("0.0.0.0", 11434)),
    ("http://0.0.0.0:11434", ("0.0.0.0", 11434)),
])
def test_host(value, hostport):
    assert e.host_port(value) == hostport


def test_parse_problems():
    assert "uses the default '1'" in e.parse_problem("OLLAMA_NUM_PARALLEL", "four", "0.12.0")
    assert "default '0'" in e.parse_problem("OLLAMA_NUM_PARALLEL", "-1", "0.5.7")
    off = e.parse_problem("OLLAMA_FLASH_ATTENTION", "off")
    assert "true" in off and "opposite" in off
    assert "true" in e.parse_problem("OLLAMA_SCHED_SPREAD", "yes")
    assert "port 80" in e.parse_problem("OLLAMA_HOST", "http://0.0.0.0")
    assert "silently keeps the default 5m" in e.parse_problem("OLLAMA_KEEP_ALIVE", "1 day")
    assert "f16" in e.parse_problem("OLLAMA_KV_CACHE_TYPE", "q5_1", "0.12.0")
    assert e.parse_problem("OLLAMA_KV_CACHE_TYPE", "q5_1", "0.30.0") is None
    assert "removed" in e.parse_problem("OLLAMA_NEW_ENGINE", "1", "0.30.1")
    for fine in [("OLLAMA_NUM_PARALLEL", '"4"'), ("OLLAMA_NUM_PARALLEL", " 4 "), ("OLLAMA_FLASH_ATTENTION", "1"),
                 ("OLLAMA_FLASH_ATTENTION", "False"), ("OLLAMA_KEEP_ALIVE", "3600"), ("OLLAMA_HOST", "0.0.0.0:11434"),
                 ("OLLAMA_HOST", "http://0.0.0.0:11434"), ("OLLAMA_MODELS", "/srv/x y"), ("NOT_OLLAMA", "x")]:
        assert e.parse_problem(*fine) is None, fine


def test_effective_parallel():
    assert e.effective_parallel(None, "0.12.0") == (1, "default of Ollama 0.12.0")
    n, how = e.effective_parallel(None, "0.5.7")
    assert n is None and "auto: 4" in how
    assert e.effective_parallel("4", "0.5.7") == (4, "set")
    assert e.effective_parallel("0", "0.12.0")[0] == 1  # 0 after v0.10.0 means the default 1
    assert e.effective_parallel("x", "0.12.0")[0] == 1  # unparseable -> default


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(e.VARIABLES)), st.text(max_size=40), st.one_of(st.none(), st.text(max_size=12)))
def test_garbage_never_raises(name, value, version):
    problem = e.parse_problem(name, value, version)
    assert problem is None or isinstance(problem, str)
    e.default(name, version)
    e.keep_alive_seconds(value)
    e.read_bool(value)
    e.host_port(value)
    try:
        e.parse_go_duration(value)
    except ValueError:
        pass
