"""From the other collectors' facts to the proposal's HostFacts: with their real types."""
from __future__ import annotations

from pathlib import Path

from llmdoctor.knowledge.ollama.log import OllamaLogScanner
from llmdoctor.knowledge.ollama.ps import parse_api_ps
from llmdoctor.facts import Context, FactStore
from llmdoctor.facts.ollama import effective_config
from llmdoctor.hosts.local import LocalHost
from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact
from llmdoctor.app.tune import dropin
from llmdoctor.app.tune import hostfacts
from .conftest import load_json

# samples.md §2a (server config, v0.5.x) and §2h (truncation), verbatim lines.
CONFIG = ('2025/02/18 02:20:54 routes.go:1187: INFO server config env="map[OLLAMA_CONTEXT_LENGTH:2048 '
          'OLLAMA_KEEP_ALIVE:5m0s OLLAMA_MAX_QUEUE:512 OLLAMA_NUM_PARALLEL:0 OLLAMA_KV_CACHE_TYPE: ]"')
TRUNC = ('time=2025-04-22T11:21:47.546Z level=WARN source=runner.go:131 msg="truncating input prompt" '
         'limit=2048 prompt=5065 keep=5 new=2048')
PS = {"models": [{"name": "mistral:7b", "model": "mistral:7b", "size": 8329906176, "size_vram": 7206864896,
                  "context_length": 16384, "expires_at": "2025-08-23T20:03:30.7864595+02:00", "details": {}}]}


def store_with(**facts) -> FactStore:
    return FactStore(Context(LocalHost()), preset=facts)


def test_gpu_total_from_the_gpu_fact():
    fact = GpuFact("NVML", (GpuDevice(0, "A", total_bytes=24 * 2**30), GpuDevice(1, "B", total_bytes=16 * 2**30)))
    assert hostfacts.gpu_total(fact) == 40 * 2**30
    assert hostfacts.gpu_total(GpuFact("NVML")) is None
    assert hostfacts.gpu_total(None) is None


def test_collect_maps_config_ps_show_log_and_gpu(tmp_path: Path):
    log = OllamaLogScanner().feed_all([CONFIG, TRUNC], "journal:ollama.service").summary()
    config = effective_config("0.5.7", log, None)
    show = {**load_json("api_show_llama3.json"), "_model": "mistral:7b"}
    gpu = GpuFact("NVML", (GpuDevice(0, "RTX", total_bytes=24 * 2**30),))
    store = store_with(ollama_version="0.5.7", ollama_config=config, ollama_ps=parse_api_ps(PS),
                       ollama_show=show, ollama_log=log, gpu=gpu)
    facts, gaps = hostfacts.collect(store, tmp_path, "ollama.service")
    assert facts.version == "0.5.7" and facts.model == "mistral:7b"
    assert facts.env["OLLAMA_NUM_PARALLEL"].value == "0"
    assert facts.env["OLLAMA_NUM_PARALLEL"].source == "server config log line"
    assert not facts.env["OLLAMA_NUM_PARALLEL"].from_llmdoctor
    assert facts.loaded[0].size == 8329906176 and facts.loaded[0].context_length == 16384
    assert facts.gpu_total == 24 * 2**30
    assert facts.longest_prompt == 5065 and "prompt=5065" in facts.longest_prompt_evidence
    assert facts.model_info["general.architecture"] == "llama"


def test_values_from_llmdoctors_own_drop_in_are_marked(tmp_path: Path):
    path = dropin.dropin_path(tmp_path, "ollama.service")
    path.parent.mkdir(parents=True)
    path.write_text(dropin.render({"OLLAMA_KV_CACHE_TYPE": "q8_0"}))
    store = store_with(ollama_version="0.32.15")  # nothing else known: the files answer
    facts, gaps = hostfacts.collect(store, tmp_path, "ollama.service")
    cur = facts.env["OLLAMA_KV_CACHE_TYPE"]
    assert cur.value == "q8_0" and cur.from_llmdoctor
    assert "zz-llmdoctor.conf" in cur.source


