"""Every Ollama check on its evidence directories (healthy + pathological), through the
fact store and run_check, and the branches the directories do not reach, with preset facts."""
from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from llmdoctor.plugins import load_checks, run_check
from llmdoctor.knowledge.engines import OLLAMA, EngineInstance
from llmdoctor.knowledge.ollama.log import scan
from llmdoctor.knowledge.ollama.ps import parse_ps_text
from llmdoctor.facts import Context, FactStore
from llmdoctor.facts.ollama import effective_config
from llmdoctor.hosts.evidence import EvidenceHost

TESTS = Path(__file__).resolve().parents[2]
SAMPLES = TESTS / "fixtures" / "ollama"
EVIDENCE = TESTS / "fixtures" / "evidence"

DIRS = sorted(p for p in EVIDENCE.glob("ollama-*") if (p / "expected.json").is_file())


@pytest.fixture(scope="module")
def specs():
    specs, errors = load_checks(site_dir=None, entry_points=False)
    assert not errors
    return {s.id: s for s in specs if s.id.startswith("ollama-")}


def test_every_check_has_a_pathological_directory(specs):
    covered = {c for d in DIRS for c in json.loads((d / "expected.json").read_text())["checks"]}
    assert set(specs) <= covered, set(specs) - covered
    assert any(json.loads((d / "expected.json").read_text())["checks"] == [] for d in DIRS)


@pytest.mark.parametrize("directory", DIRS, ids=[d.name for d in DIRS])
def test_directory_fires_exactly_the_expected_ollama_checks(directory: Path, specs):
    expected = {c for c in json.loads((directory / "expected.json").read_text())["checks"] if c.startswith("ollama-")}
    store = FactStore(Context(EvidenceHost(directory), sample_seconds=0))
    fired = {}
    for spec in specs.values():
        outcome = run_check(spec, store)
        assert not outcome.crash, outcome.crash
        for f in outcome.findings:
            fired[f.check] = f
            assert f.cause is spec.cause
            assert f.evidence and all(e.source and e.text for e in f.evidence)
            assert f.fix.summary and (f.fix.commands or f.fix.config)
    assert set(fired) == expected


EMPTY = Path(tempfile.mkdtemp(prefix="llmdoctor-empty-evidence-"))  # facts come only from the presets
atexit.register(shutil.rmtree, EMPTY, True)  # leave nothing behind in /tmp


@pytest.fixture(scope="module", autouse=True)
def _remove_empty_evidence():
    """Gone when this module ends, before the session's check of /tmp (tests/conftest.py)."""
    yield
    shutil.rmtree(EMPTY, ignore_errors=True)


def store_with(**facts):
    facts.setdefault("engines", (EngineInstance(OLLAMA, port=11434, found_by="test"),))
    return FactStore(Context(EvidenceHost(EMPTY)), preset=facts)


def fire(spec, **facts):
    outcome = run_check(spec, store_with(**facts))
    assert not outcome.crash, outcome.crash
    return outcome.findings


def log(*lines):
    return scan(list(lines), "journal.log")


def config(version=None, server=None, **env):
    unit = SimpleNamespace(unit="ollama.service", engine=OLLAMA, file_env={}, file_env_origin={},
                           loaded_env=None, process_env=dict(env))
    summary = log(f'msg="server config" env="map[{server}]"') if server else None
    return effective_config(version, summary, unit)


def test_forced_single_slot(specs):
    line = ('time=2025-10-01T10:00:00.000Z level=WARN source=sched.go:400 msg="model architecture does not '
            'currently support parallel requests" architecture=mllama')
    (f,) = fire(specs["ollama-one-slot"], ollama_log=log(line), ollama_config=config("0.12.0", OLLAMA_NUM_PARALLEL="4"))
    assert "architecture" in f.title and f.evidence[0].text == line


def test_one_slot_by_default_needs_a_known_version(specs):
    assert fire(specs["ollama-one-slot"], ollama_config=config(None)) == ()
    (f,) = fire(specs["ollama-one-slot"], ollama_config=config("0.12.0"))
    assert "default of Ollama 0.12.0" in f.title and f.confidence == "medium"
    assert 'Environment="OLLAMA_NUM_PARALLEL=4"' in f.fix.config and "KV cache" in f.fix.summary
    assert fire(specs["ollama-one-slot"], ollama_config=config("0.5.7")) == ()  # auto: 4 then 1
    (f,) = fire(specs["ollama-one-slot"], ollama_config=config("0.5.7", server="OLLAMA_NUM_PARALLEL:1"))
    assert "server config log line" in f.title


