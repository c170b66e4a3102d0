"""The pure readers of knowledge/containers/pod.py on real recorded kubectl outputs (tests/fixtures/k8s)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.knowledge.containers.describe import looks_like_describe, parse_describe
from llmdoctor.knowledge.containers.kube_target import parse_kube_target
from llmdoctor.knowledge.containers.pod import deployment_selector, event_lines, looks_like_pod, parse_pod, pick_running
from llmdoctor.knowledge.containers.inspect import looks_like_inspect
from llmdoctor.parsing import ParseError
from tests.support import kube_pods as kp

K8S = Path(__file__).resolve().parents[1] / "fixtures" / "k8s"
CONTAINERS = Path(__file__).resolve().parents[1] / "fixtures" / "containers"


def test_a_real_pod_list_and_its_owner():
    text = (K8S / "pods_list_kuard_minikube.json").read_text()
    assert looks_like_pod(text) and not looks_like_inspect(text)
    s = parse_pod(text)
    # the ReplicaSet `queue` carries no pod-template-hash label: not a Deployment's, named as it is
    assert (s.pod, s.namespace, s.container, s.owner, s.node) == ("queue-l4dv8", "default", "queue", "rs/queue", "minikube")
    assert s.status == "Running" and s.restart_count == 0 and s.gpu_requested is False and not s.oom_killed


def test_describe_with_gpu_limits_and_args():
    text = (K8S / "describe_gpu_limits_pending.txt").read_text()
    assert looks_like_describe(text)
    s = parse_describe(text)
    assert s.container == "aadhar" and s.limits["nvidia.com/gpu"] == "1" and s.gpu_requested is True
    assert s.argv[:2] == ("/usr/bin/tensorflow_model_server", "--port=9000") and s.env == {}
    assert s.owner == "rs/xyz-v1-5c5b57cf9c"  # the hash label (1716137957) is an older scheme: not stripped


def test_describe_cut_before_limits_says_nothing_of_the_gpu():
    s = parse_describe((K8S / "describe_vllm_crashloop.txt").read_text())
    assert s.image == "vllm/vllm-openai:v0.7.1" and s.owner == "deploy/deepseek-r1-distill-llama-8b"
    assert s.argv[:3] == ("python3", "-m", "vllm.entrypoints.openai.api_server")
    assert s.gpu_requested is None  # the paste stops inside Command:


def test_describe_events_rows():
    text = (K8S / "describe_vllm_crashloop.txt").read_text() + (K8S / "describe_vllm_crashloop_events.txt").read_text()
    s = parse_describe(text)
    assert s.events[0].startswith("Warning Unhealthy (x3): Startup probe failed")


def test_oomkilled_pod_state():
    s = parse_pod(json.dumps(kp.vllm_pod(restarts=3, last_state=kp.OOM_LAST_STATE)))
    assert s.oom_killed and s.exit_code == 137 and s.restart_count == 3
    assert s.state_lines()[0].startswith("lastState.terminated.reason: OOMKilled (exitCode 137)")
    # sh -c "vllm serve ...": the engine's own words
    assert s.argv[:3] == ("vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.3") and s.env_from == ("HUGGING_FACE_HUB_TOKEN",)


def test_deployment_selector_and_pick():
    assert deployment_selector(json.dumps(kp.deployment("ollama", "ollama", kp.OLLAMA_LABELS))) == \
        "app.kubernetes.io/name=llm"
    with pytest.raises(ParseError):
        deployment_selector('{"spec": {}}')
    pending = kp.ollama_pod()
    pending["status"]["phase"] = "Pending"
    running = kp.vllm_pod()
    assert pick_running([pending, running]) == (running, "Running and ready")
    assert pick_running([pending])[1] == "no pod is Running; phase Pending"


def test_event_lines_warnings_first():
    lines = event_lines(json.dumps(kp.events("p", "default")))
    assert lines[0].startswith("Warning Unhealthy (x3)") and lines[1] == "Warning BackOff (x5): Back-off restarting failed container"


@pytest.mark.parametrize("text,want", [
    ("k8s://ai/ollama-0", ("ai", "ollama-0", "pod", None)),
    ("k8s://kind-x/ai/deploy/vllm", ("ai", "vllm", "deploy", "kind-x")),
    ("k8s://ai/deployment/vllm", ("ai", "vllm", "deploy", None)),
    ("k8s://arn:aws:eks:us-east-1:123:cluster%2Fprod/ai/vllm-0", ("ai", "vllm-0", "pod", "arn:aws:eks:us-east-1:123:cluster/prod")),
    ("k8s://gke_proj_us-central1_c/default/deploy/ollama", ("default", "ollama", "deploy", "gke_proj_us-central1_c")),
])
def test_the_target_grammar(text, want):
    t = parse_kube_target(text)
    assert (t.namespace, t.name, t.kind, t.context) == want
    assert parse_kube_target(str(t)) == t


def test_docker_inspect_is_not_a_pod():
    assert not looks_like_pod((CONTAINERS / "inspect_ollama_no_gpu.json").read_text())
    assert not looks_like_pod((CONTAINERS / "inspect_vllm_gpus_all.json").read_text())


@pytest.mark.parametrize("name,container,owner,gpu", [
    ("deploy_vllm_docs.yaml", "mistral-7b", "deploy/mistral-7b", True),
    ("deploy_ollama_888.yaml", "llm", "deploy/ollama", True),
])
def test_real_deployment_manifests(name, container, owner, gpu):
    from llmdoctor.knowledge.containers.pod import looks_like_manifest, parse_pod_text

    text = (K8S / name).read_text()
    assert looks_like_manifest(text) and looks_like_pod(text)
    s = parse_pod_text(text, name)
    assert (s.container, s.owner, s.gpu_requested, s.form) == (container, owner, gpu, "pod")


def test_the_docs_deployment_flow_args_and_env_ref():
    from llmdoctor.knowledge.containers.pod import parse_pod_text

    s = parse_pod_text((K8S / "deploy_vllm_docs.yaml").read_text(), "deployment.yaml")
    assert s.command == ("/bin/sh", "-c") and s.args[0].startswith("vllm serve mistralai/")
    assert "--max_num_batched_tokens" in s.argv and s.env_from == ("HUGGING_FACE_HUB_TOKEN",)
    assert s.limits["memory"] == "20G" and s.where() == "deploy/mistral-7b -n default"


def test_a_ticket_with_a_deployment_manifest(tmp_path):
    """The Ollama Deployment of ollama#3761 ("GPU not detected in Kubernetes": runtimeClassName nvidia,
    NVIDIA_* env, no GPU limit) and a pod log of the same trouble (ollama#3211): the GPU fix is the
    Deployment's limit."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    manifest = (K8S / "deploy_ollama_3761_excerpt.yaml").read_text()
    log = (K8S / "logs_ollama_no_gpu_libraries.txt").read_text()
    ticket = tmp_path / "t.txt"
    ticket.write_text(f"$ cat ollama.yaml\n{manifest}\n$ kubectl logs -n ollama deploy/ollama\n{log}")
    p = subprocess.run([sys.executable, "-m", "llmdoctor", "diagnose", "-e", str(ticket), "--format", "json"],
                       capture_output=True, text=True, cwd=root, env={**__import__("os").environ, "PYTHONPATH": str(root)},
                       timeout=120)
    from tests.support.schema import report_doc

    found = {f["check"]: f for f in report_doc(p.stdout)["targets"][0]["findings"]}
    fix = found["container-gpu-hidden"]["fix"]
    assert fix["commands"][0] == "kubectl set resources deploy/ollama -n default -c ollama --limits=nvidia.com/gpu=1"


def test_a_change_held_back_whole_writes_nothing():
    from llmdoctor.judge.pod_fixes import change_in_pod
    from llmdoctor.knowledge.containers.pod import parse_pod_text
    from llmdoctor.model import Change

    spec = parse_pod_text((K8S / "deploy_ollama_888.yaml").read_text(), "deployment.yaml")
    held = Change(place="container environment", settings=(), held_back=("OLLAMA_NUM_PARALLEL=4: later",))
    c = change_in_pod(held, spec)
    assert (c.place, c.commands, c.config, c.held_back) == ("Kubernetes deploy/ollama env", (), "", held.held_back)
    c = change_in_pod(Change(place="systemd ollama.service", settings=(("OLLAMA_KEEP_ALIVE", "24h"),)), spec)
    assert c.commands[0].startswith("kubectl set env deploy/ollama -n default -c llm OLLAMA_KEEP_ALIVE=24h")
    assert 'value: "24h"' in c.config


def test_the_engine_port_of_a_pod():
    from llmdoctor.knowledge.containers.pod import parse_pod_text

    text = (K8S / "deploy_vllm_docs.yaml").read_text()
    assert parse_pod_text(text, "deployment.yaml").engine_port == 8000  # the one containerPort
    aibrix = parse_pod_text((K8S / "deploy_vllm_aibrix_excerpt.yaml").read_text(), "deployment.yaml")
    assert aibrix.engine_port == 8000  # its --port flag


def test_systemd_commands_take_the_pods_form():
    from llmdoctor.judge.pod_fixes import in_pod
    from llmdoctor.knowledge.containers.pod import parse_pod
    from llmdoctor.model import Fix

    spec = parse_pod(json.dumps(kp.ollama_pod()))
    fix = in_pod(Fix("s", ("systemctl edit ollama", "systemctl daemon-reload && systemctl restart ollama",
                           "journalctl -u ollama -b | grep 'server config'", "ollama ps")), spec)
    assert fix.commands == (
        "kubectl edit deploy/ollama -n ollama  # the container's env: entries",
        "kubectl rollout restart deploy/ollama -n ollama",
        "kubectl logs ollama-74fbf7d68b-lglf9 -n ollama -c llm | grep 'server config'",
        "kubectl exec ollama-74fbf7d68b-lglf9 -n ollama -c llm -- ollama ps")