def test_gpu_falls_back_to_ollamas_inventory_line():
    # samples.md §2b
    line = ('time=2025-02-09T21:59:37.882Z level=INFO source=types.go:130 msg="inference compute" '
            'id=GPU-6c0b6f95-4b1d-5897-6fba-93f9d27eaa47 library=cuda variant=v12 compute=6.1 driver=12.4 '
            'name="NVIDIA GeForce GTX 1050 Ti" total="3.9 GiB" available="3.9 GiB"')
    log = OllamaLogScanner().feed_all([line], "journal:ollama.service").summary()
    facts, _ = hostfacts.collect(store_with(ollama_log=log), Path("/nonexistent"), "ollama.service")
    assert abs(facts.gpu_total - 3.9 * 2**30) <= 1
    assert facts.gpu_source == "Ollama's `inference compute` log line"


def test_unload_then_reload_from_the_log_scan(tmp_path: Path):
    from llmdoctor.knowledge.ollama.log import Example, Load, OllamaLogSummary

    line = 'time=2025-04-22T11:21:46.411Z level=INFO source=server.go:619 msg="llama runner started in 41.25 seconds"'
    log = OllamaLogSummary(loads=(Load(model="llama3:8b", idle_before_s=1800.0, load_seconds=41.25,
                                       examples=(Example("journal:ollama.service", line),)),), load_count=2)
    facts, _ = hostfacts.collect(store_with(ollama_log=log), tmp_path, "ollama.service")
    assert facts.unload_evidence.startswith("a load 1800 s after the previous request: ")
    assert "llama runner started in 41.25 seconds" in facts.unload_evidence
    quick = OllamaLogSummary(loads=(Load(model="llama3:8b", idle_before_s=5.0),), load_count=1)
    assert hostfacts.collect(store_with(ollama_log=quick), tmp_path, "ollama.service")[0].unload_evidence == ""


def test_file_size_of_a_named_model_from_tags(tmp_path: Path):
    tags = ({"name": "llama3:8b", "size": 4661224676},)
    store = store_with(ollama_tags=tags, ollama_version="0.32.15")
    facts, _ = hostfacts.collect(store, tmp_path, "ollama.service", model="llama3:8b",
                                 show_for=lambda name: load_json("api_show_llama3.json"))
    assert facts.model_file_size == 4661224676 and facts.model_info["general.architecture"] == "llama"


def test_a_proposal_from_an_evidence_directory(tmp_path: Path):
    """No /api/ps in the evidence: weights and context come from the last load in the journal."""
    from llmdoctor.hosts.evidence import EvidenceHost
    from llmdoctor.app.tune import session
    from llmdoctor.judge.sizing import Workload

    host = EvidenceHost(Path(__file__).parents[1] / "fixtures/evidence/ollama-kv-capacity")
    p = session.prepare(host, session.TuneOptions(root=tmp_path, workload=Workload(concurrent=4)))
    assert p.version == "0.11.6"
    plan = p.proposal.plan
    assert plan.kv_bytes_per_token == 147_456
    assert plan.memory.weights == 16384 * 2**20 and "model buffers at the last load" in plan.memory.source
    assert plan.memory.total == 25340307046  # Ollama's inventory line: 23.6 GiB
    assert plan.context == 8192  # runner --ctx-size 65536 with 8 slots
    assert plan.recommended.parallel == 4  # tune's own sizing for --concurrent 4 ...
    # ... but the drop-in holds diagnose's What to change for the unit (its KV_CAPACITY finding
    # asks for 6 slots in q8_0), and says where the two differ
    assert p.values["OLLAMA_NUM_PARALLEL"] == "6" and p.values["OLLAMA_KV_CACHE_TYPE"] == "q8_0"
    assert any(d.startswith("OLLAMA_NUM_PARALLEL: tune's sizing alone would set 4") for d in p.plan.differences)
