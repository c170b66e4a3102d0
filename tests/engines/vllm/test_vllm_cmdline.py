import pytest
from hypothesis import given, strategies as st

from llmdoctor.knowledge.vllm.cmdline import parse_vllm_cmdline


def test_serve_with_every_flag_spelling():
    c = parse_vllm_cmdline("vllm serve Qwen/Qwen3-8B --gpu_memory_utilization=0.8 --max-model-len 32k "
                           "--max-num-seqs 64 --no-enable-prefix-caching -tp 2")
    assert c.get("model") == "Qwen/Qwen3-8B"
    assert c.get("gpu_memory_utilization") == 0.8 and c.max_model_len_tokens == 32000
    assert c.get("max_num_seqs") == 64 and c.get("enable_prefix_caching") is False
    assert c.get("tensor_parallel_size") == 2


def test_proc_cmdline_is_nul_separated():
    raw = b"python3\0-m\0vllm.entrypoints.openai.api_server\0--model\0m\0--max-model-len\0002K\0--port\0008001\0"
    c = parse_vllm_cmdline(raw)
    assert c.get("model") == "m" and c.max_model_len_tokens == 2048 and c.get("port") == 8001


def test_a_number_flag_with_a_word_is_unknown():
    c = parse_vllm_cmdline("vllm serve m --max-num-seqs lots --gpu-memory-utilization high --max-model-len 8k")
    assert c.get("max_num_seqs") is None and c.get("gpu_memory_utilization") is None
    assert "max_num_seqs" in c.settings and c.max_model_len_tokens == 8000


@pytest.mark.parametrize("value", ["inf", "1e400", "-infk", "nan", "auto"])
def test_max_model_len_that_is_no_length(value):
    assert parse_vllm_cmdline(f"vllm serve m --max-model-len {value}").max_model_len_tokens is None


def test_the_fix_for_a_command_line_with_odd_values_does_not_crash():
    from llmdoctor.judge.vllm import kv_room_fix

    fix = kv_room_fix(parse_vllm_cmdline("vllm serve m --max-num-seqs lots --gpu-memory-utilization high"), "x")
    assert "--gpu-memory-utilization 0.95" in fix.commands[0]


@given(st.text(max_size=200))
def test_garbage(text):
    parse_vllm_cmdline(text)
