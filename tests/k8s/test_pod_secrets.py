"""A pod whose `args:` carry `--api-key` and whose `env:` holds a plain value under a name no
engine reads: no output (text, json, markdown, html, fixes, a `collect --clean` bundle) shows
either value, and the fix that rebuilds the container's args keeps the flag, not the value."""
from __future__ import annotations

import copy
import json

import pytest

from tests.k8s.test_kube_host import K8S, cli, cluster  # noqa: F401  (the fixture)
from tests.support import kube_pods as kp

KEY, PLAIN = "q7podArgKeyAbCdEf0123456789", "q7podEnvValueXyZ98765"
WORDS = "blue-harbor"  # no token's shape: only the keep-list withholds it (and counts it)


def secret_pod(shell: bool) -> dict:
    p = kp.vllm_pod(gpu=False, restarts=1, last_state=kp.OOM_LAST_STATE)
    c = p["spec"]["containers"][0]
    if shell:
        c["args"] = [c["args"][0] + f" --api-key {KEY}"]
    else:
        c["command"] = ["vllm", "serve"]
        c["args"] = ["mistralai/Mistral-7B-Instruct-v0.3", "--enable-chunked-prefill", "--max_num_batched_tokens", "1024",
                     "--api-key", KEY]
    c["env"] = copy.deepcopy(c["env"]) + [{"name": "MYAPP_UPSTREAM", "value": PLAIN}, {"name": "MYAPP_REGION", "value": WORDS}]
    return p


@pytest.mark.parametrize("shell", [True, False], ids=["sh -c", "args list"])
def test_pod_secrets_leak_nowhere(cluster, tmp_path, shell):  # noqa: F811
    log = (K8S / "logs_vllm_no_platform_llmd.txt").read_text().splitlines()[2:]
    cluster(secret_pod(shell), log_text="\n".join(log) + "\n", describe=(K8S / "describe_vllm_crashloop.txt").read_text())
    target = "k8s://default/mistral-7b-5cc594fd46-hg5rw"
    for fmt in ("text", "json", "markdown", "html"):
        r = cli("diagnose", "--host", target, "--format", fmt)
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
        assert KEY not in r.stdout + r.stderr and PLAIN not in r.stdout + r.stderr, fmt
        assert WORDS not in r.stdout + r.stderr, fmt
        if fmt == "json":  # the report says the keep-list withheld it (the pod's spec is redacted as it is read)
            assert json.loads(r.stdout)["targets"][0]["withheld"] >= 1
        else:
            assert "Withheld: " in r.stdout, fmt
    out = tmp_path / "ev"
    r = cli("collect", "--host", target, "-o", str(out), "--clean", "--keyword", "mistral-7b-5cc594fd46-hg5rw",
            "--state-dir", str(tmp_path / "state"))
    assert r.returncode == 0, r.stderr + r.stdout
    assert "  withheld: " in r.stdout  # the bundle's summary says how many values the keep-list withheld
    assert json.loads((out / "meta.json").read_text())["withheld"] >= 1
    for p in out.rglob("*"):
        if p.is_file():
            data = p.read_text(errors="replace")
            assert KEY not in data and PLAIN not in data and WORDS not in data and "mistral-7b-5cc594fd46-hg5rw" not in data, p.name
    pod = json.loads((out / "pod.json").read_text())
    assert "--api-key" in json.dumps(pod)  # the name stays
    assert not any(p.name == "clean-map.json" for p in out.rglob("*"))
