"""The pure readers of knowledge/containers/pod.py on real recorded kubectl outputs (tests/fixtures/k8s)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmdoctor.knowledge.containers.pod import (
    deployment_selector, event_lines, looks_like_describe, looks_like_pod, parse_describe, parse_kube_target,
    parse_pod, pick_running,
)
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
