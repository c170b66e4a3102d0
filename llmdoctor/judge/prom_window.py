"""Words for findings over a Prometheus window (checks/prom_window.py, prom_replicas.py):
when a condition held, and what else the series showed then."""
from __future__ import annotations

from llmdoctor.knowledge.prom_window import ENGINE_SERIES, clock, during, duration
from llmdoctor.model import Fix

ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "llamacpp": "llama-server", "ollama": "Ollama"}

QUEUE_FIX = {
    "vllm": Fix("Requests queued behind a full batch in this stretch: more arrived than the server runs at once. "
                "Cap concurrency at the client or load balancer, add a replica (or --data-parallel-size), and "
                "raise --max-num-seqs only if the KV cache had room then.", ("vllm serve MODEL --data-parallel-size 2",)),
    "sglang": Fix("Requests queued in this stretch: more arrived than the running batch holds. Add a replica "
                  "(--dp-size), or raise --max-running-requests if token usage stayed below 1 then.",
                  ("python -m sglang.launch_server --model-path MODEL --dp-size 2",)),
    "llamacpp": Fix("Requests waited for a free slot in this stretch: every slot of llama-server was busy. Give "
                    "it more slots (--parallel N with --ctx-size N x the context each request needs), or run "
                    "another replica behind the balancer.", ("llama-server -m MODEL --parallel 4 --ctx-size 16384",)),
    "ollama": Fix("Requests waited for a slot in this stretch: raise OLLAMA_NUM_PARALLEL if the GPU has room "
                  "for the KV cache of more slots, or add a replica.", ()),
}

SWAP_FIX = Fix("Make the model and its context fit in RAM: a smaller model or quantisation, fewer parallel slots "
               "or a shorter context (each slot holds its own KV cache), or more RAM. Swap settings such as "
               "vm.swappiness only move the problem.", ("free -h", "vmstat 1 5"))
GPU_FIX = Fix("The card slowed itself: check cooling (fans, airflow, inlet temperature) and the power limit against "
              "its default (`nvidia-smi -q -d POWER,TEMPERATURE,PERFORMANCE`).", ("nvidia-smi -q -d PERFORMANCE",))


def engine_name(kind: str) -> str:
    return ENGINE_NAMES.get(kind, kind)


def origin(t) -> str:
    """The table of series names a target was read under (the exporter's, or the engine's)."""
    return "llmdoctor" if t.key.endswith("(llmdoctor exporter)") else t.kind


def series_name(t, quantity: str) -> str:
    names = ENGINE_SERIES.get(origin(t), {}).get(quantity)
    return names[0][0] if names else quantity


def number(v: float) -> str:
    return f"{v:g}" if float(v).is_integer() else f"{v:.1f}"


def when(t, ep, unit: str = "") -> str:
    """`for 14 min from 10:05:12 to 10:19:40 (peak 37 at 10:12:03)`."""
    span = t.end - t.start
    length = ep.end - ep.start + t.step
    return (f"for {duration(length)} from {clock(ep.start, span)} to {clock(ep.end, span)} "
            f"(peak {number(ep.peak)}{unit} at {clock(ep.peak_at, span)})")


def then(t, ep) -> str:
    """What the other series showed during the episode: `; 4 running; p95 TTFT 8.20 s; KV 97%`."""
    parts = []
    running = during(t.points("running"), ep.start, ep.end)
    if running:
        parts.append(f"{max(running):g} running")
    ttft = during(t.points("ttft"), ep.start, ep.end)
    if ttft:
        parts.append(f"p95 TTFT {max(ttft):.2f} s then")
    itl = during(t.points("itl"), ep.start, ep.end)
    if itl:
        parts.append(f"p95 inter-token {max(itl) * 1000:.0f} ms")
    kv = during(t.points("kv"), ep.start, ep.end)
    if kv:
        parts.append(f"KV cache {max(kv) * 100:.0f}% full")
    return "; ".join(parts)
