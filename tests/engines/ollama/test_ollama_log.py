"""The streaming log scanner on every real Ollama log sample (samples.md §2) and on garbage."""
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.ollama.log import MAX_LOADS, OllamaLogScanner, parse_gin, scan
from llmdoctor.judge.ollama import serial_service


def lines(sample, name):
    return sample(name).splitlines()


def test_inventory_and_gpu_total(sample):
    s = scan(lines(sample, "log_inventory_cuda.log"), "j")
    (start,) = s.startups
    assert start.libraries == ("cuda",) and start.has_gpu
    assert start.gpu_total_bytes == round(3.9 * 2**30)
    cpu = scan(lines(sample, "log_inventory_cpu_only.log"), "j")
    assert cpu.startups[0].libraries == ("cpu",) and not cpu.startups[0].has_gpu


def test_wrapped_estimator(sample):
    s = scan(lines(sample, "log_estimator_wrapped.log"), "j")
    assert s.estimator["layers.model"] == "81" and s.estimator["layers.offload"] == "44"
    assert s.estimator["memory.graph.partial"] == "8.2 GiB"
    assert s.estimator["memory.available"] == "[22.0 GiB 22.0 GiB 22.0 GiB 22.0 GiB]"


def test_v011_runner_cmd(sample):
    s = scan(lines(sample, "log_v011_runner_journal.log"), "journal:ollama.service")
    (load,) = s.loads
    assert (load.ctx_size, load.parallel, load.model) == (2048, 1, "sha256-e8ad13eff07a")
    assert load.started_at.hour == 23 and load.examples[0].source == "journal:ollama.service"
    assert s.estimator["layers.offload"] == "48"


def test_runner_cmd_parallel5(sample):
    line = 'time=2025-08-19T10:00:00.000Z level=INFO source=server.go:438 msg="starting runner" cmd="' + sample("cmd_runner_parallel5.txt").strip() + '"'
    (load,) = scan([line], "j").loads
    assert (load.ctx_size, load.parallel) == (40960, 5)


def test_llm_load_tensors_prefix_and_buffers(sample):
    (load,) = scan(lines(sample, "log_llm_load_tensors_journal.log"), "j").loads
    assert load.offloaded == (37, 49)
    assert load.gpu_buffer_mib == 5766.09 and load.host_buffer_mib == 8566.04
    assert load.model_buffer_mib == pytest.approx(5766.09 + 8566.04)
    (load,) = scan(lines(sample, "log_llm_load_tensors_host.log"), "j").loads
    assert load.offloaded == (31, 33) and load.host_buffer_mib == 809.84 and load.gpu_buffer_mib == 3627.97


def test_go_engine_cpu_only(sample):
    (load,) = scan(lines(sample, "log_go_engine_cpu_only.log"), "j").loads
    assert load.offloaded == (0, 25) and load.parallel == 1 and load.ctx_size == 16000
    assert load.host_weights_bytes == round(12.8 * 2**30) and load.gpu_weights_bytes == 0


def test_go_engine_offloading_lines_do_not_count_as_offloaded(sample):
    assert scan(lines(sample, "log_go_engine_offloading.log"), "j").loads == ()


def test_v030_load_time(sample):
    s = scan(lines(sample, "log_v030_loaded.log"), "j")
    assert s.max_load_seconds == 6.43 and s.load_times.count == 1
    assert s.loads[-1].load_seconds == 6.43


def test_load_time_gin_and_truncation(sample):
    s = scan(lines(sample, "log_load_time_truncation.log"), "j")
    assert s.loads[-1].load_seconds == 0.25
    assert s.truncations.count == 1 and s.truncation_limits == (2048,) and s.truncation_max_prompt == 5065
    assert s.status_counts == {200: 1} and s.requests.requests == 1


def test_truncation_and_an_85_minute_request(sample):
    s = scan(lines(sample, "log_truncation_long_request.log"), "j")
    assert s.truncation_limits == (512,) and s.truncation_max_prompt == 617
    assert s.requests.max_duration_s == 5079.0


