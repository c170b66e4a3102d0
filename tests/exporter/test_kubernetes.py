"""packaging/kubernetes/: every manifest is valid against the real schemas (Kubernetes 1.33, strict;
Prometheus-operator's CRDs), vendored under tests/fixtures/kubernetes-schemas/ (README.md there
names their sources); the PrometheusRule is rules.yml's groups and passes `promtool check rules`;
the Deployment's arguments are ones the exporter accepts. No cluster."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource

from llmdoctor.app.explain import DOCS_BASE
from tests.support import prometheus as prom_support

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "packaging" / "kubernetes"
SCHEMAS = ROOT / "tests" / "fixtures" / "kubernetes-schemas"
KUBE = SCHEMAS / "v1.33.0-local-strict"
MANIFESTS = sorted(K8S.glob("*.yaml"))

needs_promtool = pytest.mark.skipif(prom_support.promtool_skip_reason() is not None,
                                    reason=prom_support.promtool_skip_reason() or "")


def documents() -> list[tuple[str, dict]]:
    out = []
    for path in MANIFESTS:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                out.append((path.name, doc))
    return out


def by_kind(kind: str) -> dict:
    return next(doc for _name, doc in documents() if doc["kind"] == kind)


def validator(doc: dict):
    """The schema of the document's kind, as kubeconform/kubernetes-validate would pick it."""
    group, _, version = doc["apiVersion"].rpartition("/")
    if group == "monitoring.coreos.com":
        schema = json.loads((SCHEMAS / f"monitoring.coreos.com_{doc['kind'].lower()}_{version}.json").read_text())
        return jsonschema.Draft7Validator(schema)
    api = f"{group.split('.')[0]}-{version}" if group else version
    schema = json.loads((KUBE / f"{doc['kind'].lower()}-{api}.json").read_text())
    definitions = json.loads((KUBE / "_definitions.json").read_text())
    registry = Registry().with_resources([(schema.get("$id", ""), Resource.from_contents(schema)),
                                          (definitions["$id"], Resource.from_contents(definitions))])
    return jsonschema.Draft202012Validator(schema, registry=registry)


def errors(doc: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(doc).iter_errors(doc)]


def test_the_manifests_are_there():
    kinds = sorted(doc["kind"] for _n, doc in documents())
    assert kinds == ["Deployment", "PrometheusRule", "Role", "RoleBinding", "Service", "ServiceAccount",
                     "ServiceMonitor"]


@pytest.mark.parametrize("name,doc", documents(), ids=[n for n, _ in documents()])
def test_manifest_is_valid_against_its_schema(name, doc):
    assert errors(doc) == []


@pytest.mark.parametrize("kind,path,value", [
    ("Deployment", ("spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"), "nine"),
    ("Deployment", ("spec", "template", "spec", "containers", 0, "imagePullPolicy"), 3),
    ("Deployment", ("spec", "template", "spec", "containers", 0, "resourcez"), {}),  # strict: unknown field
    ("Service", ("spec", "ports", 0, "port"), "http"),
    ("ServiceMonitor", ("spec", "endpoints"), "metrics"),
    ("PrometheusRule", ("spec", "groups", 0, "rules", 0, "for"), "ten minutes"),
])
def test_the_validation_refuses_a_broken_manifest(kind, path, value):
    """The schemas bite: a value of the wrong type or an unknown field is an error."""
    doc = copy.deepcopy(by_kind(kind))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert errors(doc)


def test_prometheusrule_is_the_shipped_rules_and_is_current():
    rules = yaml.safe_load((ROOT / "packaging" / "prometheus" / "rules.yml").read_text())
    assert by_kind("PrometheusRule")["spec"]["groups"] == rules["groups"]
    p = subprocess.run([sys.executable, str(K8S / "prometheusrule.py"), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


@needs_promtool
def test_prometheusrule_passes_promtool(tmp_path):
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump({"groups": by_kind("PrometheusRule")["spec"]["groups"]}))
    p = prom_support.promtool("check", "rules", str(path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert b"SUCCESS: 12 rules found" in p.stdout


def test_every_alert_has_a_runbook_url():
    for group in by_kind("PrometheusRule")["spec"]["groups"]:
        for rule in group["rules"]:
            url = rule["annotations"]["runbook_url"]
            assert url.startswith(DOCS_BASE) and (ROOT / "docs" / "checks" / url[len(DOCS_BASE):].split("#")[0]).is_file()


def test_the_pieces_refer_to_each_other():
    sa, dep, svc = by_kind("ServiceAccount"), by_kind("Deployment"), by_kind("Service")
    role, binding, monitor = by_kind("Role"), by_kind("RoleBinding"), by_kind("ServiceMonitor")
    pod = dep["spec"]["template"]
    assert pod["spec"]["serviceAccountName"] == sa["metadata"]["name"] == binding["subjects"][0]["name"]
    assert binding["roleRef"]["name"] == role["metadata"]["name"] and binding["metadata"]["namespace"] == role["metadata"]["namespace"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert monitor["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    port_names = {p["name"] for p in pod["spec"]["containers"][0]["ports"]}
    assert svc["spec"]["ports"][0]["targetPort"] in port_names and monitor["spec"]["endpoints"][0]["port"] == svc["spec"]["ports"][0]["name"]
    # what kube.py runs: get pods/deployments, logs, exec, port-forward
    granted = {(res, verb) for rule in role["rules"] for res in rule["resources"] for verb in rule["verbs"]}
    assert {("pods", "get"), ("pods", "list"), ("deployments", "get"), ("pods/log", "get"), ("pods/exec", "create"),
            ("pods/portforward", "create"), ("events", "list")} <= granted
    assert not {verb for rule in role["rules"] for verb in rule["verbs"]} & {"delete", "patch", "update", "*"}


def test_the_deployment_runs_an_exporter_the_cli_accepts():
    from llmdoctor.app.exporter.service import parse_duration, parse_listen, target_names

    container = by_kind("Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[0] == "exporter"
    options = dict(a.split("=", 1) for a in args[1:])
    assert parse_listen(options["--listen"]) == ("0.0.0.0", container["ports"][0]["containerPort"])
    assert parse_duration(options["--interval"]) == 60
    assert target_names([options["--host"]], [])[0][1:] == ("host", "k8s://llm/deploy/vllm")
    state = options["--state-dir"]
    assert any(m["mountPath"] == state for m in container["volumeMounts"])  # writable under a read-only root
    help_text = subprocess.run([sys.executable, "-m", "llmdoctor", "exporter", "--help"], capture_output=True,
                               text=True, cwd=ROOT).stdout
    assert all(re.search(rf"{re.escape(o)}\b", help_text) for o in options)
    assert container["securityContext"]["readOnlyRootFilesystem"] and container["securityContext"]["allowPrivilegeEscalation"] is False
