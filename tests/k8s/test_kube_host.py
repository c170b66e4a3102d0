"""KubeHost and `--host k8s://…` against a `kubectl` stand-in on PATH (tests/support/fake_kubectl.py):
there is no cluster here, so the stand-in replays real recorded outputs (tests/fixtures/k8s) and
records every argv it was called with."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llmdoctor.hosts.base import CommandNotFound, HostUnreachable
from llmdoctor.hosts.kube import KubeHost, wait_closed
from llmdoctor.knowledge.inventory import parse_inventory
from tests.support import kube_pods as kp
from tests.support.schema import report_doc

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "support" / "fake_kubectl.py"
EVIDENCE = ROOT / "tests" / "fixtures" / "evidence"
K8S = ROOT / "tests" / "fixtures" / "k8s"
CONTAINERS = ROOT / "tests" / "fixtures" / "containers"


def strip_journal(text: str) -> str:
    from llmdoctor.parsing import strip_journal_prefix

    return "\n".join(strip_journal_prefix(line) for line in text.splitlines()) + "\n"


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    (bin_dir / "kubectl").chmod(0o755)
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_KUBECTL_LOG", str(log))
    monkeypatch.setenv("FAKE_KUBECTL_DIR", str(tmp_path / "cluster"))

    def setup(p, deploy=None, log_text="", previous="", describe="", context=""):
        kp.write_cluster(tmp_path / "cluster", p, deploy, log_text, previous, describe)
        monkeypatch.setenv("FAKE_KUBECTL_POD", p["metadata"]["name"])
        monkeypatch.setenv("FAKE_KUBECTL_NS", p["metadata"]["namespace"])
        monkeypatch.setenv("FAKE_KUBECTL_DEPLOY", deploy["metadata"]["name"] if deploy else "")
        monkeypatch.setenv("FAKE_KUBECTL_CONTEXT", context)

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    setup.calls = calls
    return setup


def cli(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "llmdoctor", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)


def findings_of(doc_text):
    return {f["check"]: f for f in report_doc(doc_text)["targets"][0]["findings"]}


def test_pod_get_exec_logs_argv(cluster, tmp_path, monkeypatch):
    p = kp.ollama_pod(restarts=2)
    cluster(p, log_text="current\n", previous="before the restart\n", context="kind-gpu")
    files = tmp_path / "files" / "proc"
    files.mkdir(parents=True)
    (files / "meminfo").write_text("MemTotal:       32768000 kB\n")
    monkeypatch.setenv("FAKE_KUBECTL_FILES", str(tmp_path / "files"))
    h = KubeHost("k8s://kind-gpu/ollama/ollama-74fbf7d68b-lglf9")
    h.connect()
    assert h.read("/proc/meminfo").startswith(b"MemTotal:")
    with pytest.raises(FileNotFoundError):
        h.read("/etc/nope")
    with pytest.raises(CommandNotFound):
        h.run(["ps", "-eo", "pid=,args="])
    text = h.logs(3600)
    assert text.index("before the restart") < text.index("current")
    pod, ns = "ollama-74fbf7d68b-lglf9", "ollama"
    ctx = ["--context", "kind-gpu"]
    assert cluster.calls() == [
        [*ctx, "get", "pod", pod, "-n", ns, "-o", "json"],
        [*ctx, "exec", pod, "-n", ns, "-c", "llm", "--", "head", "-c", str(4 * 1024 * 1024), "--", "/proc/meminfo"],
        [*ctx, "exec", pod, "-n", ns, "-c", "llm", "--", "head", "-c", str(4 * 1024 * 1024), "--", "/etc/nope"],
        [*ctx, "exec", pod, "-n", ns, "-c", "llm", "--", "ps", "-eo", "pid=,args="],
        [*ctx, "logs", pod, "-n", ns, "-c", "llm", "--timestamps", "--tail=200000", "--since=3600s", "--previous"],
        [*ctx, "logs", pod, "-n", ns, "-c", "llm", "--timestamps", "--tail=200000", "--since=3600s"],
    ]


def test_a_deployment_resolves_to_its_running_pod(cluster):
    p = kp.vllm_pod()
    cluster(p, kp.deployment("mistral-7b", "default", kp.VLLM_LABELS))
    h = KubeHost("k8s://default/deploy/mistral-7b")
    h.connect()
    assert h.pod == "mistral-7b-5cc594fd46-hg5rw"
    assert "pod mistral-7b-5cc594fd46-hg5rw of deploy/mistral-7b (Running and ready; 1 pod(s) match app=mistral-7b)" \
        == h.meta["picked"]
    assert cluster.calls() == [["get", "deployment", "mistral-7b", "-n", "default", "-o", "json"],
                               ["get", "pods", "-l", "app=mistral-7b", "-n", "default", "-o", "json"]]


@pytest.mark.parametrize("target,why", [
    ("k8s://ollama/nope", 'pods "nope" not found'),
    ("k8s://other-ctx/ollama/ollama-74fbf7d68b-lglf9", 'context "other-ctx" does not exist'),
    ("k8s://ollama/deploy/nope", 'deployments.apps "nope" not found'),
])
def test_kubectl_errors_are_one_line(cluster, target, why):
    cluster(kp.ollama_pod(), kp.deployment("ollama", "ollama", kp.OLLAMA_LABELS))
    with pytest.raises(HostUnreachable, match=why):
        KubeHost(target).connect()


def test_forbidden_and_missing_kubectl_degrade_to_a_line(cluster, monkeypatch, tmp_path):
    cluster(kp.ollama_pod())
    monkeypatch.setenv("FAKE_KUBECTL_FORBID", "1")
    p = cli("diagnose", "--host", "k8s://ollama/ollama-74fbf7d68b-lglf9", "--format", "json")
    assert p.returncode == 3 and "Traceback" not in p.stderr + p.stdout
    assert "is forbidden" in p.stdout + p.stderr
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    p = cli("diagnose", "--host", "k8s://ollama/ollama-74fbf7d68b-lglf9", "--format", "json")
    assert p.returncode == 3 and "kubectl command is not installed" in p.stdout + p.stderr


@pytest.mark.parametrize("bad", ["k8s://ollama", "k8s://Ollama/pod", "k8s://ns/-rm", "k8s://a/b/c/d",
                                 "k8s://ns/pod;rm", "k8s://ns/deploy/", "k8s://$(x)/ns/pod"])
def test_malformed_targets_are_a_usage_line(bad):
    p = cli("diagnose", "--host", bad)
    assert p.returncode == 3
    assert len(p.stderr.strip().splitlines()) == 1 and "invalid host" in p.stderr, p.stderr


def test_k8s_targets_in_an_inventory():
    assert parse_inventory("k8s://ai/deploy/vllm\nk8s://kind-x/ai/ollama-0\n") == [
        "k8s://ai/deploy/vllm", "k8s://kind-x/ai/ollama-0"]


def test_ollama_pod_gives_the_same_findings_as_its_evidence_with_deployment_fixes(cluster):
    """The same Ollama log (a real queue-full case) through a pod and as an evidence directory."""
    case = EVIDENCE / "ollama-queue-full"
    cluster(kp.ollama_pod(), kp.deployment("ollama", "ollama", kp.OLLAMA_LABELS),
            log_text=strip_journal((case / "journal.log").read_text()))
    direct = findings_of(cli("diagnose", "-e", str(case), "--format", "json").stdout)
    p = cli("diagnose", "--host", "k8s://ollama/deploy/ollama", "--format", "json")
    via_pod = findings_of(p.stdout)
    assert set(via_pod) == set(direct) and direct, (sorted(via_pod), sorted(direct), p.stderr[-2000:])
    for f in via_pod.values():
        text = "\n".join(f["fix"]["commands"]) + f["fix"]["config"]
        assert "systemctl" not in text and "[Service]" not in text and "journalctl" not in text
    fix = via_pod["ollama-queue-full"]["fix"]
    assert any(c.startswith("kubectl set env deploy/ollama -n ollama -c llm OLLAMA_") for c in fix["commands"]), fix
    assert fix["config"].startswith("# kubectl edit deploy/ollama -n ollama") and "- name: OLLAMA_" in fix["config"]
    target = report_doc(p.stdout)["targets"][0]
    assert target["target"] == "k8s://ollama/deploy/ollama"
    shown = json.dumps(target)
    assert "pod ollama-74fbf7d68b-lglf9 of deploy/ollama" in shown


def test_pod_env_is_the_configuration(cluster):
    from llmdoctor.facts import Context, FactStore

    env = {"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_CONTEXT_LENGTH": "4096"}
    cluster(kp.ollama_pod(env=env), log_text="")
    s = FactStore(Context(host=KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9"), sample_seconds=0, since_seconds=0))
    config = s.get("ollama_config")
    assert config.assigned["OLLAMA_NUM_PARALLEL"] == ("4", "pod environment (kubectl get pod ollama-74fbf7d68b-lglf9)")
    assert s.get("ollama_deployment") == "kubernetes"


def test_vllm_pod_without_a_gpu_limit_oomkilled(cluster, tmp_path):
    p = kp.vllm_pod(gpu=False, restarts=3, last_state=kp.OOM_LAST_STATE)
    log = (K8S / "logs_vllm_no_platform_llmd.txt").read_text().splitlines()[2:]
    cluster(p, kp.deployment("mistral-7b", "default", kp.VLLM_LABELS), log_text="\n".join(log) + "\n",
            previous="\n".join(log) + "\n")
    p = cli("diagnose", "--host", "k8s://default/deploy/mistral-7b", "--format", "json")
    found = findings_of(p.stdout)
    gpu = found["container-gpu-hidden"]
    assert gpu["cause"] == "CPU_SPILL" and "nvidia.com/gpu: 1" in gpu["fix"]["config"]
    assert "kubectl set resources deploy/mistral-7b -n default -c mistral-7b --limits=nvidia.com/gpu=1" in gpu["fix"]["commands"]
    assert any("No platform detected" in e["text"] for e in gpu["evidence"])
    oom = found["container-oom-killed"]
    assert any("OOMKilled" in e["text"] for e in oom["evidence"])
    assert any("memory: 40G" in oom["fix"]["config"] for _ in [0])
    assert any("BackOff" in e["text"] for e in oom["evidence"])


def test_collect_writes_pod_evidence_and_reads_it_back(cluster, tmp_path):
    p = kp.vllm_pod(gpu=False, restarts=1, last_state=kp.OOM_LAST_STATE)
    log = (K8S / "logs_vllm_no_platform_llmd.txt").read_text().splitlines()[2:]
    describe = (K8S / "describe_vllm_crashloop.txt").read_text()
    cluster(p, log_text="\n".join(log) + "\n", describe=describe)
    out = tmp_path / "ev"
    r = cli("collect", "--host", "k8s://default/mistral-7b-5cc594fd46-hg5rw", "-o", str(out))
    assert r.returncode == 0, r.stderr + r.stdout
    assert json.loads((out / "pod.json").read_text())["kind"] == "Pod"
    assert "Controlled By:" in (out / "kubectl_describe.txt").read_text()
    assert json.loads((out / "events.json").read_text())["items"][0]["kind"] == "Event"
    assert "No platform detected" in (out / "pod.log").read_text()
    live = findings_of(cli("diagnose", "--host", "k8s://default/mistral-7b-5cc594fd46-hg5rw", "--format", "json").stdout)
    again = findings_of(cli("diagnose", "-e", str(out), "--since", "3650d", "--format", "json").stdout)
    assert set(again) == set(live) and {"container-gpu-hidden", "container-oom-killed"} <= set(again)
    assert again["container-gpu-hidden"]["fix"]["commands"] == live["container-gpu-hidden"]["fix"]["commands"]


def test_port_forward_reaches_the_engine_and_is_torn_down(cluster, monkeypatch):
    """A real loopback engine (the Ollama replay) behind the stand-in's real relay: kubectl's
    own `Forwarding from` line gives the port; close() and SIGTERM's hooks stop the forward."""
    from llmdoctor.hosts import terminate
    from tests.support.ollama_replay import ollama_replay

    cluster(kp.ollama_pod())
    with ollama_replay() as engine:
        monkeypatch.setenv("FAKE_KUBECTL_UPSTREAM", engine.url.rsplit(":", 1)[1])
        h = KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9")
        r = h.http("GET", 11434, "/api/version", timeout=10)
        assert r.status == 200 and "version" in r.json()
        assert r.source == "GET k8s://ollama/ollama-74fbf7d68b-lglf9:11434/api/version"
        url = h.base_url(11434)  # the same forward, reused
        assert url.startswith("http://127.0.0.1:") and len([c for c in cluster.calls() if c[0] == "port-forward"]) == 1
        assert ["port-forward", "-n", "ollama", "pod/ollama-74fbf7d68b-lglf9", ":11434", "--address", "127.0.0.1"] \
            in cluster.calls()
        h.close()
        assert wait_closed(h)
        h2 = KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9")
        assert h2.http("GET", 11434, "/api/version", timeout=10).status == 200
        terminate.run_hooks()  # what the SIGTERM handler runs before it exits
        assert wait_closed(h2)


