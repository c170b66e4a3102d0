"""An answer's own figures (knowledge/ollama/response.py) on real bodies and `--verbose` blocks,
and what judge/ollama.py concludes from them: a prompt cut to the context (the cut sizes held
against the runners' real truncation lines), prompt evaluation as most of the wait, and silence
on healthy answers and garbage."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.judge.ollama import answer_prefill, cut_answers, cut_sizes
from llmdoctor.knowledge.ollama import response
from llmdoctor.knowledge.ollama.log import scan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
X618 = next((FIXTURES / "realcases_extra6").glob("x618*")) / "http_response.txt"

# `ollama run --verbose` as posted (one answer each)
VERBOSE_1806 = """total duration:       5.088275983s
load duration:        1.365523ms
prompt eval count:    11 token(s)
prompt eval duration: 204.563ms
prompt eval rate:     53.77 tokens/s
eval count:           120 token(s)
eval duration:        4.876787s
eval rate:            24.61 tokens/s"""  # https://github.com/ollama/ollama/issues/1806 (comment, 2024-01-06)
VERBOSE_12742 = """total duration:       30.024798033s
load duration:        4.758588663s
prompt eval count:    32768 token(s)
prompt eval duration: 7.779621548s
prompt eval rate:     4212.03 tokens/s
eval count:           1769 token(s)
eval duration:        17.148014223s
eval rate:            103.16 tokens/s"""  # https://github.com/ollama/ollama/pull/12742 ("After")
VERBOSE_LLM_OLLAMA_32 = """total duration:       2m27.989997625s
load duration:        559.665542ms
prompt eval count:    13 token(s)
prompt eval duration: 19.747s
prompt eval rate:     0.66 tokens/s
eval count:           1133 token(s)
eval duration:        2m7.682s
eval rate:            8.87 tokens/s"""  # https://github.com/taketwo/llm-ollama/issues/32


def test_the_pasted_tail_of_a_chat_stream_is_one_answer():
    s = scan(X618.read_text().splitlines(), "http_response.txt")
    assert s.answer_count == 1
    a = s.answers[0]
    assert (a.total_ns, a.load_ns, a.prompt_tokens, a.prompt_ns, a.eval_tokens, a.eval_ns, a.done_reason) == (
        9987503333, 28999667, 1026, 1896469000, 238, 8059779000, "stop")
    assert round(a.prompt_rate) == 541 and a.source == "http_response.txt"


def test_a_pretty_printed_body_and_a_stream_read_alike():
    pretty = scan((FIXTURES / "ollama" / "generate_final.json").read_text().splitlines()).answers
    stream = scan((FIXTURES / "probe" / "ollama_generate_stream.ndjson").read_text().splitlines()).answers
    assert len(pretty) == len(stream) == 1
    assert pretty[0].prompt_tokens == stream[0].prompt_tokens == 18
    assert pretty[0].total_ns == stream[0].total_ns == 3305842756
    assert '"prompt_eval_count": 18' in pretty[0].line  # the evidence shown is the count's own line


def test_answers_one_after_another_are_each_their_own():
    text = (FIXTURES / "evidence" / "ollama-answer-prefill" / "answer.txt").read_text()
    answers = scan(text.splitlines()).answers
    assert [a.prompt_tokens for a in answers] == [12, 12, 797, 12, 12]


@pytest.mark.parametrize("text,total_ns,prompt_ns", [
    (VERBOSE_1806, 5088275983, 204563000), (VERBOSE_12742, 30024798033, 7779621548),
    (VERBOSE_LLM_OLLAMA_32, 147989997625, 19747000000),
    # bold in a markdown paste (ollama/ollama#10746 posted its rates so)
    (VERBOSE_1806.replace("5.088275983s", "**5.088275983s**"), 5088275983, 204563000),
])
def test_the_verbose_summary_is_one_answer(text, total_ns, prompt_ns):
    answers = response.read(text.splitlines())
    assert len(answers) == 1
    assert (answers[0].total_ns, answers[0].prompt_ns) == (total_ns, prompt_ns)


@pytest.mark.parametrize("text", [VERBOSE_1806, VERBOSE_12742, VERBOSE_LLM_OLLAMA_32,
                                  (FIXTURES / "ollama" / "generate_final.json").read_text()])
def test_healthy_answers_are_not_prefill(text):
    # 4%, 31% (a 32k prompt at 4,212 tokens/s) and 13% (a slow CPU, but generation is the wait) of the time
    assert answer_prefill(response.read(text.splitlines())) is None


def test_prompt_evaluation_as_most_of_the_wait():
    text = (FIXTURES / "evidence" / "ollama-answer-prefill" / "answer.txt").read_text()
    w = answer_prefill(response.read(text.splitlines()))
    assert w is not None and w.answers == 5 and w.tokens == 845
    assert 0.7 < w.share < 0.75 and w.worst.prompt_tokens == 797 and 300 < w.rate < 350


@pytest.mark.parametrize("line", [
    # the Go runners: `new` is the context (num_ctx) exactly
    'level=WARN source=runner.go:128 msg="truncating input prompt" limit=512 prompt=617 keep=4 new=512',
    'level=WARN source=runner.go:130 msg="truncating input prompt" limit=2048 prompt=91541 keep=5 new=2048',
])
def test_the_cut_sizes_hold_against_the_runners_own_lines(line):
    # tests/fixtures/ollama/log_truncation_long_request.log and ollama/ollama#9452
    limit, new = (int(x) for x in re.search(r"limit=(\d+).*new=(\d+)", line).groups())
    assert new in cut_sizes(limit)


def test_half_the_default_context_is_the_old_runners_cut():
    # x618 (ollama/ollama#6026, Ollama 0.3.x) and ollama/ollama-python#271 both report 1026 for long prompts
    assert {1026, 2048} <= set(cut_sizes(2048))
    cut = cut_answers(response.read(X618.read_text().splitlines()), ())
    assert len(cut) == 1 and cut[0].n_ctx == 2048 and not cut[0].known
    # a context known from the evidence is the only one tried
    assert cut_answers(response.read(X618.read_text().splitlines()), (8192,)) == ()


def test_a_short_prompt_is_not_cut():
    answers = response.read((FIXTURES / "ollama" / "generate_final.json").read_text().splitlines())
    assert cut_answers(answers, ()) == ()
    assert cut_answers(response.read(VERBOSE_1806.splitlines()), ()) == ()


@pytest.mark.parametrize("text", [
    "eval count: 3",  # a figure alone is no answer
    '{"prompt_eval_count": "many", "total_duration": -1}',
    '{"total_duration": 123456789012345678901234567890, "prompt_eval_count": 5}',
    "prompt eval duration: forever\ntotal duration: 1.2.3s",
    '{"eval_count": 5, "eval_duration": 100}',  # no total, no prompt: not a final chunk
    '{"total_duration": "1s", "prompt_eval_count": "5", "prompt_eval_duration": 7}',  # strings where numbers go
])
def test_garbage_is_no_answer(text):
    assert response.read(text.splitlines()) == ()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('"_:{},0123456789 .smµtotal_durationprompt_eval_count\n')), max_size=300))
def test_any_text_reads_without_error(text):
    for a in response.read(text.splitlines()):
        assert a.total_ns and a.total_ns > 0


def test_an_answer_kept_as_json_is_read_and_names_ollama(tmp_path):
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.hosts.evidence import EvidenceHost

    (tmp_path / "http_response.json").write_text((FIXTURES / "ollama" / "generate_final.json").read_text())
    (tmp_path / "api_ps.json").write_text('{"models": []}')  # a file with its own reader stays its reader's
    host = EvidenceHost(tmp_path)
    assert host.kept("answers") == ("http_response.json",)
    store = FactStore(Context(host=host, sample_seconds=0))
    assert [e.kind for e in store.get("engines")] == ["ollama"]
    assert [a.prompt_tokens for a in store.get("ollama_log").answers] == [18]