def test_server_config_line_wins_over_the_environment():
    c = config("0.12.0", server="OLLAMA_NUM_PARALLEL:2 OLLAMA_KEEP_ALIVE:5m0s", OLLAMA_NUM_PARALLEL="8")
    assert c.get("OLLAMA_NUM_PARALLEL") == "2" and c.origin("OLLAMA_NUM_PARALLEL") == "server config log line"
    assert c.assigned["OLLAMA_NUM_PARALLEL"] == ("8", "process environment")
    assert c.origin("OLLAMA_MAX_QUEUE") == "default of Ollama 0.12.0" and c.get("OLLAMA_MAX_QUEUE") == "512"
    assert c.get("OLLAMA_FLASH_ATTENTION") == "false" and config("0.12.4").get("OLLAMA_FLASH_ATTENTION") == "auto" and "OLLAMA_NEW_ENGINE" in c.values
    assert "OLLAMA_NEW_ENGINE" not in config("0.30.0").values


def test_process_env_beats_unit_files():
    unit = SimpleNamespace(unit="ollama.service", engine=OLLAMA, file_env={"OLLAMA_NUM_PARALLEL": "4"},
                           file_env_origin={"OLLAMA_NUM_PARALLEL": "/etc/systemd/system/ollama.service.d/override.conf"},
                           loaded_env={"OLLAMA_NUM_PARALLEL": "4"}, process_env={"OLLAMA_NUM_PARALLEL": '"2"'})
    c = effective_config("0.12.0", None, unit)
    assert c.get("OLLAMA_NUM_PARALLEL") == "2" and c.origin("OLLAMA_NUM_PARALLEL") == "process environment"
    unit.process_env = None
    c = effective_config("0.12.0", None, unit)
    assert c.origin("OLLAMA_NUM_PARALLEL") == "unit environment (systemctl show)"


def test_deep_queue_observed_in_the_access_log(specs):
    burst = [f'[GIN] 2025/06/10 - 09:30:{s:02d} | 200 | {d}s |    10.0.0.5 | POST     "/api/chat"'
             for s, d in ((12, "12.3"), (24, "24.6"), (36, "36.8"), (49, "49.1"), (59, "59.3"))]
    c = config("0.12.0", OLLAMA_NUM_PARALLEL="2")
    (f,) = fire(specs["ollama-deep-queue"], ollama_config=c, ollama_log=log(*burst))
    assert "256 per slot" in f.title and any("in flight at once" in e.text for e in f.evidence)
    assert 'OLLAMA_MAX_QUEUE=8' in f.fix.config


def test_stopping_model(specs):
    ps = parse_ps_text("NAME    ID              SIZE    PROCESSOR    UNTIL\nx:1     0123456789ab    4 GB    100% GPU     Stopping...\n")
    (f,) = fire(specs["ollama-keepalive-unload"], ollama_ps=ps, ollama_config=config("0.12.0"))
    assert "Stopping" in f.title and f.evidence[0].text.endswith("Stopping...")


def test_cpu_only_host_is_not_a_spill(specs, sample):
    ps = parse_ps_text("NAME    ID              SIZE    PROCESSOR    UNTIL\nx:1     0123456789ab    4 GB    100% CPU     4 minutes from now\n")
    assert fire(specs["ollama-cpu-spill"], ollama_ps=ps) == ()
    (f,) = fire(specs["ollama-cpu-spill"], ollama_ps=ps, ollama_log=log(*sample("log_inventory_cuda.log").splitlines()))
    assert "100%" in f.title and f.severity.value == "critical"


def test_gpu_not_used_from_nvml_process_memory(specs):
    from llmdoctor.knowledge.nvidia import GpuDevice, GpuFact, GpuProcess

    gpu = GpuFact("NVML", (GpuDevice(0, "RTX", 24 * 2**30, 2**30, 23 * 2**30),), (GpuProcess(4242, "ollama", 300 * 2**20, 0),))
    ps = parse_ps_text("NAME    ID              SIZE    PROCESSOR    UNTIL\nx:1     0123456789ab    9.6 GB  100% GPU     4 minutes from now\n")
    (f,) = fire(specs["ollama-gpu-not-used"], ollama_ps=ps, gpu=gpu)
    assert "300.0 MiB" in f.evidence[-1].text


