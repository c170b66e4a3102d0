"""Pods, Deployments and events for the Kubernetes tests, built from REAL recorded pieces
(tests/fixtures/k8s/SOURCES.md): no real `kubectl get pod -o json` of an Ollama or vLLM pod was
found, so the object around the container is a real `kubectl get pods -o json` item (kuard on
minikube), and the container in it is the one of a real Ollama or vLLM Deployment, the way the
Deployment's template becomes the pod's spec. Events take the real `kubectl describe` Events
rows of a vLLM pod (aibrix#1054) in the API's Event fields."""
from __future__ import annotations

import copy
import json
from pathlib import Path

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "k8s"


def _skeleton() -> dict:
    return copy.deepcopy(json.loads((FIX / "pods_list_kuard_minikube.json").read_text())["items"][0])


# the container of the Ollama Deployment in ollama/ollama#888 (examples 5i), as the API returns it
OLLAMA_CONTAINER = {"image": "ollama/ollama", "imagePullPolicy": "IfNotPresent", "name": "llm",
                    "ports": [{"containerPort": 11434, "protocol": "TCP"}],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}}
OLLAMA_LABELS = {"app.kubernetes.io/name": "llm"}
# the container of the vLLM docs' "Deployment with GPUs" (examples 5h)
VLLM_CONTAINER = {
    "name": "mistral-7b", "image": "vllm/vllm-openai:latest", "command": ["/bin/sh", "-c"],
    "args": ["vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code --enable-chunked-prefill "
             "--max_num_batched_tokens 1024"],
    "env": [{"name": "HUGGING_FACE_HUB_TOKEN",
             "valueFrom": {"secretKeyRef": {"name": "hf-token-secret", "key": "token"}}}],
    "ports": [{"containerPort": 8000, "protocol": "TCP"}],
    "resources": {"limits": {"cpu": "10", "memory": "20G", "nvidia.com/gpu": "1"},
                  "requests": {"cpu": "2", "memory": "6G", "nvidia.com/gpu": "1"}},
}
VLLM_LABELS = {"app": "mistral-7b"}


def pod(container: dict, name: str, namespace: str, deployment: str, template_hash: str, labels: dict,
        restarts: int = 0, last_state: dict | None = None) -> dict:
    """A pod of `deployment`, with `container` as its only container."""
    p = _skeleton()
    meta = p["metadata"]
    meta.update(name=name, namespace=namespace, generateName=f"{deployment}-{template_hash}-",
                labels={**labels, "pod-template-hash": template_hash})
    meta["ownerReferences"][0]["name"] = f"{deployment}-{template_hash}"
    c = {**copy.deepcopy(container), "terminationMessagePath": "/dev/termination-log",
         "terminationMessagePolicy": "File", "volumeMounts": p["spec"]["containers"][0]["volumeMounts"]}
    p["spec"]["containers"] = [c]
    st = p["status"]["containerStatuses"][0]
    st.update(name=c["name"], image=c["image"], restartCount=restarts, lastState=last_state or {})
    return p


# lastState.terminated as the API defines it (ContainerStateTerminated), with the values of the
# OOMKilled `kubectl describe` in operator-sdk-samples#156 (examples 5d): Reason OOMKilled, Exit Code 137
OOM_LAST_STATE = {"terminated": {"containerID": "docker://8df64776f9c7157424ec5522ed5124120f01da1a536ef9428e4ba0e3c4ad7397",
                                 "exitCode": 137, "finishedAt": "2020-08-31T21:33:08Z", "reason": "OOMKilled",
                                 "startedAt": "2020-08-31T21:32:42Z"}}


def ollama_pod(env: dict | None = None, gpu: bool = True, **kw) -> dict:
    c = copy.deepcopy(OLLAMA_CONTAINER)
    if env:
        c["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if not gpu:
        c["resources"] = {}
    return pod(c, "ollama-74fbf7d68b-lglf9", "ollama", "ollama", "74fbf7d68b", OLLAMA_LABELS, **kw)


def vllm_pod(gpu: bool = True, **kw) -> dict:
    c = copy.deepcopy(VLLM_CONTAINER)
    if not gpu:
        for part in ("limits", "requests"):
            c["resources"][part].pop("nvidia.com/gpu")
    return pod(c, "mistral-7b-5cc594fd46-hg5rw", "default", "mistral-7b", "5cc594fd46", VLLM_LABELS, **kw)


def deployment(name: str, namespace: str, labels: dict) -> dict:
    """`kubectl get deploy NAME -o json` of the samples' Deployments (the fields the host reads)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "spec": {"replicas": 1, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)}}}}


def events(pod_name: str, namespace: str) -> dict:
    """The Events rows of the real `kubectl describe pod` in aibrix#1054 (examples 5a) as the
    Event objects `kubectl get events -o json` lists (core/v1 Event fields)."""
    rows = [("Normal", "Scheduled", 1, "default-scheduler",
             f"Successfully assigned {namespace}/{pod_name} to minikube"),
            ("Normal", "Pulled", 1, "kubelet", 'Successfully pulled image "vllm/vllm-openai:v0.7.1" in 4m47.129s '
             "(5m3.623s including waiting). Image size: 16525161745 bytes."),
            ("Warning", "Unhealthy", 3, "kubelet", 'Startup probe failed: Get "http://10.244.0.13:8000/health": dial tcp '
             "10.244.0.13:8000: connect: connection refused"),
            ("Warning", "BackOff", 5, "kubelet", "Back-off restarting failed container")]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
        {"apiVersion": "v1", "kind": "Event", "type": t, "reason": r, "count": n, "message": m,
         "source": {"component": src}, "metadata": {"name": f"{pod_name}.{i:x}", "namespace": namespace},
         "involvedObject": {"kind": "Pod", "name": pod_name, "namespace": namespace, "apiVersion": "v1"}}
        for i, (t, r, n, src, m) in enumerate(rows)]}


def write_cluster(d: Path, p: dict, deploy: dict | None = None, log: str = "", previous: str = "",
                  describe: str = "", ev: dict | None = None) -> Path:
    """The directory tests/support/fake_kubectl.py answers from."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "pod.json").write_text(json.dumps(p, indent=4) + "\n")
    (d / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [p],
                                             "metadata": {"resourceVersion": ""}}, indent=4) + "\n")
    if deploy is not None:
        (d / "deploy.json").write_text(json.dumps(deploy, indent=4) + "\n")
    (d / "logs.txt").write_text(log)
    (d / "previous.txt").write_text(previous)
    (d / "describe.txt").write_text(describe)
    (d / "events.json").write_text(json.dumps(ev if ev is not None else events(p["metadata"]["name"],
                                                                               p["metadata"]["namespace"])))
    return d