def test_port_forward_that_never_forwards_is_a_line(cluster, monkeypatch):
    cluster(kp.ollama_pod())
    monkeypatch.setenv("FAKE_KUBECTL_POD", "another-pod")  # the pod went away meanwhile
    h = KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9")
    h._pod_json = json.dumps(kp.ollama_pod())
    with pytest.raises(HostUnreachable, match='port-forward to port 11434: Error from server .NotFound.: pods'):
        h.http("GET", 11434, "/api/version")


def test_vllm_pod_fixes_are_its_args(cluster):
    """A real vLLM case (max-seq-len, vllm#34076) through a pod: the fix is the container's args."""
    case = EVIDENCE / "vllm-max-seq-len"
    cluster(kp.vllm_pod(), kp.deployment("mistral-7b", "default", kp.VLLM_LABELS),
            log_text=(case / "vllm.log").read_text())
    direct = findings_of(cli("diagnose", "-e", str(case), "--format", "json").stdout)
    p = cli("diagnose", "--host", "k8s://default/deploy/mistral-7b", "--format", "json")
    via_pod = findings_of(p.stdout)
    assert set(direct) <= set(via_pod), (sorted(via_pod), sorted(direct), p.stdout[-3000:])
    fix = via_pod["vllm-max-seq-len"]["fix"]
    assert fix["config"].startswith("# kubectl edit deploy/mistral-7b -n default: spec.template.spec.containers[mistral-7b].args")
    # the docs' Deployment runs `sh -c "vllm serve ..."`: the new args keep that form, one string
    assert "\n- \"vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code" in fix["config"], fix["config"]
    assert not any(c.startswith("vllm serve") for c in fix["commands"])
    change = report_doc(p.stdout)["targets"][0]["what_to_change"]
    assert all(c["place"].startswith("Kubernetes deploy/mistral-7b") for c in change), change


