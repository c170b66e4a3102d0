#!/usr/bin/env python3
"""Builds prometheusrule.yaml: the alert rules of packaging/prometheus/rules.yml (one source,
with their runbook_url) as a Prometheus-operator PrometheusRule.

Edit the rules in rules.yml and run `python3 packaging/kubernetes/prometheusrule.py`; `--check`
says whether prometheusrule.yaml matches (tests/exporter/test_kubernetes.py runs it).
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
RULES = HERE.parent / "prometheus" / "rules.yml"
OUT = HERE / "prometheusrule.yaml"
HEADER = """\
# Generated from packaging/prometheus/rules.yml by packaging/kubernetes/prometheusrule.py: edit
# the rules there. Its Prometheus must select this object (`ruleSelector`; kube-prometheus-stack
# selects `release: <its release name>`).
"""


class _Dumper(yaml.SafeDumper):
    """Multi-line expressions as block literals (`|`), as rules.yml writes them."""


_Dumper.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def build() -> str:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    doc = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
           "metadata": {"name": "llmdoctor", "labels": {"app.kubernetes.io/name": "llmdoctor-exporter",
                                                        "release": "kube-prometheus-stack"}},
           "spec": {"groups": groups}}
    return HEADER + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, width=120, allow_unicode=True)


if __name__ == "__main__":
    text = build()
    if "--check" in sys.argv[1:]:
        sys.exit(0 if OUT.read_text() == text else "prometheusrule.yaml is stale: run packaging/kubernetes/prometheusrule.py")
    OUT.write_text(text)
