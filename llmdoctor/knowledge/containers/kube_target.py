"""The `k8s://` target grammar: `k8s://[CONTEXT/]NAMESPACE/POD` or `k8s://[CONTEXT/]NAMESPACE/deploy/NAME`.

Why its own rules: every part ends up on kubectl's command line, so namespaces and names must
follow Kubernetes' own (which never start with '-'), and a context, free text in a kubeconfig,
is limited to what real ones hold (kind, minikube, GKE, EKS ARNs with '/' written %2F).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

USAGE = ("a Kubernetes target is k8s://[CONTEXT/]NAMESPACE/POD or k8s://[CONTEXT/]NAMESPACE/deploy/NAME "
         "(a '/' inside CONTEXT written %2F)")
# RFC 1123 label (namespaces) and subdomain (pods, deployments): Kubernetes' own name rules,
# which never start with '-', so no name can be read as an option of kubectl.
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\Z")
# kubeconfig context names are free text; these cover kind, minikube, GKE (`gke_p_z_c`), EKS
# ARNs (`arn:aws:eks:r:1:cluster/c`, with the '/' written %2F) and `user@cluster`.
_CONTEXT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@/+=-]{0,252}\Z")
WORKLOADS = {"deploy": "deploy", "deployment": "deploy", "deployments": "deploy"}


@dataclass(frozen=True)
class KubeTarget:
    """`k8s://[CONTEXT/]NAMESPACE/POD` or `k8s://[CONTEXT/]NAMESPACE/deploy/NAME`."""

    namespace: str
    name: str
    kind: str = "pod"  # "pod" | "deploy"
    context: str | None = None
    runtime: str = "k8s"  # so code that asks a container target for its runtime gets an answer
    via: None = None  # never behind SSH: kubectl reaches the cluster from here

    def __str__(self) -> str:
        ctx = f"{self.context.replace('/', '%2F')}/" if self.context else ""
        what = self.name if self.kind == "pod" else f"deploy/{self.name}"
        return f"k8s://{ctx}{self.namespace}/{what}"


def is_kube_target(s: str) -> bool:
    return isinstance(s, str) and s.startswith(("k8s://", "kube://"))


def parse_kube_target(s: str) -> KubeTarget:
    """Parse a `k8s://` target; ValueError with a one-line reason (USAGE) for anything else."""
    original = s
    if not is_kube_target(s):
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    parts = s.split("://", 1)[1].split("/")
    if "" in parts:
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    kind = "pod"
    if len(parts) >= 3 and parts[-2] in WORKLOADS:
        kind, parts = "deploy", parts[:-2] + [parts[-1]]
    if len(parts) == 2:
        context, (namespace, name) = None, parts
    elif len(parts) == 3:
        context, namespace, name = parts
    else:
        raise ValueError(f"invalid host {original!r}: {USAGE}")
    if context is not None:
        context = unquote(context)
        if not _CONTEXT.match(context):
            raise ValueError(f"invalid host {original!r}: {context!r} is not a kubeconfig context name")
    if not _LABEL.match(namespace):
        raise ValueError(f"invalid host {original!r}: {namespace!r} is not a namespace name "
                         "(lower-case letters, digits and '-', at most 63)")
    if not _SUBDOMAIN.match(name):
        raise ValueError(f"invalid host {original!r}: {name!r} is not a {'pod' if kind == 'pod' else 'Deployment'} "
                         "name (lower-case letters, digits, '-' and '.')")
    return KubeTarget(namespace, name, kind, context)
