"""llama.cpp's own lines, read the same in llama-server's log and in Ollama's (real lines:
llama.cpp#17761, #12614, #8498, #23652; Kai#349; SillyTavern#1589; ollama#5902, #8393)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.llamacpp.lines import LlamaCppLines, fields


def facts(text: str):
    s = LlamaCppLines()
    for line in text.splitlines():
        s.feed(line)
    return s.result()


def test_a_gpu_backend_that_found_no_device():
    f = facts("load_backend: loaded RPC backend from /app/libggml-rpc.so\nggml_vulkan: No devices found.\n"
              "load_backend: loaded Vulkan backend from /app/libggml-vulkan.so\n"
              "load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so\n")
    assert f.backends == ("RPC", "Vulkan", "CPU") and f.gpu_backend == "Vulkan" and f.no_device


def test_offload_and_buffers():
    f = facts("llm_load_tensors: offloaded 31/33 layers to GPU\nllm_load_tensors: CUDA_Host model buffer size = 809.84 MiB\n"
              "llm_load_tensors: CUDA0 model buffer size = 3627.97 MiB\n")
    assert f.offloaded == (31, 33) and f.host_buffer_mib == 809.84 and f.gpu_buffer_mib == 3627.97
    f = facts("make_cpu_buft_list: disabling extra buffer types (i.e. repacking) since a GPU device is available\n"
              "load_tensors: offloaded 0/29 layers to GPU\n")
    assert f.offloaded == (0, 29) and f.devices_found


def test_shifts_truncations_and_refusals():
    f = facts("slot context shift | .... n_keep = 1 n_left = 3998 n_discard = 1999 n_ctx=4000 n_past=3999\n")
    assert f.shift_count == 1 and (f.shifts[0].n_ctx, f.shifts[0].dropped) == (4000, 1999)
    f = facts('INFO [update_slots] input truncated | n_ctx=2048 n_erase=14097 n_keep=4 n_left=2044\n')
    assert f.shifts[0].kind == "truncated" and f.shifts[0].dropped == 14097
    f = facts('{"function":"update_slots","level":"INFO","msg":"input truncated","n_ctx":2048,"n_erase":100}\n')
    assert f.shifts[0].n_ctx == 2048
    f = facts("slot update_slots: id  0 | task 2017 | new prompt, n_ctx_slot = 2048, n_keep = 0, n_prompt_tokens = 2059\n"
              "srv    send_error: task id = 2017, error: the request exceeds the available context size. try increasing "
              "the context size or enable context shift\n")
    assert f.exceeded_count == 1 and f.exceeded_max == (2059, 2048) and f.shift_count == 0  # one request
    f = facts("srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size\n")
    assert f.kv_full_count == 1


def test_prompt_cache_misses():
    f = facts("40.48.338.643 W slot update_slots: id  0 | task 9156 | n_past = 3737, slot.prompt.tokens.size() = 38925, "
              "seq_id = 0, pos_min = 38924, n_swa = 0\n")
    assert (f.worst_miss.cached, f.worst_miss.matched) == (38925, 3737)
    f = facts("slot 0 released (158 tokens in cache)\nslot 0 is processing [task id: 2]\nslot 0 : kv cache rm - [0, end)\n")
    assert (f.worst_miss.cached, f.worst_miss.matched) == (158, 0)
    assert facts("slot 0 : kv cache rm - [0, end)\n").cache_miss_count == 0  # a fresh slot: nothing was cached


def test_erased_checkpoints_are_one_miss_per_request():
    # llama.cpp#22746: one line per checkpoint dropped; the furthest says what was cached
    line = ("4.02.{} W slot update_slots: id  2 | task 1268 | erased invalidated context checkpoint (pos_min = {}, "
            "pos_max = {}, n_tokens = {}, n_swa = 0, pos_next = 10668, size = 149.626 MiB)\n")
    f = facts("".join(line.format(i, n - 1, n - 1, n) for i, n in enumerate((10987, 12662, 11319))))
    assert f.cache_miss_count == 1 and (f.worst_miss.cached, f.worst_miss.matched) == (12662, 10668)
    # the wording of builds without pos_next gives no figure, and is not counted
    assert facts("slot update_slots: erased invalidated context checkpoint (n_tokens = 16052, size = 75.376 MiB)\n"
                 ).cache_miss_count == 0


def test_fields():
    assert fields("n_keep = 1 n_left = 3998 n_ctx=4000") == {"n_keep": 1, "n_left": 3998, "n_ctx": 4000}
    assert fields('{"n_ctx": 2048, "x": true}') == {"n_ctx": 2048}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_garbage_never_raises(text):
    s = LlamaCppLines()
    for line in (text, "slot context shift " + text, "kv cache rm [" + text, "offloaded " + text + " layers to GPU",
                 "input truncated | " + text, "new prompt, n_ctx_slot = 1, n_prompt_tokens = " + text):
        s.feed(line)
    s.result()
