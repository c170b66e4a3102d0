"""The probe's reading of the server's load, the spread of its repeated runs, and the log lines
left out as its own (pure parts; the real server is in test_probe_surroundings.py).

The /slots, /metrics and /api/ps texts are the real shapes: llama.cpp's tools/server/README.md
`/slots` example (next_token as an object) and what the xllamacpp build here answers (an
array); `llamacpp:` gauges as that build prints them; vLLM 0.7 /metrics lines from
vllm-project/production-stack#318; Ollama /api/ps from attogram/ollama-bash-lib (all copied in
/work/shared/examples/samples.md §1b, §6, §7); the GIN line from IBM/prompt-declaration-language#702.
"""
import time

from llmdoctor.judge.probe.verdicts import HEALTHY, INCONCLUSIVE, PROBLEM, model_unload, prefill, queueing
from llmdoctor.knowledge.probe.load import ServerLoad, llamacpp_load, ollama_load, vllm_load
from llmdoctor.knowledge.probe.own_requests import OwnRequests, ProbeWindow

from .factories import result, sample

README_SLOTS = [
    {"id": 0, "id_task": 135, "n_ctx": 65536, "speculative": False, "is_processing": True,
     "params": {"n_predict": -1}, "next_token": {"has_next_token": True, "n_remain": -1, "n_decoded": 0}},
    {"id": 1, "id_task": 0, "n_ctx": 65536, "speculative": False, "is_processing": True,
     "params": {}, "next_token": {"has_next_token": True, "n_remain": -1, "n_decoded": 136}},
]
XLLAMACPP_SLOTS = [{"id": 0, "n_ctx": 512, "speculative": False, "is_processing": False},
                   {"id": 1, "n_ctx": 512, "speculative": False, "is_processing": True, "id_task": 14,
                    "next_token": [{"has_next_token": True, "n_remain": 237, "n_decoded": 163}]}]
LLAMA_METRICS = """# HELP llamacpp:requests_processing Number of requests processing
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:requests_deferred Number of requests deferred
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 3
"""
VLLM_METRICS = """# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="Qwen/Qwen2.5-Coder-32B-Instruct"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="Qwen/Qwen2.5-Coder-32B-Instruct"} 0.0
"""
PS = {"models": [{"name": "mistral:7b", "model": "mistral:7b", "size": 8329906176, "size_vram": 7206864896,
                  "expires_at": "2025-08-23T20:03:30.7864595+02:00", "context_length": 16384}]}


def test_llama_server_load_from_slots_and_metrics():
    busy = llamacpp_load(README_SLOTS, LLAMA_METRICS)
    assert busy.running == 2 and busy.waiting == 3 and busy.slots == 2 and busy.busy
    assert busy.slot_ctx == 65536 and busy.max_task == 135
    one = llamacpp_load(XLLAMACPP_SLOTS, None)
    assert (one.running, one.waiting, one.slot_ctx, one.max_task, one.source) == (1, None, 512, 14, "/slots")
    idle = llamacpp_load([{"id": 0, "n_ctx": 512, "is_processing": False}], LLAMA_METRICS.replace(" 1\n", " 0\n")
                         .replace(" 3\n", " 0\n"))
    assert not idle.busy and idle.known and "0 running of 1 slots, 0 waiting" in idle.describe()
    assert not llamacpp_load(None, None).known  # --no-slots and no --metrics: nothing known, never busy


def test_vllm_and_ollama_loads():
    v = vllm_load(VLLM_METRICS)
    assert (v.running, v.waiting, v.busy) == (2, 0, True)
    o = ollama_load(PS)
    assert o.models == ("mistral:7b",) and o.contexts == {"mistral:7b": 16384}
    assert not o.known and not o.busy and "requests in flight not reported" in o.describe()
    assert ServerLoad.from_dict(v.to_dict()) == v and ServerLoad.from_dict(o.to_dict()) == o


def _three_pairs(overlaps_queued):
    """Three runs of a pair: each queued (second starts after the first ends) or parallel."""
    out = [sample("warmup", "warmup", 0.0, n=8)]
    for run, queued in enumerate(overlaps_queued, 1):
        t = run * 3.0
        out.append(sample(f"single.{run}", "single", t, run=run))
        out.append(sample(f"pair-1.{run}", "pair", t + 1, ttft=0.05, run=run))
        out.append(sample(f"pair-2.{run}", "pair", t + 1, ttft=(0.05 + 63 * 0.005 + 0.05) if queued else 0.06,
                          run=run))
    return out


def test_a_verdict_needs_every_run_and_reports_the_spread():
    all_queued = queueing(result(_three_pairs([True, True, True]), slots=1))
    assert all_queued.kind == PROBLEM
    assert all_queued.figures["spread"]["overlap_fraction"] == {"runs": 3, "min": 0.0, "p50": 0.0, "max": 0.0}
    assert any("median of 3 runs" in line for line in all_queued.evidence)
    mixed = queueing(result(_three_pairs([True, False, True]), slots=1))
    assert mixed.kind == INCONCLUSIVE and "2 of 3 pairs queued" in mixed.title
    assert queueing(result(_three_pairs([False, False, False]))).kind == HEALTHY