def test_debug_history_truncation_is_not_a_prompt_truncation(sample):
    s = scan(lines(sample, "log_debug_history_truncation.log"), "j")
    assert s.truncations.count == 0


def test_503_and_both_spellings(sample):
    s = scan(lines(sample, "log_gin_503.log"), "journal")
    assert s.status_503.count == 2 and s.status_counts == {503: 2}
    s = scan(lines(sample, "client_error_two_spaces.txt") + lines(sample, "client_error_v0133.txt"), "client")
    assert s.max_pending.count == 2


@pytest.mark.parametrize("line, expect", [
    ('[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     "/api/generate"', (503, 0.042044125, "POST", "/api/generate")),
    ('Jun 10 22:46:49 ollama-host ollama[159]: [GIN] 2025/06/10 - 22:46:49 | 200 |      1h24m39s |    10.99.99.105 | POST     "/api/chat"', (200, 5079.0, "POST", "/api/chat")),
    ('janv. 20 23:15:46 jarvis-server ollama[1232]: [GIN] 2026/01/20 - 23:15:46 | 200 |     971.777µs |       127.0.0.1 | HEAD     "/"', (200, 0.000971777, "HEAD", "/")),
    ('[ GIN] 2025/02/27 - 15:22:36 | 200 | 29.526492083s |       127.0.0.1 | POST     "/api/chat"', (200, 29.526492083, "POST", "/api/chat")),
    ('[GIN] 2025/03/06 - 11:42:21 |\x1b[97;41m 503 \x1b[0m|   42.044125ms |       ::1 |\x1b[97;46m POST    \x1b[0m "/api/chat"', (503, 0.042044125, "POST", "/api/chat")),
])
def test_gin_lines(line, expect):
    g = parse_gin(line)
    assert (g.status, g.seconds, g.method, g.path) == pytest.approx(expect)


def test_gpu_init_999(sample):
    s = scan(lines(sample, "log_gpu_init_999.log"), "j")
    assert s.gpu_init_failures.count == 4


def _gin(t, secs, path="/api/chat"):
    h, m, s = t
    return f'[GIN] 2025/03/06 - {h:02d}:{m:02d}:{s:02d} | 200 | {secs} |       127.0.0.1 | POST     "{path}"'


def test_serial_burst_is_found():
    # five requests sent at 11:00:00, one slot, ~10 s each: they finish 10 s apart
    burst = [_gin((11, 0, 10 * k), f"{10 * k - 0.3:.3f}s".replace(".", ".", 1)) for k in range(1, 6)]
    s = scan(burst, "j")
    assert s.requests.peak_in_flight == 5
    r = serial_service(s.requests)
    assert r.bursts == 1 and r.parallel_pairs == 0
    assert "finished one after another" in r.figures and len(r.examples) == 5


def test_parallel_burst_is_not_serial():
    alone = [_gin((10, 0, 10), "9.800s"), _gin((10, 1, 0), "10.100s")]
    burst = [_gin((11, 0, 10), "9.900s"), _gin((11, 0, 10), "9.950s"), _gin((11, 0, 11), "10.400s"), _gin((11, 0, 20), "19.800s")]
    r = scan(alone + burst, "j").requests
    assert r.typical_service_s == pytest.approx(10.1)
    v = serial_service(r)
    assert v.bursts == 0 and v.parallel_pairs >= 1


def test_bounded_memory_on_a_long_log():
    base = [
        'time=2025-08-08T23:02:37.187+01:00 level=INFO source=server.go:438 msg="starting llama server" cmd="/usr/local/bin/ollama runner --model /x/blobs/sha256-e8ad13eff07a78d8 --ctx-size 2048 --parallel 1 --port 39041"',
        "llm_load_tensors: offloaded 37/49 layers to GPU",
        'time=2025-04-22T11:21:47.546Z level=WARN source=runner.go:131 msg="truncating input prompt" limit=2048 prompt=5065 keep=5 new=2048',
        '[GIN] 2025/03/06 - 11:42:21 | 503 |   42.044125ms |       127.0.0.1 | POST     "/api/generate"',
    ]
    scanner = OllamaLogScanner()
    scanner.feed_all(itertools.islice(itertools.cycle(base), 40_000), "big")
    s = scanner.summary()
    assert s.lines == 40_000 and s.load_count == 10_000 and len(s.loads) == MAX_LOADS
    assert s.truncations.count == 10_000 and len(s.truncations.examples) <= 5
    assert s.ctx_sizes_by_model == {"sha256-e8ad13eff07a": {2048: 10_000}}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=20))
