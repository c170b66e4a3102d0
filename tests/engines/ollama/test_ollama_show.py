"""A model's own parameters as Ollama prints them (`/show parameters`, `ollama show`, /api/show's
"parameters"), on real pastes and on garbage, and the check that reads them
(ollama-modelfile-context) on the branches its evidence pair does not reach."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama.ps import parse_ps_text
from llmdoctor.facts.ollama import effective_config
from llmdoctor.knowledge.engines import OLLAMA
from llmdoctor.knowledge.ollama.show import model_parameters, parse_parameters, same_model

# ollama/ollama#10829, as posted: two interactive sessions, `/show parameters` in each
SESSIONS = """# docker exec -it watchtower-ollama-1 ollama run mistral-small:latest 
>>> /show parameters
Model defined parameters:
temperature                    0.15
>>> 

# docker exec -it watchtower-ollama-1 ollama run mistral-small3.1:latest 
>>> /show parameters
Model defined parameters:
num_ctx                        4096
"""
# ollama/ollama#11711, as posted: `ollama show test` (trailing spaces kept)
SHOW = """# ollama show test
  Model
    architecture        gptoss    
    parameters          20.9B     
    context length      131072    

  Capabilities
    completion    

  Parameters
    num_ctx        4096    
    temperature    1       
"""
PS_11711 = ("NAME           ID              SIZE     PROCESSOR         CONTEXT    UNTIL               \n"
            "test:latest    5a691afb5095    18 GB    9%/91% CPU/GPU    8192       29 minutes from now    \n")


def test_show_parameters_sessions():
    first, second = parse_parameters(SESSIONS, "show_parameters.txt")
    assert (first.model, first.values, first.num_ctx()) == ("mistral-small:latest", {"temperature": "0.15"}, None)
    assert (second.model, second.num_ctx(), second.lines["num_ctx"]) == (
        "mistral-small3.1:latest", 4096, "num_ctx                        4096")
    assert second.source == "show_parameters.txt"


def test_ollama_show_parameters_section():
    (p,) = parse_parameters(SHOW)
    assert (p.model, p.architecture, p.num_ctx(), p.values["temperature"]) == ("test", "gptoss", 4096, "1")
    assert "context" not in p.values and "completion" not in p.values  # other sections are not parameters


def test_a_sessions_own_values_are_kept_apart():
    # cmd/interactive.go: `/set parameter` values first, under their own title
    text = ("User defined parameters:\nnum_ctx                        8192\n\n"
            "Model defined parameters:\nnum_ctx                        2048\nstop                           \"<|im_end|>\"\n")
    (p,) = parse_parameters(text)
    assert p.session == {"num_ctx": "8192"} and p.num_ctx() == 2048 and p.values["stop"] == '"<|im_end|>"'


def test_api_show_parameters_string():
    show = {"parameters": "num_ctx                        16384\nstop                           \"</s>\"",
            "model_info": {"general.architecture": "llama"}, "_model": "m:1", "_source": "api_show.json"}
    (p,) = model_parameters(show)
    assert (p.model, p.num_ctx(), p.architecture, p.source) == ("m:1", 16384, "llama", "api_show.json")
    assert model_parameters({"model_info": {}}) == () and model_parameters(None) == ()


def test_names_of_one_model():
    assert same_model("test", "test:latest") and same_model("hf.co/a/b:Q4", "hf.co/a/b:q4")
    assert not same_model("test", "test:8b") and not same_model("", "")


@pytest.mark.parametrize("text", ["", "Parameters", "  Parameters\n", "Model defined parameters:\n!!! ???",
                                  "ollama run", "\x00\xff\ufffd", "num_ctx 4096", "Model defined parameters:\nnum_ctx"])
def test_garbage(text):
    assert all(p.values for p in parse_parameters(text))
    assert parse_parameters(text) == () or text.startswith("Model defined")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_never_raises(text):
    parse_parameters(text)
    parse_parameters("Model defined parameters:\n" + text)


# -- the check ------------------------------------------------------------------------------

def config(version, **env):
    unit = SimpleNamespace(unit="ollama.service", engine=OLLAMA, file_env={}, file_env_origin={},
                           loaded_env=None, process_env=dict(env))
    return effective_config(version, None, unit)


def _show(text, name="show.txt"):
    return {"_model": "", "_source": name, "_printouts": parse_parameters(text, name)}


def test_env_set_and_overridden(fire):
    (f,) = fire("ollama-modelfile-context", ollama_show=_show(SESSIONS),
                ollama_config=config("0.7.0", OLLAMA_CONTEXT_LENGTH="16384"))
    assert f.cause.name == "CONFIG_NOT_APPLIED" and "OLLAMA_CONTEXT_LENGTH=16,384 does not apply" in f.title
    assert f.evidence[0].text == "num_ctx                        4096"


def test_silent_where_the_modelfile_agrees_or_the_server_sets_nothing(fire):
    assert fire("ollama-modelfile-context", ollama_show=_show(SESSIONS),
                ollama_config=config("0.7.0", OLLAMA_CONTEXT_LENGTH="4096")) == ()
    assert fire("ollama-modelfile-context", ollama_show=_show(SESSIONS),
                ollama_config=config("0.7.0", OLLAMA_NUM_PARALLEL="2")) == ()  # environment seen, no context set


def test_loaded_with_another_context(fire):
    (f,) = fire("ollama-modelfile-context", ollama_show=_show(SHOW), ollama_ps=parse_ps_text(PS_11711))
    assert "runs with 8,192 tokens of context although its Modelfile sets num_ctx 4,096" in f.title
    assert "gpt-oss" in f.fix.summary and len(f.evidence) == 2
    other = parse_ps_text(PS_11711.replace("test:latest ", "other:latest"))
    (f,) = fire("ollama-modelfile-context", ollama_show=_show(SHOW), ollama_ps=other)
    assert "ignores OLLAMA_CONTEXT_LENGTH" in f.title  # another model's context says nothing of this one


def test_loaded_below_the_modelfile(fire):
    ps = parse_ps_text(PS_11711.replace("8192   ", "2048   "))
    (f,) = fire("ollama-modelfile-context", ollama_show=_show(SHOW), ollama_ps=ps)
    assert "2,048 tokens" in f.title and "trained" in f.fix.summary and "gpt-oss" not in f.fix.summary
