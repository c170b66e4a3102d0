"""The docker/podman inspect and compose readers, on the real recorded outputs in
tests/fixtures/containers (sources in SOURCES.md there), and on garbage."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from llmdoctor.knowledge.containers.compose import parse_compose
from llmdoctor.knowledge.containers.inspect import engine_of, looks_like_inspect, parse_inspect
from llmdoctor.knowledge.containers.no_gpu import no_gpu_line
from llmdoctor.parsing import ParseError

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "containers"


def read(name: str) -> str:
    return (FIX / name).read_text()


def test_ollama_container_without_gpu():
    s = parse_inspect(read("inspect_ollama_no_gpu.json"))
    assert s.argv == ("/bin/ollama", "serve")
    assert s.gpu_requested is False and s.device_requests is None
    assert s.gpu_lines() == ["HostConfig.DeviceRequests: null", "HostConfig.Devices: []"] or \
        s.gpu_lines()[0] == "HostConfig.DeviceRequests: null"
    assert s.status == "running" and s.oom_killed is False and s.exit_code == 0 and s.state_lines() == []
    assert engine_of(s) == "ollama"


def test_vllm_container_command_and_ports():
    s = parse_inspect(read("inspect_vllm_gpus_all.json"))
    assert s.argv[:3] == ("python3", "-m", "vllm.entrypoints.openai.api_server")
    assert "--max-num-seqs" in s.argv and s.ports == ("8000/tcp -> :8000",)
    assert s.env["CUDA_VERSION"] == "12.8.1" and s.log_driver == "json-file"
    assert s.gpu_requested is None  # its DeviceRequests chunk was not retrievable: unknown, not "none"
    assert engine_of(s) == "vllm"


def test_device_requests_alone_and_by_uuid():
    assert parse_inspect(read("inspect_device_requests_jq.json")).gpu_requested is True


def test_env_fragment_as_pasted():
    text = read("inspect_env_fragment.txt")
    assert looks_like_inspect(text)
    s = parse_inspect(text, "env.txt")
    assert s.env["OLLAMA_HOST"] == "0.0.0.0:11434" and s.env["NVIDIA_VISIBLE_DEVICES"] == "all"
    assert s.gpu_requested is None


def test_podman_format():
    s = parse_inspect(read("inspect_podman_example.json"))
    assert s.runtime == "oci" and s.image == "docker.io/library/alpine:latest" and s.name == "foobar"
    assert s.argv == ("echo", "hi") and s.gpu_requested is False and engine_of(s) is None


def test_oom_and_restarts_are_evidence_lines():
    data = json.loads(read("inspect_ollama_no_gpu.json"))
    # the same real object with the fields a dying container has (no real LLM sample has them)
    data[0]["State"].update(OOMKilled=True, ExitCode=137, Restarting=True)
    data[0]["RestartCount"] = 5
    lines = parse_inspect(json.dumps(data)).state_lines()
    assert lines[0].startswith("State.OOMKilled: true") and "RestartCount: 5" in lines
    assert any(l.startswith("State.ExitCode: 137") for l in lines)


@pytest.mark.parametrize("name,image,env,gpu", [
    ("compose_ollama_count_string.yaml", "ollama/ollama:latest", {"OLLAMA_KEEP_ALIVE": "24h"}, True),
    ("compose_ollama_many_vars.yaml", "ollama/ollama:${OLLAMA_DOCKER_TAG-latest}", {"OLLAMA_NUM_PARALLEL": "4"}, True),
    ("compose_vllm_runtime_nvidia.yaml", "vllm/vllm-openai:latest", {"VLLM_LOGGING_LEVEL": "DEBUG"}, True),
])
def test_compose_engine_service(name, image, env, gpu):
    s = parse_compose(read(name), name)
    assert s.image == image and s.gpu_requested is gpu
    assert env.items() <= s.env.items()
    assert "WEBUI_SECRET_KEY" not in s.env  # another service's environment is not the engine's


def test_compose_without_gpu_reservation():
    text = read("compose_ollama_count_string.yaml").split("    deploy:")[0]
    s = parse_compose(text)
    assert s.gpu_requested is False and "no GPU reserved" in s.gpu_lines()[0]


@pytest.mark.parametrize("name", ["logs_ollama_no_nvidia_devices.txt", "logs_ollama_no_compatible_gpus.txt",
                                  "logs_vllm_no_platform.txt"])
def test_no_gpu_lines_of_real_logs(name):
    assert no_gpu_line(read(name).splitlines())


# one line of each NO_GPU form (the fixtures above and their SOURCES.md hold the real ones)
EVERY_FORM = [
    'level=INFO source=gpu.go:221 msg="no compatible GPUs were discovered"',
    'level=INFO source=gpu.go:386 msg="no nvidia devices detected"',
    'level=WARN source=gpu.go:1 msg="no GPU detected, running on CPU"',
    'level=INFO source=gpu.go:1 msg="Discovered GPU libraries: []"',
    'level=INFO source=types.go:130 msg="inference compute" id=0 library=cpu compute="" name=cpu',
    "2024/02/20 10:00:00 routes.go:1021: Warning: GPU support may not enabled, check you have installed GPU drivers",
    "WARNING 05-09 00:49:29 [__init__.py:221] No platform detected, vLLM is running on UnspecifiedPlatform",
    "INFO 05-09 00:49:29 [__init__.py:253] Automatically detected platform cpu.",
    "DEBUG 05-09 00:49:29 [__init__.py:117] CUDA platform is not available because: NVML Shared Library Not Found",
]


@pytest.mark.parametrize("line", EVERY_FORM)
def test_every_no_gpu_form_is_found_wherever_it_stands_in_the_bound(line):
    """The first such line is found whether it stands in the first batch of lines, at a batch's
    edge or the bound's last line; past MAX_LINES it is not looked for (start-up lines come first)."""
    from llmdoctor.knowledge.containers import no_gpu

    assert no_gpu.NO_GPU.search(line) and any(w in line for w in no_gpu.WORDS)
    filler = ['time=2024-02-20T10:00:00 level=INFO source=routes.go:1 msg="listening"'] * no_gpu.MAX_LINES
    for at in (0, no_gpu.BATCH - 1, no_gpu.BATCH, no_gpu.MAX_LINES - 1):
        lines = filler[:at] + [line, EVERY_FORM[0] if line != EVERY_FORM[0] else EVERY_FORM[1]] + filler[at:]
        assert no_gpu_line(iter(lines)) == line.strip()
    assert no_gpu_line(filler + [line]) is None


def test_no_gpu_line_absent_in_a_normal_start():
    assert no_gpu_line(read("logs_ollama_0.3.12.txt").splitlines()) is None


@pytest.mark.parametrize("text", ["", "null", "[]", "[1, 2]", '"x"', "{", "not json at all", '{"a": 1}'])
def test_garbage_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_inspect(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["Id", "Path", "Args", "State", "HostConfig", "Config", "Env", "DeviceRequests", "Runtime",
                         "Devices", "PortBindings", "OOMKilled", "RestartCount", "Mounts", "Name", "Image",
                         "Capabilities", "Driver", "Cmd", "Entrypoint", "LogConfig", "NetworkSettings"]), c, max_size=6),
    max_leaves=30).map(json.dumps)))
def test_inspect_parser_never_crashes(text):
    try:
        s = parse_inspect(text)
    except ParseError:
        return
    s.gpu_requested, s.gpu_lines(), s.state_lines(), engine_of(s)