def test_ticket_pieces_are_named():
    from llmdoctor.knowledge.ticket import split_ticket

    describe = (K8S / "describe_gpu_limits_pending.txt").read_text()
    pod = json.dumps(kp.ollama_pod(), indent=4)
    text = (f"$ kubectl describe pod -n default xyz-v1-5c5b57cf9c-kvjxn\n{describe}\n"
            f"$ kubectl get pod ollama-74fbf7d68b-lglf9 -n ollama -o json\n{pod}\n"
            "$ kubectl logs -n ollama ollama-74fbf7d68b-lglf9\n" + (K8S / "logs_ollama_no_gpu_libraries.txt").read_text())
    files = split_ticket(text)
    assert "Controlled By:" in files["kubectl_describe.txt"]
    assert json.loads(files["pod.json"])["kind"] == "Pod"
    assert "Detecting GPU type" in files["pod.log"]
    assert "pod.json" in split_ticket(pod) and "kubectl_describe.txt" in split_ticket(describe)


def test_secret_env_values_never_leave_the_host_object(cluster):
    p = kp.ollama_pod(env={"OLLAMA_NUM_PARALLEL": "2", "OLLAMA_API_KEY": "s3cr3t-value-1234"})
    cluster(p)
    text = KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9").container_inspect().stdout
    assert "s3cr3t-value-1234" not in text and '"OLLAMA_NUM_PARALLEL"' in text