def test_gpu_lost_after_a_restart_without_cuda(specs, sample):
    lines = (['msg="server config" env="map[OLLAMA_NUM_PARALLEL:0]"'] + sample("log_inventory_cuda.log").splitlines()
             + ['msg="server config" env="map[OLLAMA_NUM_PARALLEL:0]"'] + sample("log_inventory_cpu_only.log").splitlines())
    (f,) = fire(specs["ollama-gpu-lost"], ollama_log=log(*lines))
    assert "library=cuda" in f.evidence[0].text and "library=cpu" in f.evidence[1].text
    assert any("nvidia_uvm" in c for c in f.fix.commands)


def test_context_length_error_only(specs):
    line = ('{"error":"the prompt is longer than the context length currently available to the model; shorten the '
            'prompt, adjust the context length in settings, or use a model with a longer context length"}')
    (f,) = fire(specs["ollama-context-truncation"], ollama_log=log(line))
    assert "rejected" in f.title


def test_invalid_env_warn_line(specs):
    line = ('time=2025-10-01T10:00:00.000Z level=WARN source=config.go:190 msg="invalid environment variable, '
            'using default" key=OLLAMA_NUM_PARALLEL value=four default=1')
    (f,) = fire(specs["ollama-unparseable-value"], ollama_config=config("0.12.0"), ollama_log=log(line))
    assert f.evidence[0].text == line


def test_kv_capacity_silent_when_it_fits(specs):
    d = EVIDENCE / "ollama-kv-capacity"
    show = json.loads((d / "api_show.json").read_text())
    lines = (d / "journal.log").read_text().replace("--parallel 8", "--parallel 4").replace("--ctx-size 65536", "--ctx-size 32768")
    assert fire(specs["ollama-kv-capacity"], ollama_show=show, ollama_config=config("0.11.6"),
                ollama_log=log(*lines.splitlines())) == ()


def test_old_estimator_plan_with_layers_on_cpu(specs, sample):
    (f,) = fire(specs["ollama-cpu-spill"], ollama_log=log(*sample("log_estimator_wrapped.log").splitlines()))
    assert "46%" in f.title and "layers.offload=44" in f.evidence[0].text


def test_cpu_backend_only_while_ps_claims_gpu(specs):
    # load_backend line format of llama.cpp's ggml backend registry
    lines = ['time=2026-08-01T07:02:27.001Z level=INFO source=llama_server.go:412 msg="starting llama-server" cmd="llama-server --model /m/blobs/sha256-c6eb396dbd5912 -c 4096 -np 4"',
             "load_backend: loaded CPU backend from /usr/lib/ollama/libggml-cpu-haswell.so"]
    ps = parse_ps_text("NAME    ID              SIZE    PROCESSOR    UNTIL\nx:1     0123456789ab    9.6 GB  100% GPU     4 minutes from now\n")
    (f,) = fire(specs["ollama-gpu-not-used"], ollama_ps=ps, ollama_log=log(*lines))
    assert "only the CPU backend" in f.evidence[1].text
    lines.append("load_backend: loaded CUDA backend from /usr/lib/ollama/cuda_v12/libggml-cuda.so")
    assert fire(specs["ollama-gpu-not-used"], ollama_ps=ps, ollama_log=log(*lines)) == ()


def test_a_spill_with_many_slots_set_lowers_them_first(specs):
    # ollama/ollama#5756: OLLAMA_NUM_PARALLEL=64 on a 20 GB MIG slice; `ollama ps` 36%/64% CPU/GPU and
    # "offloaded 15/33 layers": the title gives ps's share, the fix cuts the 64 KV reservations first
    ps = parse_ps_text("NAME            ID              SIZE    PROCESSOR       UNTIL   \n"
                       "llama3:latest   365c0bd3c000    32 GB   36%/64% CPU/GPU Forever\n")
    spilled = log("llm_load_tensors: offloaded 15/33 layers to GPU")
    (f,) = fire(specs["ollama-cpu-spill"], ollama_ps=ps, ollama_log=spilled,
                ollama_config=config(server="OLLAMA_NUM_PARALLEL:64"))
    assert "about 36% of it runs on the CPU" in f.title and f.severity.value == "critical"  # 18 of 33 layers
    assert f.fix.summary.startswith("OLLAMA_NUM_PARALLEL=64 reserves KV cache for 64 requests")
    assert 'Environment="OLLAMA_NUM_PARALLEL=4"' in f.fix.config
    (f,) = fire(specs["ollama-cpu-spill"], ollama_ps=ps, ollama_log=spilled, ollama_config=config())
    assert "OLLAMA_NUM_PARALLEL=" not in (f.fix.config or "") and f.fix.summary.startswith("Make weights")


