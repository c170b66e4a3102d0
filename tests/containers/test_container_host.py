"""ContainerHost against a `docker` stand-in on PATH (tests/support/fake_docker.py): no Docker
daemon can run containers on these machines, so the stand-in replays the real recorded
outputs in tests/fixtures/containers and records every argv it was called with."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llmdoctor.hosts.base import CommandNotFound, HostError, HostUnreachable
from llmdoctor.hosts.container import ContainerHost, merge_by_time
from llmdoctor.knowledge.inventory import parse_container_target, parse_inventory
from tests.support.schema import report_doc

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "containers"
FAKE = ROOT / "tests" / "support" / "fake_docker.py"


@pytest.fixture
def docker(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for cli in ("docker", "podman"):
        (bin_dir / cli).write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
        (bin_dir / cli).chmod(0o755)
    files = tmp_path / "files"
    (files / "proc").mkdir(parents=True)
    (files / "proc" / "meminfo").write_text("MemTotal:       32768000 kB\nMemFree:         1000000 kB\n")
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_DOCKER_LOG", str(log))
    monkeypatch.setenv("FAKE_DOCKER_NAME", "ollama")
    monkeypatch.setenv("FAKE_DOCKER_INSPECT", str(FIX / "inspect_ollama_no_gpu.json"))
    monkeypatch.setenv("FAKE_DOCKER_LOGS", str(FIX / "logs_ollama_no_nvidia_devices.txt"))
    monkeypatch.setenv("FAKE_DOCKER_FILES", str(files))

    def calls():
        return [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []

    return calls


def test_inspect_exec_read_and_logs_argv(docker):
    h = ContainerHost("docker://ollama")
    h.connect()
    assert '"DeviceRequests": null' in h.container_inspect().stdout
    assert h.read("/proc/meminfo").startswith(b"MemTotal:")
    with pytest.raises(FileNotFoundError):
        h.read("/etc/does-not-exist")
    text = h.logs(86400)
    assert 'msg="no nvidia devices detected"' in text
    assert docker() == [
        ["inspect", "--type", "container", "--", "ollama"],
        ["exec", "-e", "LC_ALL=C", "--", "ollama", "head", "-c", str(4 * 1024 * 1024), "--", "/proc/meminfo"],
        ["exec", "-e", "LC_ALL=C", "--", "ollama", "head", "-c", str(4 * 1024 * 1024), "--", "/etc/does-not-exist"],
        ["logs", "--timestamps", "--tail", "200000", "--since", "86400s", "--", "ollama"],
    ]


def test_a_missing_executable_and_a_missing_container(docker):
    h = ContainerHost("docker://ollama")
    with pytest.raises(CommandNotFound):
        h.run(["ps", "-eo", "pid=,args="])
    with pytest.raises(HostUnreachable, match="No such container: nope"):
        ContainerHost("docker://nope").connect()


def test_http_without_a_published_port_or_curl_is_a_clear_error(docker):
    # the real 1b inspect publishes nothing, and the ollama image has no curl (ollama/ollama#9781)
    with pytest.raises(HostError, match="not published and the container has no curl"):
        ContainerHost("docker://ollama").http("GET", 11434, "/api/version")


def test_published_port_from_port_bindings(docker, monkeypatch):
    monkeypatch.setenv("FAKE_DOCKER_NAME", "ancient-smoke-8769")
    monkeypatch.setenv("FAKE_DOCKER_INSPECT", str(FIX / "inspect_vllm_gpus_all.json"))
    h = ContainerHost("docker://ancient-smoke-8769")
    assert h.published_port(8000) == 8000 and h.published_port(11434) is None


def test_diagnose_a_container_target(docker):
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--host", "docker://ollama", "--format", "json"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert p.returncode == 2, p.stderr
    target = report_doc(p.stdout)["targets"][0]
    assert target["engine"] == "ollama" and target["target"] == "docker://ollama"
    finding = next(f for f in target["findings"] if f["check"] == "container-gpu-hidden")
    assert finding["cause"] == "CPU_SPILL"
    assert any("docker logs ollama" == e["source"] for e in finding["evidence"])
    assert any("--gpus all" in c for c in finding["fix"]["commands"])
    assert not any("systemctl" in c for f in target["findings"] for c in f["fix"]["commands"])
    assert ["logs", "--timestamps", "--tail", "200000", "--since", "86400s", "--", "ollama"] in docker()


def test_podman_uses_podman(docker):
    h = ContainerHost("podman://ollama")
    h.connect()
    assert h.kind == "podman" and h.cli == "podman"


def test_collect_writes_inspect_and_container_log(docker, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = tmp_path / "ev"
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "collect", "--host", "docker://ollama", "-o", str(out)],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr + p.stdout
    assert json.loads((out / "docker_inspect.json").read_text())[0]["Path"] == "/bin/ollama"
    assert 'no nvidia devices detected' in (out / "container.log").read_text()
    # the replayed log is from 2024 and collect stamps meta.json with now: widen the window
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "-e", str(out), "--since", "3650d",
                        "--format", "json"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert "container-gpu-hidden" in {f["check"] for f in report_doc(p.stdout)["targets"][0]["findings"]}, p.stdout[:3000]


@pytest.mark.parametrize("bad", ["docker://-rm", "docker://a b", "docker://a;b", "docker://", "podman://$(x)",
                                 "ssh://gpu1", "ssh://-oProxyCommand=x/docker://a", "ssh://gpu1/k8s://ns/pod", "k8s://ns"])
def test_bad_container_targets_are_refused(bad):
    with pytest.raises(ValueError, match="invalid host"):
        parse_container_target(bad)


def test_container_targets_in_an_inventory():
    assert parse_inventory("docker://ollama\nssh://admin@gpu1/podman://vllm\n") == [
        "docker://ollama", "ssh://admin@gpu1/podman://vllm"]
    t = parse_container_target("ssh://admin@gpu1:2222/docker://ollama")
    assert (t.runtime, t.name, str(t.via)) == ("docker", "ollama", "admin@gpu1:2222")


def test_stdout_and_stderr_merge_in_time_order():
    out = "2024-01-01T00:00:02.000000000Z b\n"
    err = "2024-01-01T00:00:01.000000000Z a\n2024-01-01T00:00:03.000000000Z c\n"
    assert merge_by_time(out, err) == [err.splitlines()[0], out.strip(), err.splitlines()[1]]


class Via:
    """The host the container runs on (an SSHHost in real use): records what it is asked to run."""

    name = "gpu1"

    def __init__(self):
        self.calls = []

    def run(self, argv, timeout=10):
        from llmdoctor.hosts.base import CommandResult

        self.calls.append((list(argv), timeout))
        if argv[1] == "inspect":
            return CommandResult(tuple(argv), 0, (FIX / "inspect_vllm_gpus_all.json").read_text())
        return CommandResult(tuple(argv), 0, "ok")

    def http(self, method, port, path, body=None, timeout=10, headers=None):
        from llmdoctor.hosts.base import HttpResponse

        self.calls.append((["http", method, str(port), path], timeout))
        return HttpResponse(200, b'{"object":"list","data":[]}')

    def close(self):
        pass


def test_behind_ssh_the_remote_cli_runs_everything():
    via = Via()
    h = ContainerHost(parse_container_target("ssh://admin@gpu1/docker://ancient-smoke-8769"), via=via)
    h.connect()
    h.run(["nvidia-smi"], timeout=7)
    r = h.http("GET", 8000, "/v1/models")
    assert r.status == 200 and r.source == "GET ssh://admin@gpu1/docker://ancient-smoke-8769:8000/v1/models"
    assert via.calls == [
        (["docker", "inspect", "--type", "container", "--", "ancient-smoke-8769"], 15.0),
        (["docker", "exec", "-e", "LC_ALL=C", "--", "ancient-smoke-8769", "nvidia-smi"], 7),
        (["http", "GET", "8000", "/v1/models"], 10),  # the published port, on the container's host
    ]


def test_fixes_name_the_real_container(docker, monkeypatch):
    """A container called ollama-gpu (not the docs' `ollama`): the fix recreates that one, and the
    Ollama settings' fixes address it too (the recorded inspect has no "Name": the name asked for)."""
    monkeypatch.setenv("FAKE_DOCKER_NAME", "ollama-gpu")
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "--host", "docker://ollama-gpu", "--format", "json"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    target = report_doc(p.stdout)["targets"][0]
    finding = next(f for f in target["findings"] if f["check"] == "container-gpu-hidden")
    assert any(c.startswith("docker rm -f ollama-gpu && docker run --name ollama-gpu --gpus all") for c in finding["fix"]["commands"])
    from llmdoctor.facts import Context, FactStore
    from llmdoctor.judge.fixes import ollama_gpu_recheck, settings_fix

    where = FactStore(Context(ContainerHost("docker://ollama-gpu"))).get("ollama_deployment")
    assert where == "container" and where.name == "ollama-gpu"
    commands, config = settings_fix(where, OLLAMA_NUM_PARALLEL=2)
    assert "docker run --name ollama-gpu" in commands[1] and "container ollama-gpu" in config
    assert ollama_gpu_recheck(where, "x")[1] == "docker restart ollama-gpu"