def test_pod_env_not_the_default_decides_num_parallel(cluster):
    """The queue-full log names no NUM_PARALLEL: the pod's env (not a version default) is the value."""
    from llmdoctor.facts import Context, FactStore

    log = strip_journal((EVIDENCE / "ollama-queue-full" / "journal.log").read_text())
    for value, fires in (("1", True), ("4", False)):
        cluster(kp.ollama_pod(env={"OLLAMA_NUM_PARALLEL": value}), log_text=log)
        host = KubeHost("k8s://ollama/ollama-74fbf7d68b-lglf9")
        s = FactStore(Context(host=host, sample_seconds=0, since_seconds=0))
        config = s.get("ollama_config")
        assert config.values["OLLAMA_NUM_PARALLEL"] == value
        assert config.origin("OLLAMA_NUM_PARALLEL") == "pod environment (kubectl get pod ollama-74fbf7d68b-lglf9)"
        p = cli("diagnose", "--host", "k8s://ollama/ollama-74fbf7d68b-lglf9", "--format", "json")
        found = findings_of(p.stdout)
        assert ("ollama-one-slot" in found) is fires, sorted(found)
        if fires:
            ev = found["ollama-one-slot"]["evidence"]
            assert any("pod environment" in e["source"] or "pod environment" in e["text"] for e in ev), ev