def test_truncation_below_a_server_context_that_is_already_set(specs):
    # intel/ipex-llm#13106: the server config line has OLLAMA_CONTEXT_LENGTH:32768, the runner still
    # truncates at 8192: a per-request or per-model num_ctx (or the build) decides, not the server's env
    cut = log('time=2025-04-24T20:37:57.881+08:00 level=WARN source=runner.go:131 msg="truncating input prompt" '
              'limit=8192 prompt=18538 keep=4 new=8192')
    (f,) = fire(specs["ollama-context-truncation"], ollama_log=cut,
                ollama_config=config(server="OLLAMA_CONTEXT_LENGTH:32768"))
    assert "OLLAMA_CONTEXT_LENGTH is already 32,768" in f.fix.summary and not f.fix.config
    assert f.fix.commands[0].startswith("ollama show MODEL --parameters")
    (f,) = fire(specs["ollama-context-truncation"], ollama_log=cut, ollama_config=config())
    assert 'OLLAMA_CONTEXT_LENGTH=32768' in (f.fix.config or "") + " ".join(f.fix.commands)


AMD_REFUSED = ('time=2025-07-29T13:31:47.016+02:00 level=WARN source=amd_windows.go:138 msg="amdgpu is not supported '
               '(supported types:[])" gpu_type=gfx1100 gpu=0 library=C:\\Ollama\\lib\\ollama\\rocm')


def test_gpu_rejected_advice_follows_the_words(specs):
    (f,) = fire(specs["ollama-gpu-rejected"], ollama_log=log(AMD_REFUSED))
    assert "HSA_OVERRIDE_GFX_VERSION" in f.fix.summary and f.evidence[0].text == AMD_REFUSED
    mismatch = ('time=2024-10-17T10:00:00.000Z level=WARN source=gpu.go:602 msg="version mismatch between driver and '
                'cuda driver library - reboot or upgrade may be required: library /usr/lib64/libcuda.so.1"')
    (f,) = fire(specs["ollama-gpu-rejected"], ollama_log=log(mismatch))
    assert "reboot" in f.fix.summary and "HSA_OVERRIDE" not in f.fix.summary


def test_gpu_rejected_silent_without_a_refusal_or_after_a_start_with_a_gpu(specs, sample):
    # no GPU at all is another question (container-gpu-hidden, no-gpu-runner)
    assert fire(specs["ollama-gpu-rejected"],
                ollama_log=log('level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"')) == ()
    later = sample("log_inventory_cuda.log").splitlines()
    assert fire(specs["ollama-gpu-rejected"], ollama_log=log(AMD_REFUSED, *later)) == ()


def test_automatic_parallel_turned_to_one_by_a_gpu_without_free_memory(specs):
    line = ('time=2024-10-17T10:00:00.000Z level=INFO source=sched.go:185 msg="one or more GPUs detected that are unable '
            'to accurately report free memory - disabling default concurrency"')
    (f,) = fire(specs["ollama-one-slot"], ollama_config=config("0.5.7"), ollama_log=log(line))
    assert "cannot report its free memory" in f.title and f.evidence[-1].text == line
    # set explicitly: the message does not apply
    assert fire(specs["ollama-one-slot"], ollama_config=config("0.5.7", OLLAMA_NUM_PARALLEL="4"), ollama_log=log(line)) == ()


