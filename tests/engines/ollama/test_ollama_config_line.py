"""The `server config env="map[...]"` start-up line, old prefix and slog, wrapped by the user."""
import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama.config_line import is_complete, join_wrapped, parse_server_config
from llmdoctor.knowledge.ollama.log import scan
from llmdoctor.parsing import ParseError


def test_old_prefix_wrapped_in_the_middle_of_a_word(sample):
    first, second = sample("log_server_config_old_wrapped.log").splitlines()
    assert not is_complete(first)
    values = parse_server_config(join_wrapped(first, second))
    assert values["OLLAMA_NUM_PARALLEL"] == "0"
    assert values["OLLAMA_KEEP_ALIVE"] == "2562047h47m16.854775807s"
    assert values["OLLAMA_HOST"] == "http://0.0.0.0:11434"
    assert values["OLLAMA_ORIGINS"].startswith("[* http://localhost ") and values["OLLAMA_ORIGINS"].endswith("vscode-webview://*]")
    assert values["ROCR_VISIBLE_DEVICES"] == "" and values["no_proxy"] == ""
    assert values["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
    assert "http" not in values  # `http:` inside the brackets is not a key


def test_scanner_joins_the_wrapped_line(sample):
    s = scan(sample("log_server_config_old_wrapped.log").splitlines(), "journal.log")
    assert s.server_config["OLLAMA_MAX_QUEUE"] == "512" and s.server_config_count == 1
    assert s.server_config["ROCR_VISIBLE_DEVICES"] == ""


def test_slog_form_with_journal_prefix_and_spaces_in_a_path():
    line = ('Nov 12 19:58:16 srv ollama[23401]: time=2025-11-12T19:58:16.000Z level=INFO source=routes.go:1511 '
            'msg="server config" env="map[OLLAMA_CONTEXT_LENGTH:8192 OLLAMA_MODELS:/srv/my models/x '
            'OLLAMA_NUM_PARALLEL:4 OLLAMA_ORIGINS:[http://a https://b] OLLAMA_KEEP_ALIVE:5m0s]"')
    s = scan([line], "journal")
    assert s.server_config == {"OLLAMA_CONTEXT_LENGTH": "8192", "OLLAMA_MODELS": "/srv/my models/x",
                               "OLLAMA_NUM_PARALLEL": "4", "OLLAMA_ORIGINS": "[http://a https://b]",
                               "OLLAMA_KEEP_ALIVE": "5m0s"}


def test_cut_off_line_is_reported_not_raised():
    s = scan(['2025/02/18 02:20:54 routes.go:1187: INFO server config env="map[OLLAMA_NUM_PARALLEL:0 OLLAMA_'], "x")
    assert s.server_config is None and "cut off" in s.server_config_errors[0]


@pytest.mark.parametrize("bad", ["", "hello", 'server config env="map[]"'])
def test_garbage(bad):
    with pytest.raises(ParseError):
        parse_server_config(bad)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_hypothesis(body):
    try:
        values = parse_server_config(f'msg="server config" env="map[{body}]"')
        assert isinstance(values, dict)
    except ParseError as e:
        assert str(e)