def test_sigterm_stops_the_port_forward(cluster, monkeypatch, tmp_path):
    """A run stopped by SIGTERM (systemd stop, a CI timeout) leaves no kubectl port-forward behind."""
    import signal
    import time

    from tests.support.ollama_replay import ollama_replay

    cluster(kp.ollama_pod())
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, time\n"
        "from llmdoctor.hosts import terminate\n"
        "from llmdoctor.hosts.kube import KubeHost\n"
        "terminate.install()\n"
        "h = KubeHost('k8s://ollama/ollama-74fbf7d68b-lglf9')\n"
        "h.http('GET', 11434, '/api/version', timeout=10)\n"
        "print(h._forwards[11434].proc.pid, flush=True)\n"
        "time.sleep(60)\n")
    with ollama_replay() as engine:
        env = dict(os.environ, PYTHONPATH=str(ROOT), FAKE_KUBECTL_UPSTREAM=engine.url.rsplit(":", 1)[1])
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        try:
            pid = int(proc.stdout.readline())
            os.kill(pid, 0)  # the forward runs
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 128 + signal.SIGTERM
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                time.sleep(0.05)
            else:
                raise AssertionError("kubectl port-forward outlived the SIGTERM")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)


def test_a_pasted_ticket_with_kubectl_pieces(tmp_path):
    pod = json.dumps(kp.vllm_pod(gpu=False), indent=4)
    log = (K8S / "logs_vllm_no_platform_llmd.txt").read_text()  # its own `kubectl logs` prompt and output
    ticket = tmp_path / "ticket.txt"
    ticket.write_text("my vllm pod is slow\n\n$ kubectl get pod mistral-7b-5cc594fd46-hg5rw -o json\n" + pod + "\n" + log)
    p = cli("diagnose", "-e", str(ticket), "--format", "json")
    found = findings_of(p.stdout)
    fix = found["container-gpu-hidden"]["fix"]
    assert fix["commands"][0] == ("kubectl set resources deploy/mistral-7b -n default -c mistral-7b "
                                  "--limits=nvidia.com/gpu=1"), fix
    assert any(e["source"].startswith("vllm.log") or "No platform detected" in e["text"]
               for e in found["container-gpu-hidden"]["evidence"])


def test_probe_a_pod_through_port_forward(cluster, monkeypatch):
    from tests.support.ollama_replay import ollama_replay

    cluster(kp.ollama_pod())
    with ollama_replay() as engine:
        monkeypatch.setenv("FAKE_KUBECTL_UPSTREAM", engine.url.rsplit(":", 1)[1])
        p = cli("probe", "k8s://ollama/ollama-74fbf7d68b-lglf9", "--deadline", "30", "-f", "json")
        assert p.returncode in (0, 1, 2), p.stderr[-2000:]
        assert engine.requests, "the probe never reached the engine"
    assert ["port-forward", "-n", "ollama", "pod/ollama-74fbf7d68b-lglf9", ":11434", "--address", "127.0.0.1"] \
        in cluster.calls()
    p = cli("probe", "k8s://Bad/x")
    assert p.returncode == 3 and "invalid host" in p.stderr