def test_hypothesis_garbage(texts):
    s = scan(texts, "garbage")
    assert s.lines == len(texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "[GIN] 2025/03/06 - 11:42:21 | 200 |", "offloaded 3/", "buffer size = ", 'msg="server config" env="map[A:',
    "msg=offload layers.model=", "  memory.x=1", "llama runner started in x seconds", "truncating input prompt limit=",
    'msg="inference compute" library=cuda total="x"', "]\"", "cudaSetDevice err: 999", " --ctx-size 99 ",
]), max_size=30), st.text(max_size=20))
def test_hypothesis_fragments(parts, tail):
    scan([p + tail for p in parts], "fragments")


@pytest.mark.parametrize("line", ["llama runner started in 1.2.3 seconds", "CUDA0 model buffer size = 1..5 MiB",
                                  "CUDA0 model buffer size = " + "9" * 400 + " MiB"])
def test_dotted_figures_that_are_not_numbers_are_ignored(line):
    s = scan([line], "odd")
    assert s.max_load_seconds == 0.0 and s.load_count == 0


@pytest.mark.parametrize("date", ["0001/01/01 - 00:00:00", "9999/12/31 - 23:59:59"])
def test_gin_dates_at_the_ends_of_the_calendar(date):
    line = f'[GIN] {date} | 200 |  5s |  127.0.0.1 | POST "/api/generate"'
    assert scan([line, line], "odd").requests.requests <= 2


def test_v030_llama_server_cmd():
    # flags as llm/llama_server.go startLlamaServer passes them (FACTS.md §6.4)
    line = ('time=2026-08-01T07:02:27.001Z level=INFO source=llama_server.go:412 msg="starting llama-server" '
            'cmd="/usr/lib/ollama/llama-server --model /usr/share/ollama/.ollama/models/blobs/sha256-c6eb396dbd5912 '
            '--port 45271 --host 127.0.0.1 --no-webui --offline -c 32768 -np 4 --log-verbosity 4 --no-log-prefix '
            '--cache-type-k q8_0 --cache-type-v q8_0 --flash-attn auto"')
    (load,) = scan([line, "load_tensors: offloaded 49/49 layers to GPU"], "j").loads
    assert (load.ctx_size, load.parallel, load.model, load.offloaded) == (32768, 4, "sha256-c6eb396dbd59", (49, 49))


def test_generate_final_object(sample):
    import json
    from llmdoctor.facts.ollama_api import response_timings
    from llmdoctor.parsing import ParseError

    t = response_timings(json.loads(sample("generate_final.json")))
    assert t["load"] == pytest.approx(0.023975557) and t["eval"] == pytest.approx(3.209729)
    assert response_timings({"done": True}) == {"total": 0, "load": 0, "prompt_eval": 0, "eval": 0}
    with pytest.raises(ParseError):
        response_timings({"load_duration": "x"})


def test_listening_line_gives_the_version():
    # format string `Listening on %s (version %s)` (FACTS.md §4)
    s = scan(['time=2025-04-22T11:20:01.000Z level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version 0.6.5)"'], "j")
    assert s.version == "0.6.5" and s.version_example.source == "j"


# -- scheduler, inventory and access-log signals (real lines; sources named) ----------------------