def test_spill_planned_by_the_0_1_x_estimate(specs):
    # Ollama <= 0.1.32: `offload to gpu reallayers= layers=` (llm/server.go:128 @ v0.1.32), not layers.offload/model
    line = ('time=2024-04-16T10:00:00.000Z level=INFO source=server.go:128 msg="offload to gpu" reallayers=27 layers=33 '
            'required="7.8 GiB" used="5.9 GiB" available="6.0 GiB" kv="1.0 GiB" fulloffload="560.0 MiB" '
            'partialoffload="585.0 MiB"')
    (f,) = fire(specs["ollama-cpu-spill"], ollama_log=log(line))
    assert "18%" in f.title and f.evidence[0].text == line
    assert fire(specs["ollama-cpu-spill"], ollama_log=log(line.replace("reallayers=27", "reallayers=33"))) == ()


def test_zero_layers_planned_for_a_gpu_library_is_a_spill_without_the_startup_lines(specs):
    # llm/server.go:115-125 @ v0.3.14: the estimate is made over the GPU list (library=cuda) and, with no layer
    # fitting, the model loads on the CPU; a CPU-only host's estimate says library=cpu
    # (https://github.com/ollama/ollama/issues/10765, its paste had no `inference compute` lines)
    line = ('time=2025-05-19T10:50:36.626+05:00 level=INFO source=server.go:168 msg=offload library=cuda '
            'layers.requested=-1 layers.model=35 layers.offload=0 layers.split="" memory.available="[3.2 GiB]"')
    (f,) = fire(specs["ollama-cpu-spill"], ollama_log=log(line))
    assert "100%" in f.title and f.evidence[0].text == line
    assert fire(specs["ollama-cpu-spill"], ollama_log=log(line.replace("library=cuda", "library=cpu"))) == ()


def test_no_layer_fits_the_gpu_is_a_spill_unless_a_later_estimate_places_layers(specs):
    # llm/memory.go:170, :312 @ v0.3.14 (DEBUG): a GPU evaluated, not one layer fits on it
    nofit = ('time=2024-10-14T12:47:30.995+08:00 level=DEBUG source=memory.go:170 msg="gpu has too little memory to '
             'allocate any layers" id=GPU-ac07 library=cuda name="NVIDIA A30" total="23.5 GiB" available="23.3 GiB" '
             'partial_offload="24.6 GiB" full_offload="24.2 GiB"')
    none = ('time=2024-10-14T12:47:30.995+08:00 level=DEBUG source=memory.go:312 msg="insufficient VRAM to load any '
            'model layers"')
    (f,) = fire(specs["ollama-cpu-spill"], ollama_log=log(nofit, none))
    assert "100%" in f.title and f.evidence[0].text == nofit
    # the scheduler tried one GPU, then the set of them placed every layer: healthy, silent
    placed = ('time=2024-10-14T12:47:31.100+08:00 level=INFO source=memory.go:326 msg="offload to cuda" '
              'layers.requested=-1 layers.model=81 layers.offload=81 layers.split=41,40 memory.available="[23.3 GiB 23.3 GiB]"')
    assert fire(specs["ollama-cpu-spill"], ollama_log=log(nofit, none, placed)) == ()


def test_keep_alive_zero_unloads_after_every_request(specs):
    # server/sched.go:332 @ v0.3.14 (DEBUG): a request with keep_alive 0 has the model unloaded when it finishes
    blob = "/root/.ollama/models/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa"
    load = (f'time=2024-10-17T10:0{{0}}:00.000Z level=INFO source=server.go:388 msg="starting llama server" '
            f'cmd="/usr/lib/ollama/runners/cuda_v12/ollama_llama_server --model {blob} --ctx-size 8192 --parallel 4 '
            f'--port 3826{{0}}"')
    idle = (f'time=2024-10-17T10:0{{0}}:30.000Z level=DEBUG source=sched.go:332 msg="runner with zero duration has gone '
            f'idle, expiring to unload" modelPath={blob}')
    lines = [x.format(n) for n in range(3) for x in (load, idle)]
    (f,) = fire(specs["ollama-keepalive-unload"], ollama_log=log(*lines))
    assert "keep_alive 0" in f.title and "3 time(s)" in f.title and "zero duration" in f.evidence[0].text
    # one unload is no pattern; a keep-alive timer is the healthy line
    assert fire(specs["ollama-keepalive-unload"], ollama_log=log(*lines[:2])) == ()
    timer = idle.replace("zero duration has gone idle, expiring to unload", "non-zero duration has gone idle, adding timer")
    assert fire(specs["ollama-keepalive-unload"], ollama_log=log(*[x.format(n) for n in range(3) for x in (load, timer)])) == ()