def test_runs_that_started_on_a_busy_server_are_left_out():
    busy = ServerLoad("/slots, /metrics", running=1, waiting=0, at="pair 1")
    idle = [ServerLoad("/slots, /metrics", running=0, waiting=0, at=f"pair {r}") for r in (2, 3)]
    r = result(_three_pairs([True, False, False]), loads=(busy, *idle))
    v = queueing(r)
    assert v.kind == HEALTHY and v.figures["busy_runs"] == 1  # run 1 queued behind someone else's request
    all_busy = result(_three_pairs([True, True, True]),
                      loads=tuple(ServerLoad("/slots", running=1, at=f"pair {r}") for r in (1, 2, 3)))
    v = queueing(all_busy)
    assert v.kind == INCONCLUSIVE and "busy" in v.title


def test_prefill_runs_on_both_sides_of_the_threshold_are_inconclusive():
    runs = [sample(f"long.{i}", "long", i * 3.0, ttft=t, n=8, prefill=1300.0, run=i)
            for i, t in ((1, 0.5), (2, 2.5), (3, 0.6))]
    v = prefill(result([sample("warmup", "warmup", n=8), *runs]))
    assert v.kind == INCONCLUSIVE and v.figures["spread"]["ttft_s"]["max"] == 2.5


def test_a_slow_first_request_is_never_an_unload_without_the_engines_evidence():
    slow_first = [sample("warmup", "warmup", 0.0, ttft=10.2, n=8), sample("single.1", "single", 11, run=1)]
    assert model_unload(result(slow_first, engine="llamacpp")).kind == INCONCLUSIVE
    busy = result([sample("warmup", "warmup", 0.0, ttft=0.05, n=8), sample("single.1", "single", 1, run=1)],
                  loads=(ServerLoad("/slots", running=1, at="warmup"),))
    assert model_unload(busy).kind == INCONCLUSIVE
    # Ollama: /api/ps before and after is the engine's own evidence
    loaded = result([sample("warmup", "warmup", 0.0, ttft=3.0, n=8, load=None), sample("single.1", "single", 4, run=1)],
                    engine="ollama", loads=(ServerLoad("/api/ps", at="warmup"),
                                            ServerLoad("/api/ps", models=("tiny",), at="after warmup")))
    assert model_unload(loaded).kind == PROBLEM
    resident = result([sample("warmup", "warmup", 0.0, ttft=3.0, n=8, load=0.02)], engine="ollama",
                      loads=(ServerLoad("/api/ps", models=("tiny",), at="warmup"),
                             ServerLoad("/api/ps", models=("tiny",), at="after warmup")))
    assert model_unload(resident).kind == HEALTHY  # waited 3 s, but not for a load


def test_own_requests_by_task_id_marker_and_time():
    now = float(int(time.time()))
    llama = ProbeWindow("http://127.0.0.1:8080", "llamacpp", now - 60, now - 30, (10, 40))
    own = OwnRequests([llama], "llamacpp")
    assert own.own("0.00.127.413 E srv    send_error: task id = 11, error: request (2012 tokens) exceeds the "
                   "available context size (512 tokens), try increasing it")
    assert own.own("0.00.127.458 W srv          stop: cancel task, id_task = 40")
    assert not own.own("0.00.129.125 I slot launch_slot_: id  1 | task 41 | processing task, is_child = 0")
    assert not own.own("0.00.107.106 I srv          init: model loaded")
    assert own.own("INFO: something [llmdoctor probe 123-4] Name the colours")
    gin = time.strftime("[GIN] %Y/%m/%d - %H:%M:%S", time.localtime(now - 45))
    ollama = OwnRequests([ProbeWindow("http://127.0.0.1:11434", "ollama", now - 60, now - 30)], "ollama")
    assert ollama.own(f"{gin} | 200 |  444.455595ms |       127.0.0.1 | POST     \"/api/generate\"")
    before = time.strftime("[GIN] %Y/%m/%d - %H:%M:%S", time.localtime(now - 120))
    assert not ollama.own(f"{before} | 200 |  444.455595ms |       127.0.0.1 | POST     \"/api/generate\"")
    assert not OwnRequests([llama], "ollama")  # another engine's run leaves this log alone
    lines = ["task 5 |", "task 12 |", "task 50 |"]
    kept = list(own.filter(lines))
    assert kept == ["task 5 |", "task 50 |"] and own.left_out == 1
    assert ProbeWindow.from_dict(llama.to_dict()) == llama and ProbeWindow.from_dict({"url": 1}) is None