def test_scheduler_evictions_loads_and_memory():
    # ollama#13227 (0.13.0, CPU-only), ollama#8903 (Windows, 0.5.x), ollama#7773 (DEBUG)
    s = scan([
        'time=2025-11-24T13:55:06.999Z level=INFO source=sched.go:443 msg="system memory" total="503.6 GiB" free="498.1 GiB" free_swap="8.0 GiB"',
        'time=2025-11-24T13:55:06.999Z level=INFO source=server.go:974 msg="model requires more memory than is currently available, evicting a model to make space" "loaded layers"=0',
        '[GIN] 2025/02/07 - 09:16:24 | 200 |    7.5808349s |    192.168.6.29 | POST     "/api/chat"',
        r'time=2025-02-07T09:17:02.238+08:00 level=INFO source=sched.go:714 msg="new model will fit in available VRAM in single GPU, loading" model=C:\Users\U\.ollama\models\blobs\sha256-6150cb382311b69f09cc0f9a1b69fc029cbd742b66bb8ec531aa5ecf5c613e93 gpu=GPU-4e6d parallel=4',
        r'time=2024-11-20T21:26:53.535-05:00 level=DEBUG source=sched.go:283 msg="resetting model to expire immediately to make room" modelPath=C:\Users\me\.ollama\models\blobs\sha256-d7e4b00a7d7a refCount=0',
        'time=2024-11-20T21:30:00.000-05:00 level=DEBUG source=sched.go:100 msg="timer expired, expiring to unload" modelPath=/x',
    ], "j")
    assert s.evictions.count == 2 and s.expiries.count == 1
    assert s.system_free_bytes == round(498.1 * 2**30)
    (load,) = s.loads
    assert load.model == "sha256-6150cb382311" and 38 <= load.idle_before_s <= 39


def test_runner_inventory_lines():
    # ollama#10798 (a runner without any backend library), #9842 (no GPU runner libraries)
    s = scan(["time=2025-05-21T17:49:23.905+08:00 level=INFO source=ggml.go:104 msg=system CPU.0.LLAMAFILE=1 compiler=cgo(gcc)",
              'time=2025-03-18T11:15:57.784+09:00 level=DEBUG source=server.go:259 msg="compatible gpu libraries" compatible=[]',
              "find: ‘/usr/local/lib/ollama’: No such file or directory"], "j")
    assert s.runner_backends == ("CPU",) and s.gpu_libraries_empty.count == 1 and s.libdir_missing.count == 1
    s = scan(['time=2024-06-01T00:00:00Z level=INFO source=payload.go:44 msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2 cuda_v11 rocm_v60102]"'], "j")
    assert s.runner_libraries == ("cpu", "cpu_avx", "cpu_avx2", "cuda_v11", "rocm_v60102")


def test_same_second_burst_of_fast_500s_and_config_warnings():
    # ollama#4124 (0.1.33: the 10-request queue overflowing as 500s), #6839, #7892
    burst = ['[GIN] 2024/05/03 - 13:51:30 | 500 |     11.5625ms |       127.0.0.1 | POST     "/api/embeddings"'] * 6
    slow = ['[GIN] 2025/01/12 - 01:23:05 | 500 |         30m0s |      10.0.0.123 | POST     "/api/chat"']
    s = scan(burst + slow + [
        '2024/09/17 21:53:18 config.go:45: WARN invalid port, using default port="\\\\Users\\\\123\\\\ollama app.exe" default=11434',
        "/etc/systemd/system/ollama.service:12: Invalid environment assignment, ignoring: “OLLAMA_HOST=0.0.0.0:11434”"], "j")
    assert s.fast_error_burst_size == 6 and len(s.fast_error_burst) == 4
    assert s.invalid_env.count == 1 and s.unit_warnings.count == 1
    assert scan(slow * 3, "j").fast_error_burst_size == 0  # a client timeout is not a burst


def test_old_runner_truncation_is_a_llama_cpp_line():
    s = scan(['INFO [update_slots] input truncated | n_ctx=2048 n_erase=14097 n_keep=4 n_left=2044 n_shift=1022 tid="62632" timestamp=1721797206'], "j")
    assert s.cpp.shift_count == 1 and s.cpp.shifts[0].kind == "truncated"
