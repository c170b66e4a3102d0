"""Container evidence in an evidence directory and in a pasted ticket: the container's
environment is the engine's configuration, fixes take the container's form, and inspect
output pasted as env.txt is recognised by its content (never read as `systemctl show`)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from llmdoctor.app.diagnose import DiagnoseOptions, diagnose_target
from llmdoctor.facts import Context, FactStore
from llmdoctor.hosts.evidence import EvidenceHost
from llmdoctor.knowledge.ticket import split_ticket
from llmdoctor.plugins import load_checks

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "containers"
SPECS = load_checks(site_dir=None, entry_points=False)[0]


def store(directory) -> FactStore:
    return FactStore(Context(host=EvidenceHost(directory), sample_seconds=0, since_seconds=0))


def inspect_with_compose_env(tmp_path) -> Path:
    """The real inspect of an Ollama container (1b) given the environment of a real compose
    file (2c): no real inspect of an Ollama container with OLLAMA_* variables was found."""
    from llmdoctor.knowledge.containers.compose import parse_compose

    env = parse_compose((FIX / "compose_ollama_many_vars.yaml").read_text()).env
    data = json.loads((FIX / "inspect_ollama_no_gpu.json").read_text())
    data[0]["Config"] = {"Env": [f"{k}={v}" for k, v in env.items()], "Image": "ollama/ollama"}
    d = tmp_path / "ev"
    d.mkdir()
    (d / "docker_inspect.json").write_text(json.dumps(data, indent=4))
    shutil.copy(FIX / "logs_ollama_0.3.12.txt", d / "container.log")
    return d


def test_the_container_environment_is_the_configuration(tmp_path):
    s = store(inspect_with_compose_env(tmp_path))
    config = s.get("ollama_config")
    # the server config line of the log (NUM_PARALLEL:0) still wins: it is what the server used
    assert config.values["OLLAMA_NUM_PARALLEL"] == "0" and config.origin("OLLAMA_NUM_PARALLEL") == "server config log line"
    assert config.assigned["OLLAMA_NUM_PARALLEL"] == ("4", "container environment (docker inspect)")
    assert config.values["OLLAMA_CONTEXT_LENGTH"] == "4096"
    assert config.origin("OLLAMA_CONTEXT_LENGTH") == "container environment (docker inspect)"
    assert s.get("ollama_deployment") == "container"


def test_without_a_log_the_container_environment_decides(tmp_path):
    d = inspect_with_compose_env(tmp_path)
    (d / "container.log").unlink()
    (d / "meta.json").write_text('{"engine": "ollama"}')
    config = store(d).get("ollama_config")
    assert config.values["OLLAMA_NUM_PARALLEL"] == "4"


def test_env_txt_holding_inspect_is_the_containers_not_systemds():
    d = FIX / "evidence" / "ollama-env-fragment"
    s = store(d)
    assert s.get("container").env["OLLAMA_HOST"] == "0.0.0.0:11434"
    assert s.optional("systemd_units") in (None, ())
    assert s.get("ollama_deployment") == "container"
    assert s.optional("declared_settings") is None  # not a list of variables the user typed either


def test_container_fixes_are_never_dropins():
    result = diagnose_target(EvidenceHost(FIX / "evidence" / "ollama-no-gpu-request"), DiagnoseOptions(sample_seconds=0),
                             SPECS)
    findings = result.report.findings
    assert [f.check for f in findings] == ["container-gpu-hidden"]
    for f in findings:
        assert not any("systemctl" in c for c in f.fix.commands) and "[Service]" not in (f.fix.config or "")
        assert any("--gpus all" in c for c in f.fix.commands)


def test_vllm_container_command_is_its_command_line():
    cmd = store(FIX / "evidence" / "vllm-container").get("vllm_cmdline")
    assert cmd.get("max_num_seqs") in (1, "1") and cmd.get("model") == "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"


def test_ticket_pieces_are_named():
    inspect = (FIX / "inspect_ollama_no_gpu.json").read_text()
    compose = (FIX / "compose_ollama_count_string.yaml").read_text()
    text = (f"user@box:~$ docker inspect ollama\n{inspect}\n$ cat docker-compose.yml\n{compose}\n"
            "$ docker logs ollama\n" + (FIX / "logs_ollama_no_nvidia_devices.txt").read_text())
    files = split_ticket(text)
    assert json.loads(files["docker_inspect.json"])[0]["Path"] == "/bin/ollama"
    assert "services:" in files["compose.yaml"] and "no nvidia devices" in files["journal.log"]
    # without prompts, by content
    assert "docker_inspect.json" in split_ticket(inspect)
    assert "compose.yaml" in split_ticket(compose)


def test_compose_file_without_gpu_in_evidence(tmp_path):
    d = tmp_path / "ev"
    d.mkdir()
    (d / "docker-compose.yml").write_text((FIX / "compose_ollama_count_string.yaml").read_text().split("    deploy:")[0])
    shutil.copy(FIX / "logs_ollama_no_nvidia_devices.txt", d / "container.log")
    result = diagnose_target(EvidenceHost(d), DiagnoseOptions(sample_seconds=0, since_seconds=0), SPECS)
    f = next(f for f in result.report.findings if f.check == "container-gpu-hidden")
    assert f.evidence[0].source == "docker-compose.yml" and "no GPU reserved" in f.evidence[0].text
